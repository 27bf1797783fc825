package io.relock.internal;

import io.relock.LockObserver;
import io.relock.RelockException;
import io.relock.spi.RedisDriver;
import io.relock.spi.RedisUri;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine behind one {@link io.relock.Relock} client: its lifecycle (start, close, the timer and
 * event threads), the registry of per-name {@link LockState}s (each changed only by events posted
 * to it) with the sharded grant channels they listen on, and the entry points the API's shells
 * call (acquire, unlock, reads, forced unlocks). Public only so that the API package can reach it;
 * not part of the API.
 *
 * <p>The rest is in rooms of its own, made here: {@link LeaseKeeper} keeps holds from grant to
 * release (watchdog, expiry checks, hand-over confirmation, loss reports, claim arithmetic) and
 * makes {@link LeaseChanges} (a holder's close, extend, closeAfter); {@link LockCalls} builds the
 * lock scripts' calls; {@link Notifications} reads what the client's channels say. None of them
 * holds the engine ({@link Notifications} asks it only whether the client is closed); the lock
 * states and their acquisitions and releases call it only as their registry (dropping a
 * reference, listening for grants) and for the client's lifecycle, settings and counters.
 */
public final class LockEngine {
  private static final Logger log = LoggerFactory.getLogger(LockEngine.class);
  private static final SecureRandom RANDOM = new SecureRandom();

  /**
   * Releases in a row that may pass the lock to a waiter of this client ahead of other clients'
   * waiters. Passing within the client saves a cross-process wake-up per acquisition; the bound
   * keeps other processes from waiting more than this many holds per client ahead of them.
   */
  static final int PASSES_AHEAD = 16;

  private final RedisDriver driver;
  private final RelockSettings settings;
  /** How long a caller waits for Redis to confirm a release: twice the command timeout, and a second. */
  private final Duration releaseWait;
  private final ScriptRunner scripts;
  private final String clientId;
  private final String channel;
  /** Every owner id of this client starts with it. */
  private final String ownerPrefix;
  /**
   * Whether grants are published per lock with SPUBLISH (a Redis 7+ Cluster): waiters of this
   * client then subscribe to the channel of each lock they wait for, not to one client channel.
   */
  private final boolean sharded;
  /** Sharded grant channels subscribed, with how many lock states want each. */
  private final Map<String, Integer> shardedChannels = new HashMap<>();
  /** The client's timer thread: every delayed action runs on it. */
  final ClientTimer timer;
  private final ExecutorService events;
  /** Keeps this client's holds from grant to release. */
  final LeaseKeeper keeper;
  /** Builds the lock scripts' calls. */
  final LockCalls calls;
  /** Reads what the client's notification channels say and posts it to the lock states. */
  private final Notifications notifications;
  private final LockInspector inspector;
  /** The state of every name this client has something under way for, by lock key. */
  private final ConcurrentHashMap<String, LockState> states = new ConcurrentHashMap<>();
  /** Numbers every acquisition's owner id, so no two acquisitions ever share one. */
  private final AtomicLong owners = new AtomicLong();
  private final AtomicBoolean closing = new AtomicBoolean();
  final Listeners listeners = new Listeners();
  final Observers observers = new Observers();
  /** See {@link io.relock.RelockStats}: holds from acquisition until release starts, acquisitions under way. */
  final java.util.concurrent.atomic.AtomicInteger holds = new java.util.concurrent.atomic.AtomicInteger();
  private final java.util.concurrent.atomic.AtomicInteger acquiring = new java.util.concurrent.atomic.AtomicInteger();
  private volatile boolean closed;
  /** The subscription to {@link #channel}, which a slow Redis may confirm after start returned. */
  private NotificationSubscription subscription;

  /** Hides passwords in the text of the driver's exceptions before it reaches a message or a log line. */
  private final UnaryOperator<String> redaction;

  private LockEngine(RedisDriver driver, RelockSettings settings, String where, UnaryOperator<String> redaction) {
    this.driver = driver;
    this.redaction = redaction;
    this.settings = settings;
    this.releaseWait = settings.commandTimeout().multipliedBy(2).plusSeconds(1);
    this.scripts = new ScriptRunner(driver, settings.commandTimeout(), where, redaction, listeners);
    byte[] id = new byte[16];
    RANDOM.nextBytes(id);
    this.clientId = HexFormat.of().formatHex(id);
    this.channel = settings.keyPrefix() + "client:" + clientId;
    this.ownerPrefix = clientId + ":";
    String tag = clientId.substring(0, 8);
    this.timer = new ClientTimer(daemon("relock-timer-" + tag));
    this.events = Executors.newSingleThreadExecutor(daemon("relock-events-" + tag));
    this.sharded = driver.hasShardedPubSub();
    this.keeper = new LeaseKeeper(settings, scripts, timer, events, listeners, releaseWait, driver.isClustered(),
        driver::refreshTopology);
    this.calls = new LockCalls(scripts, settings, keeper, timer, channel, sharded);
    this.notifications = new Notifications(ownerPrefix, states::get, this::isClosed, calls);
    this.inspector = new LockInspector(driver, scripts, settings);
  }

  /**
   * Subscribes to the client's notification channel, checks the server's settings, and starts the
   * watchdog.
   */
  public static LockEngine start(RedisDriver driver, RelockSettings settings) {
    return start(driver, settings, null);
  }

  /**
   * As {@link #start(RedisDriver, RelockSettings)}, naming the topology in error messages.
   *
   * @param where what the driver connects to (a {@link io.relock.spi.RedisTarget}'s description,
   *     passwords hidden), or null
   */
  public static LockEngine start(RedisDriver driver, RelockSettings settings, String where) {
    return start(driver, settings, where, RedisUri::redact);
  }

  /**
   * As {@link #start(RedisDriver, RelockSettings, String)}, hiding passwords in the text of the
   * driver's exceptions with {@code redaction} (see {@link io.relock.spi.RedisTarget#redact}).
   *
   * @param redaction turns a driver's text into one fit for messages and logs
   */
  public static LockEngine start(RedisDriver driver, RelockSettings settings, String where,
      UnaryOperator<String> redaction) {
    LockEngine engine = new LockEngine(driver, settings, where, redaction);
    // The server check's script call goes out now and is judged after the subscription is confirmed.
    CompletableFuture<List<Object>> serverInfo = ServerCheck.read(engine.scripts);
    // Before subscribing: a driver that confirms the subscription only after a reconnect says so this way.
    driver.onReconnect(engine::reconnected);
    NotificationSubscription subscription = new NotificationSubscription(engine.timer, driver, engine.channel,
        engine.notifications::onNotification, settings.connectTimeout(), engine::reconnected, where, redaction);
    engine.subscription = subscription;
    try {
      if (engine.sharded) {
        // Grants come on each lock's own channel (see hearGrants); the client's channel carries only
        // the rare notices of a forced unlock, broadcast cluster-wide. Without it, a renewal finds
        // such a loss instead: not worth failing or delaying the client for.
        subscription.subscribeInBackground();
      } else {
        subscription.subscribe(); // fails only if Redis refused it; a slow Redis is waited out in the background
      }
    } catch (RuntimeException e) {
      engine.shutdown();
      throw e;
    }
    try {
      ServerCheck.check(serverInfo, settings, where);
    } catch (RelockException e) {
      engine.shutdown();
      throw e;
    }
    engine.keeper.start();
    return engine;
  }

  private static ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  public String clientId() {
    return clientId;
  }

  public RelockSettings settings() {
    return settings;
  }

  /** Reads locks for {@link io.relock.Relock#inspect} and {@link io.relock.Relock#list}. */
  public LockInspector inspector() {
    return inspector;
  }

  public void addListener(io.relock.RelockListener listener) {
    listeners.add(java.util.Objects.requireNonNull(listener, "listener"));
  }

  public void removeListener(io.relock.RelockListener listener) {
    listeners.remove(listener);
  }

  public void addObserver(io.relock.LockObserver observer) {
    observers.add(java.util.Objects.requireNonNull(observer, "observer"));
  }

  public void removeObserver(io.relock.LockObserver observer) {
    observers.remove(observer);
  }

  /**
   * Leader candidates of this client that were started: they close first when the client closes,
   * so that a leader hears onRevoked before its lock is released.
   */
  private final java.util.Set<RedisLeaderCandidate> candidates = ConcurrentHashMap.newKeySet();

  /**
   * Counts {@code candidate} among those the client's close closes first; false, and not counted,
   * once the close has begun: it may have looked at its candidates already.
   */
  boolean enlist(RedisLeaderCandidate candidate) {
    candidates.add(candidate);
    // After the add, as close() sets closing before it looks: one of the two sees the other.
    if (closing.get()) {
      candidates.remove(candidate);
      return false;
    }
    return true;
  }

  void discharge(RedisLeaderCandidate candidate) {
    candidates.remove(candidate);
  }

  /** Closes the leader candidates, waiting at most {@link #releaseWait} for them all. */
  private void closeCandidates() {
    List<CompletableFuture<Void>> closing = new ArrayList<>();
    for (RedisLeaderCandidate c : candidates) {
      closing.add(c.closeForClient());
    }
    if (closing.isEmpty()) {
      return;
    }
    try {
      Waiting.awaitUninterruptibly(CompletableFuture.allOf(closing.toArray(new CompletableFuture<?>[0])), releaseWait);
    } catch (TimeoutException e) {
      log.warn("closing: leader candidates did not close within {} ms (a listener still running?); closing anyway",
          releaseWait.toMillis());
    }
  }

  public io.relock.RelockStats stats() {
    return new io.relock.RelockStats(holds.get(), acquiring.get(), keeper.leasesAtRisk());
  }

  /** One round trip to Redis (the server check script); throws {@link RelockException} if it fails. */
  public Duration ping() {
    long began = System.nanoTime();
    Waiting.await(scripts.run(Scripts.SERVER_INFO, List.of(), List.of(), "(ping)"));
    return Duration.ofNanos(System.nanoTime() - began);
  }

  LockKeys keys(String name) {
    return LockKeys.of(settings.keyPrefix(), name);
  }

  boolean isClosed() {
    return closed;
  }

  /** Whether Redis has confirmed the subscription to the client's notification channel. */
  boolean isSubscribed() {
    return subscription.isSubscribed();
  }

  /** Closed and shut down: background retries stop. */
  boolean isTerminated() {
    return timer.isStopped();
  }

  RelockException closedError(String name) {
    return new RelockException("client closed while acquiring lock '" + name + "'");
  }

  // ---- states -------------------------------------------------------------------------------

  /** The state of lock {@code keys} of {@code kind}, created if needed, with one more reference. */
  private LockState ref(LockKind kind, LockKeys keys) {
    return states.compute(kind.stateKey(keys), (k, s) -> {
      LockState state = s != null ? s : new LockState(this, kind, keys);
      state.refs++;
      return state;
    });
  }

  /** Drops one reference; a state with none left is forgotten (and stops hearing its grants). */
  void unref(LockState state) {
    boolean[] dropped = new boolean[1];
    states.computeIfPresent(state.stateKey, (k, s) -> {
      if (s != state || --s.refs > 0) {
        return s;
      }
      dropped[0] = true;
      return null;
    });
    if (dropped[0] && state.hearsGrants.get()) {
      stopHearingGrants(state.keys);
    }
  }

  // ---- sharded grant channels (Redis 7+ Cluster) --------------------------------------------

  /**
   * On a sharded cluster, once one of its acquisitions is queued in Redis, a lock state subscribes
   * to the lock's grant channel, and stays subscribed until the state is dropped (nothing of this
   * client under way for the name). Uncontended acquisitions never subscribe. A grant published
   * before the subscription took hold is found by the re-check that follows its confirmation.
   */
  void hearGrants(LockState state) {
    if (!sharded || !state.hearsGrants.compareAndSet(false, true)) {
      return;
    }
    String ch = grantChannelOf(state.keys);
    CompletableFuture<Void> subscribed;
    synchronized (shardedChannels) {
      if (shardedChannels.merge(ch, 1, Integer::sum) > 1) {
        return;
      }
      subscribed = driver.subscribeSharded(ch, notifications::onNotification);
    }
    subscribed.whenComplete((v, e) -> {
      if (e != null) {
        log.warn("could not subscribe to {}: {}; waiters re-check on their timers", ch, redaction.apply(e.getMessage()));
      }
      LockState now = states.get(state.stateKey);
      if (now != null) {
        now.post(now::reconnected);
      }
    });
  }

  private void stopHearingGrants(LockKeys keys) {
    String ch = grantChannelOf(keys);
    synchronized (shardedChannels) {
      Integer left = shardedChannels.computeIfPresent(ch, (k, n) -> n > 1 ? n - 1 : null);
      if (left == null) {
        driver.unsubscribeSharded(ch).whenComplete((v, e) -> {
          if (e != null) {
            log.debug("could not unsubscribe from {}: {}", ch, redaction.apply(e.getMessage()));
          }
        });
      }
    }
  }

  /** The sharded channel on which handoff.lua publishes grants of this lock (same slot as its keys). */
  static String grantChannelOf(LockKeys keys) {
    return keys.lock() + ":n";
  }

  // ---- acquiring ----------------------------------------------------------------------------

  /**
   * Starts an acquisition. For a thread that already holds the lock through {@code lock()}, the
   * acquisition is a re-entry and completes with the thread's hold.
   *
   * @param threadId the owning thread for {@code lock()} style, or -1 for a lease
   * @param wait null to wait without limit, zero for one attempt
   * @param lease null for the default lease, renewed by the watchdog
   */
  Pending acquire(LockKind kind, String name, long threadId, Duration wait, Duration lease) {
    return acquire(kind, name, threadId, wait, lease, null, true);
  }

  /**
   * As {@link #acquire(LockKind, String, long, Duration, Duration)}, for one lock of a multi-lock,
   * which its {@link LockObserver}s follow as one acquisition, not lock by lock.
   */
  Pending acquireUnobserved(LockKind kind, String name, long threadId, Duration wait, Duration lease) {
    return acquire(kind, name, threadId, wait, lease, null, false);
  }

  /**
   * Starts one zero-wait acquisition of each exclusive lock {@code names}, whose first attempts go
   * to Redis as one call (see {@link JointAttempt}): all of them are taken, or none (unless one of
   * them re-enters a lock its thread holds, or fails first: then they try one by one). Only for
   * locks that {@link #takesJointly} allows.
   *
   * @throws RelockException if the client is closed (no acquisition is then left under way)
   */
  List<Pending> acquireJointly(List<String> names, long threadId, Duration lease) {
    JointAttempt joint = new JointAttempt(calls, names.size());
    List<Pending> started = new ArrayList<>(names.size());
    try {
      for (String name : names) {
        started.add(acquire(LockKind.EXCLUSIVE, name, threadId, Duration.ZERO, lease, joint, false));
      }
    } catch (RuntimeException e) {
      joint.decline(names.size() - started.size());
      for (Pending p : started) {
        p.withdraw(e).thenAccept(won -> {
          if (won != null) {
            abandonLease(won);
          }
        });
      }
      throw e;
    }
    return started;
  }

  /**
   * Whether a multi-lock of {@code names} may take them in one call: they are on one server (any
   * names, but on a Redis Cluster only names whose keys share a slot), and not on a quorum of
   * masters (Redlock), where every lock is a quorum of its own (see {@link QuorumDriver}).
   */
  boolean takesJointly(List<String> names) {
    if (driver instanceof QuorumDriver || names.size() < 2) {
      return false;
    }
    if (!driver.isClustered()) {
      return true;
    }
    int slot = Slots.slotOf(keys(names.get(0)).lock());
    return names.stream().allMatch(n -> Slots.slotOf(keys(n).lock()) == slot);
  }

  private Pending acquire(LockKind kind, String name, long threadId, Duration wait, Duration lease, JointAttempt joint,
      boolean observed) {
    if (closed) {
      throw new RelockException("client is closed; cannot acquire lock '" + name + "'");
    }
    String companion = null;
    if (threadId >= 0 && kind == LockKind.WRITE && threadHold(LockKind.READ, name, threadId) != null
        && threadHold(LockKind.WRITE, name, threadId) == null) {
      throw new IllegalMonitorStateException("the current thread holds the read lock of '" + name + "': taking the"
          + " write lock too would wait for itself; unlock the read lock first (a writer may take the read lock,"
          + " not the reverse)");
    }
    if (threadId >= 0 && kind == LockKind.READ) {
      HeldLease writing = threadHold(LockKind.WRITE, name, threadId);
      companion = writing == null ? null : writing.owner;
    }
    boolean renewed = lease == null;
    if (!renewed && settings.redlockRestartDelay() != null && lease.compareTo(settings.redlockRestartDelay()) > 0) {
      throw new IllegalArgumentException("lease " + lease + " is longer than the Redlock restart delay "
          + settings.redlockRestartDelay() + ": a node that lost its data could rejoin while the lease still runs;"
          + " raise redlockRestartDelay(...) or shorten the lease");
    }
    long leaseMillis = (renewed ? settings.defaultLease() : lease).toMillis();
    LockState state = ref(kind, keys(name));
    // Unique per acquisition, thread style included: a late grant notification or reply can then
    // never be mistaken for a later acquisition's.
    long n = owners.incrementAndGet();
    String owner = threadId >= 0 ? clientId + ":t" + threadId + "." + n : clientId + ":l" + n;
    Observers.Wait watched = observed ? observers.start(kind.observedKind(), name) : null;
    Acquisition a = new Acquisition(this, state, owner, threadId, companion, wait, leaseMillis, renewed, joint, watched);
    acquiring.incrementAndGet();
    a.result.whenComplete((h, e) -> acquiring.decrementAndGet());
    state.post(() -> state.start(a));
    return new Pending(a);
  }

  /** An acquisition under way: its result, and a way to withdraw it. */
  static final class Pending {
    private final Acquisition acquisition;

    Pending(Acquisition acquisition) {
      this.acquisition = acquisition;
    }

    CompletableFuture<HeldLease> result() {
      return acquisition.result;
    }

    /** See {@link Acquisition#withdraw}. */
    CompletableFuture<HeldLease> withdraw(Throwable reason) {
      CompletableFuture<CompletableFuture<HeldLease>> posted = new CompletableFuture<>();
      acquisition.state.post(() -> posted.complete(acquisition.withdraw(reason)));
      return posted.thenCompose(withdrawn -> withdrawn);
    }
  }

  /**
   * Withdraws {@code p} because its caller stopped waiting, and waits (ignoring interrupts, at
   * most twice the command timeout) until Redis holds nothing of it any more. Returns the hold if
   * the acquisition had succeeded before it could be withdrawn.
   */
  HeldLease withdrawAndWait(Pending p, String why) {
    CompletableFuture<HeldLease> f = p.withdraw(new Observers.InterruptedWait(why));
    try {
      return Waiting.awaitUninterruptibly(f, settings.commandTimeout().multipliedBy(2));
    } catch (TimeoutException e) {
      return null; // still cleaning up; it goes on in the background
    }
  }

  /** Runs {@code task} on the timer thread after {@code delayNanos}; null once the client is closing. */
  ScheduledFuture<?> schedule(long delayNanos, Runnable task) {
    return timer.schedule(delayNanos, task);
  }

  /** Runs {@code r} on the client's event thread, never on a Redis I/O thread. */
  void onEventThread(Runnable r) {
    events.execute(r);
  }

  // ---- reconnects ---------------------------------------------------------------------------

  /** The driver re-established a connection: waiters and retries act now, not at their timers. */
  private void reconnected() {
    if (timer.isStopped()) {
      return;
    }
    log.info("connection to Redis re-established; re-checking waiters and renewing leases");
    for (LockState state : states.values()) {
      state.post(state::reconnected);
    }
    keeper.renewNow();
  }

  // ---- releasing ----------------------------------------------------------------------------

  /** {@code unlock()} by the calling thread. */
  void unlock(LockKind kind, String name, long threadId) {
    LockState state = states.get(kind.stateKey(keys(name)));
    if (state == null || !state.threadHolds.containsKey(threadId)) {
      if (closed) {
        throw new RelockException("client is closed; it released lock '" + name + "' when it closed");
      }
      throw new IllegalMonitorStateException("the current thread does not hold lock '" + name + "'");
    }
    CompletableFuture<Release.Outcome> done = new CompletableFuture<>();
    state.post(() -> state.unlock(threadId, done));
    keeper.changes().finishRelease(done, name);
  }

  /** Releases a lease nobody will close (its acquisition was cancelled as it completed). */
  void abandonLease(HeldLease h) {
    h.state.post(() -> h.state.close(h, new CompletableFuture<>()));
  }

  // ---- inspection ---------------------------------------------------------------------------

  /** Whether any owner holds lock {@code name} of {@code kind} (for a read lock: any reader). */
  boolean isLocked(LockKind kind, String name) {
    return calls.isLocked(kind, name);
  }

  /** Ends every hold of lock {@code name} of {@code kind}; whether there was one. */
  boolean forceUnlock(LockKind kind, String name) {
    return calls.forceUnlock(kind, name);
  }

  /** Free permits of semaphore {@code name}, declared with {@code permits}, as Redis counts them now. */
  int availablePermits(String name, int permits) {
    return calls.availablePermits(name, permits);
  }

  /**
   * Refuses, naming the reason, a kind that the topology cannot give: Redlock runs exclusive locks
   * only (a quorum of independent masters has no shared holder indexes or queues to agree on; see
   * {@link QuorumDriver}).
   */
  void requireSharedKinds(String what) {
    if (driver instanceof QuorumDriver) {
      throw new UnsupportedOperationException(what + " needs one Redis, a Sentinel-managed primary or a Redis"
          + " Cluster: on Redlock masters relock offers exclusive locks and multi-locks only (a semaphore's holders and"
          + " a read-write lock's readers would need a quorum protocol of their own)");
    }
  }

  int holdCount(LockKind kind, String name, long threadId) {
    HeldLease h = threadHold(kind, name, threadId);
    return h == null ? 0 : h.threadHolds;
  }

  boolean isHeldBy(LockKind kind, String name, long threadId) {
    HeldLease h = threadHold(kind, name, threadId);
    return h != null && h.isValid();
  }

  HeldLease threadHold(LockKind kind, String name, long threadId) {
    LockState state = states.get(kind.stateKey(keys(name)));
    return state == null ? null : state.threadHolds.get(threadId);
  }

  // ---- closing ------------------------------------------------------------------------------

  /**
   * Fails pending acquisitions with {@link RelockException} (withdrawing them from Redis), releases
   * held locks, stops the watchdog. Waits for Redis to confirm for about twice the command timeout
   * at most, then returns; what Redis has not confirmed by then goes on being tried in the
   * background (the driver stays open for it) until it is confirmed or the longest lease in play
   * has run out. Then stops timers and closes the driver.
   */
  public void close() {
    if (!closing.compareAndSet(false, true)) {
      return;
    }
    closeCandidates();
    closed = true;
    keeper.stop();
    List<CompletableFuture<Void>> pending = new ArrayList<>();
    java.util.concurrent.atomic.LongAccumulator longestLease = new java.util.concurrent.atomic.LongAccumulator(Math::max, 0);
    for (LockState state : states.values()) {
      CompletableFuture<Void> done = new CompletableFuture<>();
      state.post(() -> state.closeAll(longestLease).whenComplete((v, e) -> done.complete(null)));
      pending.add(done);
    }
    CompletableFuture<Void> all = CompletableFuture.allOf(pending.toArray(new CompletableFuture<?>[0]));
    try {
      Waiting.awaitUninterruptibly(all, releaseWait);
    } catch (TimeoutException | RuntimeException e) {
      // Every state has run closeAll by now (mailbox tasks do not block); the releases also give
      // up by themselves at their leases' end, and withdrawals once Redis confirms them.
      long boundMillis = releaseWait.toMillis() + longestLease.get();
      log.warn("closing: Redis has not confirmed every release within {} ms; trying on in the background for up to"
          + " {} ms, after which what is left expires by its lease", releaseWait.toMillis(), boundMillis);
      CompletableFuture<Void> background = all.completeOnTimeout(null, boundMillis, TimeUnit.MILLISECONDS);
      // Not on the thread that completes it (a driver's I/O thread may): closing the driver there can deadlock.
      background.whenComplete((v, x) -> daemon("relock-close-" + clientId.substring(0, 8)).newThread(this::shutdown).start());
      return;
    }
    shutdown();
  }

  private void shutdown() {
    closed = true;
    timer.stop();
    events.shutdown();
    try {
      driver.close();
    } catch (RuntimeException e) {
      log.debug("closing the driver failed", e);
    }
  }
}

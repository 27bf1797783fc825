package io.relock.internal;

import io.relock.LockLostException;
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
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine behind one {@link io.relock.Relock} client: owner ids, the per-name {@link
 * LockState}s, the notification listener, the watchdog, lease expiry checks, and the calls that
 * callers block on. Public only so that the API package can reach it; not part of the API.
 *
 * <p>Each lock name's local state is owned by its {@link LockState} and changed only by events
 * posted to it; this class routes events (calls from the API, grant notifications, reconnects)
 * and keeps what belongs to the whole client.
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
  /** What acquire.lua stores as the channel to notify: the client's, or {@link #SHARDED_CHANNEL}. */
  private final String grantChannel;
  /** Sharded grant channels subscribed, with how many lock states want each. */
  private final Map<String, Integer> shardedChannels = new HashMap<>();
  /**
   * How a notice that another client freed a lock held by one of this client's owners begins:
   * {@code "lost <owner> <lock key>"}; see force_unlock.lua.
   */
  private static final String LOST = "lost ";
  /** How a notification that a lock was freed (not handed over) begins; see redlock_release.lua. */
  private static final String FREED = "free ";
  /** Tells handoff.lua to publish on the lock's own channel ({@code <lock key>:n}) with SPUBLISH. */
  static final String SHARDED_CHANNEL = "!";
  private final ScheduledThreadPoolExecutor scheduler;
  private final ExecutorService events;
  private final WatchdogRenewer watchdog;
  private final LockInspector inspector;
  /** The state of every name this client has something under way for, by lock key. */
  private final ConcurrentHashMap<String, LockState> states = new ConcurrentHashMap<>();
  /** Numbers every acquisition's owner id, so no two acquisitions ever share one. */
  private final AtomicLong owners = new AtomicLong();
  private final AtomicBoolean closing = new AtomicBoolean();
  /** The fence retention in milliseconds, as the scripts take it. */
  private final String fenceRetention;
  final Listeners listeners = new Listeners();
  final Observers observers = new Observers();
  /** See {@link io.relock.RelockStats}: holds from acquisition until release starts, acquisitions under way. */
  final java.util.concurrent.atomic.AtomicInteger holds = new java.util.concurrent.atomic.AtomicInteger();
  private final java.util.concurrent.atomic.AtomicInteger acquiring = new java.util.concurrent.atomic.AtomicInteger();
  private volatile boolean closed;
  private volatile boolean terminated;
  /** The subscription to {@link #channel}, which a slow Redis may confirm after start returned. */
  private NotificationSubscription notifications;

  /** Hides passwords in the text of the driver's exceptions before it reaches a message or a log line. */
  private final UnaryOperator<String> redaction;

  private LockEngine(RedisDriver driver, RelockSettings settings, String where, UnaryOperator<String> redaction) {
    this.driver = driver;
    this.redaction = redaction;
    this.settings = settings;
    this.releaseWait = settings.commandTimeout().multipliedBy(2).plusSeconds(1);
    this.scripts = new ScriptRunner(driver, settings.commandTimeout(), where, redaction, listeners);
    this.fenceRetention = Long.toString(settings.fenceRetention().toMillis());
    byte[] id = new byte[16];
    RANDOM.nextBytes(id);
    this.clientId = HexFormat.of().formatHex(id);
    this.channel = settings.keyPrefix() + "client:" + clientId;
    this.ownerPrefix = clientId + ":";
    String tag = clientId.substring(0, 8);
    this.scheduler = new ScheduledThreadPoolExecutor(1, daemon("relock-timer-" + tag));
    this.scheduler.setRemoveOnCancelPolicy(true);
    this.events = Executors.newSingleThreadExecutor(daemon("relock-events-" + tag));
    this.sharded = driver.hasShardedPubSub();
    this.grantChannel = sharded ? SHARDED_CHANNEL : channel;
    this.watchdog = new WatchdogRenewer(scripts, scheduler, settings.defaultLease().toMillis(),
        extendedByCallTo(0, settings.defaultLease().toMillis()), this::scheduleExpiryCheck, driver.isClustered(),
        listeners, driver::refreshTopology);
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
    NotificationSubscription notifications = new NotificationSubscription(engine, driver, engine.channel,
        engine::onNotification, settings.connectTimeout(), engine::reconnected, where, redaction);
    engine.notifications = notifications;
    try {
      if (engine.sharded) {
        // Grants come on each lock's own channel (see hearGrants); the client's channel carries only
        // the rare notices of a forced unlock, broadcast cluster-wide. Without it, a renewal finds
        // such a loss instead: not worth failing or delaying the client for.
        notifications.subscribeInBackground();
      } else {
        notifications.subscribe(); // fails only if Redis refused it; a slow Redis is waited out in the background
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
    engine.watchdog.start();
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
      awaitUninterruptibly(CompletableFuture.allOf(closing.toArray(new CompletableFuture<?>[0])), releaseWait);
    } catch (TimeoutException e) {
      log.warn("closing: leader candidates did not close within {} ms (a listener still running?); closing anyway",
          releaseWait.toMillis());
    }
  }

  public io.relock.RelockStats stats() {
    return new io.relock.RelockStats(holds.get(), acquiring.get(), watchdog.leasesAtRisk());
  }

  /** One round trip to Redis (the server check script); throws {@link RelockException} if it fails. */
  public Duration ping() {
    long began = System.nanoTime();
    await(scripts.run(Scripts.SERVER_INFO, List.of(), List.of(), "(ping)"));
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
    return notifications.isSubscribed();
  }

  /** Closed and shut down: background retries stop. */
  boolean isTerminated() {
    return terminated;
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
      subscribed = driver.subscribeSharded(ch, this::onNotification);
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

  /** The channel grant notifications for this client go to, as the scripts name it in a queue entry. */
  String grantChannel() {
    return grantChannel;
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
    JointAttempt joint = new JointAttempt(this, names.size());
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
   * names, but on a Redis Cluster only names whose keys share a slot), and not on Redlock masters,
   * where every lock is a quorum of its own.
   */
  boolean takesJointly(List<String> names) {
    if (driver instanceof RedlockDriver || names.size() < 2) {
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
      return awaitUninterruptibly(f, settings.commandTimeout().multipliedBy(2));
    } catch (TimeoutException e) {
      return null; // still cleaning up; it goes on in the background
    }
  }

  /**
   * Runs {@code acquire.lua}. With replica acknowledgements on, every mode that may find the
   * caller holding the lock is followed by {@code WAIT}, and the reply carries the number of
   * replicas that acknowledged as its fifth element ({@link #ACKS_INDEX}). A withdrawal
   * ({@code abandon}) then goes the same way, with {@code WAIT 0} (which returns at once), so that
   * it reaches Redis after every earlier call of its acquisition: those travel on the driver's
   * connection for acknowledged calls, where one that timed out on the client may still be
   * queued behind other calls' WAITs, and a withdrawal sent on another connection could overtake
   * it and leave the lock it then takes held for nobody.
   */
  CompletableFuture<List<Object>> runAcquire(Acquisition a, String owner, String mode, long entryMillis) {
    boolean reentry = "reenter".equals(mode);
    boolean acked = settings.replicaAcks() > 0 && !reentry && !"abandon".equals(mode);
    LockKind kind = a.state.kind;
    List<String> args = kind.acquireArgs(owner, a.leaseMillis, mode, fenceRetention, entryMillis, claimMillis(), acked,
        grantChannel, a.companion);
    if (settings.replicaAcks() == 0 || reentry) {
      return scripts.run(kind.acquireScript(), a.state.scriptKeys, args, a.state.keys.name());
    }
    return scripts.runReplicated(kind.acquireScript(), a.state.scriptKeys, args, a.state.keys.name(),
        acked ? settings.replicaAcks() : 0, settings.replicaAckTimeout()).thenApply(r -> {
          List<Object> reply = new ArrayList<>(r.reply());
          while (reply.size() < ACKS_INDEX) {
            reply.add(0L);
          }
          reply.add(r.acknowledged());
          return reply;
        });
  }

  /**
   * Runs {@code multilock_acquire.lua} for the first attempts of {@code members} (see {@link
   * JointAttempt}), followed by {@code WAIT} when replica acknowledgements are on. Completes with
   * each member's part of the reply, shaped as {@link #runAcquire} shapes a reply to {@code try}.
   */
  CompletableFuture<List<List<Object>>> runJointly(List<Acquisition> members) {
    List<String> keys = new ArrayList<>(members.size());
    List<String> args = new ArrayList<>(members.size() + 2);
    args.add(Long.toString(members.get(0).leaseMillis));
    args.add(fenceRetention);
    for (Acquisition a : members) {
      keys.add(a.state.keys.lock());
      args.add(a.owner);
    }
    String what = String.join(",", members.stream().map(a -> a.state.keys.name()).toList());
    CompletableFuture<List<Object>> call;
    if (settings.replicaAcks() == 0) {
      call = scripts.run(Scripts.MULTILOCK_ACQUIRE, keys, args, what);
    } else {
      call = scripts.runReplicated(Scripts.MULTILOCK_ACQUIRE, keys, args, what, settings.replicaAcks(),
          settings.replicaAckTimeout()).thenApply(r -> {
            List<Object> reply = new ArrayList<>(r.reply());
            reply.add(r.acknowledged());
            return reply;
          });
    }
    return call.thenApply(reply -> {
      if (reply.size() < 3 * members.size()) {
        throw new ScriptRunner.UnexpectedReplyException("unexpected reply " + reply + " from multilock_acquire.lua for"
            + " locks '" + what + "'", null);
      }
      List<List<Object>> parts = new ArrayList<>(members.size());
      for (int i = 0; i < members.size(); i++) {
        List<Object> part = new ArrayList<>(reply.subList(3 * i, 3 * i + 3));
        if (settings.replicaAcks() > 0) {
          while (part.size() < ACKS_INDEX) {
            part.add(0L);
          }
          part.add(reply.get(reply.size() - 1));
        }
        parts.add(part);
      }
      return parts;
    });
  }

  /**
   * Renews {@code owner}'s hold of {@code state}'s lock for {@code leaseMillis}, as the watchdog
   * does (renew.lua for one hold): true if the owner still held it. For an acquisition that must
   * confirm a grant before it counts (see Acquisition#confirm), and a hand-over's confirmation.
   */
  CompletableFuture<Boolean> renewHold(LockState state, String owner, long leaseMillis) {
    List<String> keys = List.of(state.kind.holdKey(state.keys, owner));
    List<String> args = ScriptCalls.renewArgs(leaseMillis, WatchdogRenewer.BUDGET_MICROS, List.of(owner));
    return scripts.run(Scripts.RENEW, keys, args, state.keys.name())
        .thenApply(reply -> ScriptCalls.Renewed.of(reply).held()[0]);
  }

  /**
   * The latest Redis may hold a lock that a call sent at {@code sentNanos} gives or extends for
   * {@code leaseMillis}, if the client cannot tell when (or whether) it ran: its reply is on its
   * way, or was lost. The call reaches Redis within twice the command timeout (one send, and one
   * more after NOSCRIPT), and its lease then runs by Redis's clock: plus the drift allowance.
   */
  long extendedByCallTo(long sentNanos, long leaseMillis) {
    return sentNanos + 2 * settings.commandTimeout().toNanos() + TimeUnit.MILLISECONDS.toNanos(leaseMillis)
        + settings.driftNanosForMillis(leaseMillis);
  }

  /** Where {@link #runAcquire} puts the replicas' acknowledgements in a reply. */
  static final int ACKS_INDEX = 4;

  /** Whether acquisitions wait for replicas to acknowledge them. */
  boolean waitsForReplicas() {
    return settings.replicaAcks() > 0;
  }

  /**
   * Runs the release script of {@code h}'s kind.
   *
   * @param careful whether it may well find another owner's hold (see {@link ScriptCalls#release})
   * @param follows whether {@code successor} is a follower, which has not asked Redis (see
   *     release.lua), rather than a waiter queued there
   */
  CompletableFuture<List<Object>> runRelease(HeldLease h, boolean all, boolean careful, Acquisition successor,
      boolean ahead, boolean follows) {
    LockKind kind = h.state.kind;
    String to = successor == null ? null : follows ? "=" + successor.owner : successor.owner;
    List<String> args = kind.releaseArgs(h.owner, all, careful, fenceRetention, to, ahead,
        follows ? successor.followerArgument() : null);
    return scripts.run(kind.releaseScript(), h.state.scriptKeys, args, h.lockName());
  }

  /**
   * How long a lock handed to a waiter first lasts before the waiter confirms it (a third of the
   * way in): two recheck intervals. A waiter that died while queued thus delays the others by at
   * most its queue entry's lifetime plus this, not a whole lease.
   */
  long claimMillis() {
    return 2 * settings.recheckInterval().toMillis();
  }

  /**
   * How much of its claim time a handed-over grant must have left to count from when it is known
   * to have started: a third of it, the time its confirmation (see {@link #acquired}) is given
   * before it is due. With less, the grant is renewed first (see Acquisition#arrivedTooLate).
   */
  long claimMarginNanos(long leaseMillis) {
    return TimeUnit.MILLISECONDS.toNanos(Math.min(leaseMillis, claimMillis())) / 3;
  }

  /**
   * Until when a lock handed to a waiter is surely still its own, counting from {@code
   * validFromNanos}: the claim time, or the lease if that is shorter, less the drift allowance.
   */
  long claimEndsNanos(long leaseMillis, long validFromNanos) {
    long first = Math.min(leaseMillis, claimMillis());
    return validFromNanos + TimeUnit.MILLISECONDS.toNanos(first) - settings.driftNanosForMillis(first);
  }

  /**
   * Until when a grant counted from {@code validFromNanos} is surely still its owner's: the lease
   * less the drift allowance, or for a lock handed to a waiter the claim time (see {@link
   * #claimEndsNanos}).
   */
  long grantEndsNanos(long leaseMillis, long validFromNanos, boolean handedOff) {
    return handedOff ? claimEndsNanos(leaseMillis, validFromNanos)
        : validFromNanos + TimeUnit.MILLISECONDS.toNanos(leaseMillis) - settings.driftNanosForMillis(leaseMillis);
  }

  /** Turns a successful acquisition into a hold and starts keeping it alive (or watching it). */
  HeldLease acquired(Acquisition a, long token, long serial, long validFromNanos, boolean handedOff) {
    long drift = settings.driftNanosForMillis(a.leaseMillis);
    boolean claimed = handedOff && a.leaseMillis > claimMillis();
    HeldLease h = new HeldLease(a.state, a.owner, token, serial, TimeUnit.MILLISECONDS.toNanos(a.leaseMillis), drift, a.renewed, a.threadId,
        grantEndsNanos(a.leaseMillis, validFromNanos, handedOff));
    // Redis began this hold no later than now, for the claim time or the lease; and a call of the
    // acquisition whose reply was lost may have taken or renewed it for a whole lease (a 'try'
    // whose reply was lost is answered "held" when sent again, and then counts a claim time only).
    long firstMillis = claimed ? claimMillis() : a.leaseMillis;
    h.mayBeExtendedTo(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(firstMillis)
        + settings.driftNanosForMillis(firstMillis));
    h.mayBeExtendedTo(a.extendedTo());
    if (h.renewed) {
      watchdog.add(h);
    }
    if (claimed) {
      h.confirmation = new CompletableFuture<>();
      long confirmAt = validFromNanos + TimeUnit.MILLISECONDS.toNanos(claimMillis()) / 3;
      schedule(confirmAt - System.nanoTime(), () -> confirmHandoff(h, validFromNanos, 0));
    }
    if (!h.renewed || claimed) {
      // Renewed leases get their expiry check from the watchdog, only when a deadline comes near.
      scheduleExpiryCheck(h);
    }
    return h;
  }

  /**
   * A handed-over lock first lasts only the claim time; if its new owner still holds it a third of
   * the way in, extend it to the lease the owner asked for. Short holds never need this call. Redis
   * unreachable: tried again until the claim would run out.
   */
  private void confirmHandoff(HeldLease h, long grantedNanos, int attempt) {
    long sent = System.nanoTime();
    long leaseMillis = TimeUnit.NANOSECONDS.toMillis(h.leaseNanos);
    // Before the closed check, which a release makes after closing the hold and before reading
    // this: either the release counts this call, or this call is not sent.
    h.mayBeExtendedTo(extendedByCallTo(sent, leaseMillis));
    if (h.closed.get() || h.lostReason() != null) {
      confirmed(h);
      return;
    }
    long px = h.renewed ? leaseMillis : Math.max(1, leaseMillis - TimeUnit.NANOSECONDS.toMillis(sent - grantedNanos));
    renewHold(h.state, h.owner, px).whenComplete((held, error) -> {
      if (error != null) {
        long left = h.validUntilNanos() - System.nanoTime();
        if (ScriptRunner.isTransient(error) && left > 0) {
          schedule(Math.min(Retry.backoffNanos(attempt), left / 2), () -> confirmHandoff(h, grantedNanos, attempt + 1));
        } else {
          log.warn("could not confirm handed-over lock '{}': {}", h.lockName(), error.getMessage());
          confirmed(h);
        }
      } else if (held) {
        log.trace("{} confirmed handoff", h.owner);
        h.extendTo(h.renewed ? sent + h.leaseNanos - h.driftNanos : grantedNanos + h.leaseNanos - h.driftNanos);
        confirmed(h);
      } else {
        h.lost("the lock handed over to it expired or was taken before it was confirmed");
        confirmed(h);
      }
    });
  }

  /** A hand-over's confirmation is over, however it went: changes of the lease may go ahead. */
  private static void confirmed(HeldLease h) {
    CompletableFuture<Void> c = h.confirmation;
    if (c != null) {
      c.complete(null);
    }
  }

  /** Runs {@code task} on the timer thread after {@code delayNanos}; null once the client is closing. */
  ScheduledFuture<?> schedule(long delayNanos, Runnable task) {
    try {
      return scheduler.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException closing) {
      return null;
    }
  }

  /** Arms a check at {@code h}'s local deadline that reports the lease lost if it is not renewed. */
  void scheduleExpiryCheck(HeldLease h) {
    h.expiryCheck = schedule(h.validUntilNanos() - System.nanoTime(), () -> checkExpiry(h));
  }

  private void checkExpiry(HeldLease h) {
    if (h.closed.get() || h.lostReason() != null) {
      return;
    }
    if (System.nanoTime() - h.validUntilNanos() >= 0) {
      h.lost(expiryReason(h));
    } else if (h.renewed && h.validUntilNanos() - System.nanoTime() > watchdog.tickNanos()) {
      h.expiryCheck = null; // renewed meanwhile: the watchdog re-arms the check if renewals stall
    } else {
      scheduleExpiryCheck(h);
    }
  }

  String expiryReason(HeldLease h) {
    if (h.extendedMillis > 0) {
      return "its lease, last extended for " + Duration.ofMillis(h.extendedMillis) + ", ran out";
    }
    return h.renewed
        ? "the lease ran out before a renewal succeeded (Redis unreachable or the process paused)"
        : "its lease of " + Duration.ofNanos(h.leaseNanos) + " ran out";
  }

  /** Stops renewing and watching a hold that is being released. */
  void stopTracking(HeldLease h) {
    watchdog.remove(h);
    ScheduledFuture<?> check = h.expiryCheck;
    if (check != null) {
      check.cancel(false);
    }
  }

  /** Called once when a lease is found lost: stop renewing it. */
  void leaseLost(HeldLease h) {
    watchdog.remove(h);
    log.warn("lease on lock '{}' (token {}) lost: {}", h.lockName(), h.token, h.lostReason());
    String reason = h.lostReason();
    listeners.emit(l -> l.leaseLost(h.lockName(), reason));
  }

  /** Runs a listener on the calling thread; a throwing listener is logged. */
  void runListenerHere(String lockName, Runnable listener) {
    try {
      listener.run();
    } catch (RuntimeException | Error e) {
      log.error("onLost listener of lock '{}' threw; ignored", lockName, e);
    }
  }

  /** Runs a listener on the client's event thread. */
  void runListener(String lockName, Runnable listener) {
    try {
      events.execute(() -> runListenerHere(lockName, listener));
    } catch (RejectedExecutionException closing) {
      log.warn("client closed before the onLost listener of lock '{}' could run", lockName);
    }
  }

  /** Runs {@code r} on the client's event thread, never on a Redis I/O thread. */
  void onEventThread(Runnable r) {
    events.execute(r);
  }

  // ---- notifications and reconnects ---------------------------------------------------------

  /**
   * A grant: {@code "<token> <owner> <state key>"}, published by the releasing script (the state key
   * is the lock key, with a suffix for the shared kinds: see {@link LockKind#stateKey}); or, from
   * a Redlock node, {@code "free <lock key>"}: the lock was freed there, waiters try again.
   */
  private void onNotification(String message) {
    if (message.startsWith(LOST)) {
      int space = message.indexOf(' ', LOST.length());
      String owner = space < 0 ? "" : message.substring(LOST.length(), space);
      LockState state = owner.startsWith(ownerPrefix) ? states.get(message.substring(space + 1)) : null;
      if (state != null) {
        state.post(() -> state.lostNotice(owner));
      }
      return;
    }
    if (message.startsWith(FREED)) {
      LockState state = states.get(message.substring(FREED.length()));
      if (state != null) {
        state.post(state::freed);
      }
      return;
    }
    int first = message.indexOf(' ');
    int second = message.indexOf(' ', first + 1);
    long serial;
    long token;
    try {
      // "<serial>" where the grant's serial is its token, else "<serial>:<token>" (a read lock's)
      String head = message.substring(0, Math.max(0, first));
      int colon = head.indexOf(':');
      serial = Long.parseLong(colon < 0 ? head : head.substring(0, colon));
      token = colon < 0 ? serial : Long.parseLong(head.substring(colon + 1));
    } catch (NumberFormatException e) {
      serial = -1;
      token = -1;
    }
    if (first < 0 || second < 0 || token < 0 || serial < 0) {
      log.warn("ignoring malformed notification '{}'", message);
      return;
    }
    String owner = message.substring(first + 1, second);
    if (log.isTraceEnabled()) {
      log.trace("{} notified {}", owner, message);
    }
    String stateKey = message.substring(second + 1);
    if (!owner.startsWith(ownerPrefix)) {
      // Another client's grant: a lock's sharded channel carries the grants of every client that
      // waits for it. Never treat it as an orphan of ours (withdrawing it would free their lock).
      return;
    }
    LockState state = states.get(stateKey);
    if (state != null) {
      long grantedSerial = serial;
      long granted = token;
      state.post(() -> state.granted(owner, grantedSerial, granted));
    } else if (!closed) {
      String lockKey = LockKind.lockKeyOf(stateKey);
      withdrawOrphan(LockKind.ofStateKey(stateKey), LockKeys.ofLockKey(lockKey, lockKey), owner);
    }
  }

  /**
   * Withdraws an owner id this client no longer serves: releases the lock if it was granted or
   * passed to it, else drops its queue entry ({@code abandon}). Safe whenever in doubt: owner ids
   * are unique, so this never touches anyone else's hold. Tried again while Redis is unreachable,
   * for up to a lease.
   */
  void withdrawOrphan(LockKind kind, LockKeys keys, String owner) {
    long giveUpAt = System.nanoTime() + settings.defaultLease().toNanos();
    withdrawOrphan(kind, keys, owner, giveUpAt, 0);
  }

  private void withdrawOrphan(LockKind kind, LockKeys keys, String owner, long giveUpAt, int attempt) {
    if (log.isTraceEnabled()) {
      log.trace("{} withdraw orphan of {}", owner, keys.name());
    }
    // Lease, entry lifetime and claim are not read by 'abandon'.
    List<String> args = kind.acquireArgs(owner, 1, "abandon", fenceRetention, 1, 1, false, grantChannel, null);
    scripts.run(kind.acquireScript(), ScriptCalls.keys(keys), args, keys.name())
        .whenComplete((r, e) -> {
          if (e == null) {
            return;
          }
          if (ScriptRunner.isTransient(e) && !terminated && System.nanoTime() - giveUpAt < 0) {
            schedule(Retry.backoffNanos(attempt), () -> withdrawOrphan(kind, keys, owner, giveUpAt, attempt + 1));
          } else {
            log.warn("could not withdraw orphaned owner of lock '{}': {}", keys.name(), e.getMessage());
          }
        });
  }

  /** The driver re-established a connection: waiters and retries act now, not at their timers. */
  private void reconnected() {
    if (terminated) {
      return;
    }
    log.info("connection to Redis re-established; re-checking waiters and renewing leases");
    for (LockState state : states.values()) {
      state.post(state::reconnected);
    }
    watchdog.renewNow();
  }

  // ---- releasing ----------------------------------------------------------------------------

  /** {@link HeldLease#close()}: releases a lease, once, from any thread. */
  void close(HeldLease h) {
    finishRelease(startClose(h), h.lockName());
  }

  /**
   * Starts releasing a lease without waiting: several leases' releases then travel together (a
   * multi-lock's), each finished with {@link #finishRelease}.
   */
  CompletableFuture<Release.Outcome> startClose(HeldLease h) {
    CompletableFuture<Release.Outcome> done = new CompletableFuture<>();
    h.state.post(() -> h.state.close(h, done));
    return done;
  }


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
    finishRelease(done, name);
  }

  /** Waits for a release and throws what its caller must hear: a loss, or Redis failing. */
  void finishRelease(CompletableFuture<Release.Outcome> done, String name) {
    Release.Outcome outcome;
    try {
      outcome = awaitUninterruptibly(done, releaseWait);
    } catch (TimeoutException e) {
      throw new RelockException("Redis did not confirm the release of lock '" + name + "' in time", e);
    }
    if (outcome == null) {
      return; // closed before: closing again does nothing
    }
    // A loss already reported to the holder keeps the reason it was reported with.
    String lost = outcome.hold().lostReason() != null ? outcome.hold().lostReason() : outcome.lostReason();
    if (lost != null) {
      outcome.hold().lostOnClose(lost);
      throw new LockLostException(name, lost);
    }
  }

  /** Releases a lease nobody will close (its acquisition was cancelled as it completed). */
  void abandonLease(HeldLease h) {
    h.state.post(() -> h.state.close(h, new CompletableFuture<>()));
  }

  // ---- changing a lease: extend and closeAfter ----------------------------------------------

  /**
   * {@link HeldLease#extend}: sets the hold's time to live in Redis (extend.lua), owner-checked,
   * and its local deadline with it. The hold's state is not involved: nothing but the deadline
   * changes, and that belongs to the hold (see {@link HeldLease#beginLeaseChange}).
   */
  void extend(HeldLease h, Duration lease) {
    Checks.lease("lease", lease);
    requireWithinRestartDelay("lease", lease, h.lockName());
    long millis = lease.toMillis();
    java.util.concurrent.locks.ReentrantLock turn = h.leaseChanges();
    turn.lock();
    try {
      awaitConfirmation(h);
      if (h.closed.get()) {
        throw new IllegalStateException("the lease on lock '" + h.lockName() + "' (token " + h.token
            + ") is closed; it cannot be extended");
      }
      if (!h.isValid()) {
        throw new LockLostException(h.lockName(), h.lostReason());
      }
      // A watchdog-renewed lease becomes a fixed one: the watchdog's next round would undo the
      // extension (renew.lua sets the default lease), and a shorter one could run out before it.
      boolean wasRenewed = h.renewed;
      watchdog.remove(h);
      long sent = System.nanoTime();
      long until = sent + TimeUnit.MILLISECONDS.toNanos(millis) - settings.driftNanosForMillis(millis);
      // A longer extension whose answer is lost may still have run: a release keeps trying that long.
      h.mayBeExtendedTo(extendedByCallTo(sent, millis));
      h.beginLeaseChange(until);
      boolean held;
      try {
        held = (Long) await(runExtend(h, millis)).get(0) == 1L;
      } catch (RuntimeException e) {
        h.endLeaseChange(false, 0);
        if (wasRenewed && !h.closed.get() && h.lostReason() == null) {
          watchdog.add(h); // as it was: renewed on, whatever Redis ran
        }
        rearmExpiryCheck(h);
        throw e;
      }
      if (!held) {
        h.endLeaseChange(false, 0);
        h.lost("an extension found the lock expired or held by another owner");
        throw new LockLostException(h.lockName(), h.lostReason());
      }
      h.renewed = false;
      h.extendedMillis = millis;
      h.endLeaseChange(true, until);
      rearmExpiryCheck(h);
    } finally {
      turn.unlock();
    }
  }

  /**
   * {@link HeldLease#closeAfter}: closes the lease in the client (see LockState#closeAfter) and has
   * Redis expire its hold {@code keep} from now (extend.lua); {@code keep} zero or negative is a
   * plain close. A lease already lost or past its deadline is closed as {@link #close} does, which
   * reads the lock before it takes anything and reports the loss.
   */
  void closeAfter(HeldLease h, Duration keep) {
    java.util.Objects.requireNonNull(keep, "keep must not be null");
    if (keep.isZero() || keep.isNegative()) {
      close(h);
      return;
    }
    requireWithinRestartDelay("keep", keep, h.lockName());
    long millis = Math.max(1, keep.toMillis());
    java.util.concurrent.locks.ReentrantLock turn = h.leaseChanges();
    turn.lock();
    try {
      awaitConfirmation(h);
      if (h.closed.get()) {
        return;
      }
      if (!h.isValid()) {
        close(h);
        return;
      }
      CompletableFuture<Release.Outcome> done = new CompletableFuture<>();
      h.state.post(() -> h.state.closeAfter(h, millis, done));
      finishRelease(done, h.lockName());
    } finally {
      turn.unlock();
    }
  }

  /** Runs extend.lua for {@code h}: {1} if its owner still held it and it now expires {@code millis} from now. */
  CompletableFuture<List<Object>> runExtend(HeldLease h, long millis) {
    return scripts.run(Scripts.EXTEND, List.of(h.holdKey), List.of(h.owner, Long.toString(millis)), h.lockName());
  }

  /** On Redlock, no hold may outlast the restart delay (see {@link #acquire}). */
  private void requireWithinRestartDelay(String what, Duration d, String name) {
    if (settings.redlockRestartDelay() != null && d.compareTo(settings.redlockRestartDelay()) > 0) {
      throw new IllegalArgumentException(what + " " + d + " for lock '" + name + "' is longer than the Redlock restart"
          + " delay " + settings.redlockRestartDelay() + ": a node that lost its data could rejoin while the lock is"
          + " still held; raise redlockRestartDelay(...) or ask for less");
    }
  }

  /**
   * Waits (at most the release wait) for a hand-over's confirmation under way: its write must not
   * land after a change of the lease and undo it.
   */
  private void awaitConfirmation(HeldLease h) {
    CompletableFuture<Void> c = h.confirmation;
    if (c != null && !c.isDone()) {
      try {
        awaitUninterruptibly(c, releaseWait);
      } catch (TimeoutException e) {
        log.debug("lock '{}': changing the lease without its hand-over's confirmation, which is late", h.lockName());
      }
    }
  }

  /** The deadline of {@code h} moved, sooner perhaps: its expiry check follows. */
  private void rearmExpiryCheck(HeldLease h) {
    ScheduledFuture<?> check = h.expiryCheck;
    if (check != null) {
      check.cancel(false);
    }
    if (!h.closed.get() && h.lostReason() == null) {
      scheduleExpiryCheck(h);
    }
  }

  // ---- inspection ---------------------------------------------------------------------------

  /** What every client's notification channel starts with: force_unlock.lua adds a client id. */
  private String clientChannelPrefix() {
    return settings.keyPrefix() + "client:";
  }

  /**
   * A notice that another client freed {@code h}'s lock (a forced unlock): reads at once, without
   * changing anything, who holds the lock in Redis, and reports the hold lost if it is not {@code
   * h}'s owner. The notice itself is not trusted (a late or stray one may name a live hold), and
   * the read changes nothing, so it cannot race the hold's renewals or its hand-over confirmation.
   * A renewal (renewed leases) or the expiry check (fixed leases) still finds a loss whose notice
   * was lost. On Redlock each master sends its notice: one that comes while a read is under way
   * makes it read once more, so a read that ran before the forced unlock reached a majority is
   * not the last word.
   */
  void checkHold(HeldLease h) {
    if (h.closed.get() || h.lostReason() != null) {
      return;
    }
    if (HeldLease.NOTICES.getAndIncrement(h) > 0) {
      return; // the read under way reads again when it ends
    }
    readHolder(h, 0);
  }

  /**
   * The read of {@link #checkHold}. One that fails is tried again (25 ms later, backing off to a
   * second) while it may pass and the hold is open and within its lease: the notice is the only
   * news of a forced unlock before the hold's next renewal, or, for a fixed lease, its end.
   */
  private void readHolder(HeldLease h, int failures) {
    // An exclusive lock's value names its owner; a shared kind's hold is a key of its own (holders.lua).
    boolean exclusive = h.state.kind == LockKind.EXCLUSIVE;
    CompletableFuture<List<Object>> read = exclusive
        ? scripts.run(Scripts.INSPECT, h.state.scriptKeys, List.of(), h.lockName())
        : scripts.run(Scripts.HOLD_PTTL, List.of(h.holdKey), List.of(), h.lockName());
    read.whenComplete((reply, error) -> {
      if (error == null && (exclusive ? !h.owner.equals(reply.get(0)) : Long.valueOf(-2).equals(reply.get(0)))) {
        h.lost("another client freed the lock (a forced unlock), or its lease ran out");
        return;
      }
      if (error != null) {
        log.debug("could not check lock '{}' after a notice that it was freed: {}", h.lockName(), error.getMessage());
        if (ScriptRunner.isTransient(error) && !h.closed.get() && h.lostReason() == null
            && System.nanoTime() - h.validUntilNanos() < 0
            && schedule(Retry.backoffNanos(failures), () -> {
              // Notices that came meanwhile are answered by this read, which begins after them.
              HeldLease.NOTICES.set(h, 1);
              readHolder(h, failures + 1);
            }) != null) {
          return;
        }
      }
      boolean again = HeldLease.NOTICES.getAndSet(h, 0) > 1;
      if (again) {
        checkHold(h);
      }
    });
  }

  /** Whether any owner holds lock {@code name} of {@code kind} (for a read lock: any reader). */
  boolean isLocked(LockKind kind, String name) {
    List<String> k = ScriptCalls.keys(keys(name));
    if (kind == LockKind.EXCLUSIVE) {
      return !"".equals(await(scripts.run(Scripts.INSPECT, k, List.of(), name)).get(0));
    }
    return (Long) await(scripts.run(Scripts.READWRITE_STATE, k, List.of("inspect", lane(kind), fenceRetention), name))
        .get(0) > 0;
  }

  /** Ends every hold of lock {@code name} of {@code kind}; whether there was one. */
  boolean forceUnlock(LockKind kind, String name) {
    List<String> k = ScriptCalls.keys(keys(name));
    if (kind == LockKind.EXCLUSIVE) {
      return (Long) await(scripts.run(Scripts.FORCE_UNLOCK, k, List.of(fenceRetention, clientChannelPrefix()), name))
          .get(0) == 1L;
    }
    return (Long) await(scripts.run(Scripts.READWRITE_STATE, k,
        List.of("force", lane(kind), fenceRetention, clientChannelPrefix()), name)).get(0) > 0;
  }

  private static String lane(LockKind kind) {
    if (kind != LockKind.READ && kind != LockKind.WRITE) {
      throw new IllegalArgumentException("not a read-write lock's lane: " + kind);
    }
    return kind == LockKind.READ ? "r" : "w";
  }

  /** Free permits of semaphore {@code name}, declared with {@code permits}, as Redis counts them now. */
  int availablePermits(String name, int permits) {
    List<Object> reply = await(scripts.run(Scripts.SEMAPHORE_PERMITS, ScriptCalls.keys(keys(name)),
        List.of(Integer.toString(permits)), name));
    return ((Long) reply.get(0)).intValue();
  }

  /**
   * Refuses, naming the reason, a kind that the topology cannot give: Redlock runs exclusive locks
   * only (a quorum of independent masters has no shared holder indexes or queues to agree on).
   */
  void requireSharedKinds(String what) {
    if (driver instanceof RedlockDriver) {
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

  /** Waits for a future that completes on its own (a Redis call is bounded by the command timeout). */
  static <T> T await(CompletableFuture<T> f) {
    try {
      return awaitUninterruptibly(f, null);
    } catch (TimeoutException impossible) {
      throw new IllegalStateException(impossible);
    }
  }

  /**
   * Waits for {@code f}, ignoring interrupts (the flag is restored), at most {@code bound} (null:
   * no bound); a failure is rethrown as it is if unchecked.
   */
  static <T> T awaitUninterruptibly(CompletableFuture<T> f, Duration bound) throws TimeoutException {
    boolean interrupted = false;
    long deadline = bound == null ? 0 : System.nanoTime() + bound.toNanos();
    try {
      while (true) {
        try {
          return bound == null ? f.get() : f.get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException e) {
          throw unchecked(e.getCause());
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  static RuntimeException unchecked(Throwable t) {
    while (t instanceof java.util.concurrent.CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    if (t instanceof RuntimeException r) {
      return r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    return new RelockException(String.valueOf(t), t);
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
    watchdog.stop();
    List<CompletableFuture<Void>> pending = new ArrayList<>();
    java.util.concurrent.atomic.LongAccumulator longestLease = new java.util.concurrent.atomic.LongAccumulator(Math::max, 0);
    for (LockState state : states.values()) {
      CompletableFuture<Void> done = new CompletableFuture<>();
      state.post(() -> state.closeAll(longestLease).whenComplete((v, e) -> done.complete(null)));
      pending.add(done);
    }
    CompletableFuture<Void> all = CompletableFuture.allOf(pending.toArray(new CompletableFuture<?>[0]));
    try {
      awaitUninterruptibly(all, releaseWait);
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
    terminated = true;
    scheduler.shutdownNow();
    events.shutdown();
    try {
      driver.close();
    } catch (RuntimeException e) {
      log.debug("closing the driver failed", e);
    }
  }
}

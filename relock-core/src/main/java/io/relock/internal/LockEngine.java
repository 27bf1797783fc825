package io.relock.internal;

import io.relock.LockLostException;
import io.relock.RelockException;
import io.relock.spi.RedisDriver;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine behind one {@link io.relock.Relock} client: owner ids, the per-name local state, the
 * notification listener, the watchdog and lease expiry checks. Public only so that the API package
 * can reach it; not part of the API.
 */
public final class LockEngine {
  private static final Logger log = LoggerFactory.getLogger(LockEngine.class);
  private static final SecureRandom RANDOM = new SecureRandom();

  private final RedisDriver driver;
  private final RelockSettings settings;
  private final ScriptRunner scripts;
  private final String clientId;
  private final String channel;
  private final ScheduledExecutorService scheduler;
  private final ExecutorService events;
  private final WatchdogRenewer watchdog;
  private final ConcurrentHashMap<String, LockState> states = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Acquisition> waiters = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, HeldLease> held = new ConcurrentHashMap<>();
  /** Numbers every acquisition's owner id, so no two acquisitions ever share one. */
  private final AtomicLong owners = new AtomicLong();
  private final AtomicBoolean closed = new AtomicBoolean();

  private LockEngine(RedisDriver driver, RelockSettings settings) {
    this.driver = driver;
    this.settings = settings;
    this.scripts = new ScriptRunner(driver, settings.commandTimeout());
    byte[] id = new byte[16];
    RANDOM.nextBytes(id);
    this.clientId = HexFormat.of().formatHex(id);
    this.channel = settings.keyPrefix() + "client:" + clientId;
    String tag = clientId.substring(0, 8);
    ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, daemon("relock-timer-" + tag));
    timer.setRemoveOnCancelPolicy(true);
    this.scheduler = timer;
    this.events = Executors.newSingleThreadExecutor(daemon("relock-events-" + tag));
    this.watchdog = new WatchdogRenewer(scripts, scheduler, settings.defaultLease().toMillis(), this::scheduleExpiryCheck);
  }

  /** Subscribes to the client's notification channel and starts the watchdog. */
  public static LockEngine start(RedisDriver driver, RelockSettings settings) {
    LockEngine engine = new LockEngine(driver, settings);
    try {
      driver.subscribe(engine.channel, engine::onNotification)
          .get(settings.connectTimeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      engine.shutdownQuietly();
      throw new RelockException("interrupted while subscribing to " + engine.channel, e);
    } catch (ExecutionException | TimeoutException e) {
      engine.shutdownQuietly();
      throw new RelockException("could not subscribe to notification channel " + engine.channel, e);
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

  ScheduledExecutorService scheduler() {
    return scheduler;
  }

  LockKeys keys(String name) {
    return LockKeys.of(settings.keyPrefix(), name);
  }


  // ---- acquiring ----------------------------------------------------------------------------

  /**
   * Starts an acquisition. For a thread that already holds the lock through {@code lock()}, the
   * hold count is raised in Redis (re-entry) and the thread's lease is returned.
   *
   * @param threadId the owning thread for {@code lock()} style, or -1 for a lease
   * @param wait null to wait without limit, zero for one attempt
   * @param lease null for the default lease, renewed by the watchdog
   */
  Pending acquire(String name, long threadId, Duration wait, Duration lease) {
    ensureOpen(name);
    boolean renewed = lease == null;
    long leaseMillis = (renewed ? settings.defaultLease() : lease).toMillis();
    while (true) {
      LockState state = states.computeIfAbsent(name, n -> new LockState(keys(n)));
      if (threadId >= 0) {
        HeldLease mine = state.threadHold(threadId);
        if (mine != null) {
          return new Pending(reenter(mine), null);
        }
      }
      // Unique per acquisition, thread style included (re-entry reuses the hold's owner instead):
      // a late grant notification can then never be mistaken for a later acquisition's.
      long n = owners.incrementAndGet();
      String owner = threadId >= 0 ? clientId + ":t" + threadId + "." + n : clientId + ":l" + n;
      Acquisition a = new Acquisition(this, state, owner, threadId, wait, leaseMillis, renewed);
      if (wait != null && wait.isZero()) {
        a.tryOnce();
        return new Pending(a.result, a);
      }
      int position = state.enqueue(a);
      if (position == LockState.RETIRED) {
        states.remove(name, state);
        continue;
      }
      a.queueLocally(position);
      return new Pending(a.result, a);
    }
  }

  /** An acquisition under way: its result, and a way to withdraw it. */
  record Pending(CompletableFuture<HeldLease> result, Acquisition acquisition) {
    /** Withdraws (see {@link Acquisition#cancel()}); completes when Redis has confirmed. */
    CompletableFuture<Void> cancel() {
      return acquisition == null ? CompletableFuture.completedFuture(null) : acquisition.cancel();
    }
  }

  private CompletableFuture<HeldLease> reenter(HeldLease lease) {
    if (lease.lostReason() != null) {
      return CompletableFuture.failedFuture(new LockLostException(lease.lockName(), lease.lostReason()));
    }
    List<String> args = List.of(lease.owner, Long.toString(TimeUnit.NANOSECONDS.toMillis(lease.leaseNanos)),
        "reenter", "1", channel, fenceRetentionMillis(), Long.toString(claimMillis()));
    return scripts.run(Scripts.ACQUIRE, lease.keys.all(), args, lease.lockName()).thenApply(reply -> {
      if ((Long) reply.get(0) != 2L) {
        lease.lost("re-entry found the lock expired or held by another owner");
        throw new LockLostException(lease.lockName(), lease.lostReason());
      }
      lease.threadHolds++;
      return lease;
    });
  }

  CompletableFuture<List<Object>> runAcquire(Acquisition a, String mode, long entryMillis) {
    List<String> args = List.of(a.owner, Long.toString(a.leaseMillis), mode, Long.toString(entryMillis),
        channel, fenceRetentionMillis(), Long.toString(claimMillis()));
    return scripts.run(Scripts.ACQUIRE, a.state.keys.all(), args, a.state.keys.name());
  }

  /**
   * How long a lock handed to a waiter first lasts before the waiter confirms it (a third of the
   * way in): two recheck intervals. A waiter that died while queued thus delays the others by at
   * most its queue entry's lifetime plus this, not a whole lease.
   */
  long claimMillis() {
    return 2 * settings.recheckInterval().toMillis();
  }

  private String fenceRetentionMillis() {
    return Long.toString(settings.fenceRetention().toMillis());
  }

  void registerWaiter(Acquisition a) {
    waiters.put(a.waiterKey(), a);
  }

  void unregisterWaiter(Acquisition a) {
    waiters.remove(a.waiterKey(), a);
  }

  /** Turns a successful acquisition into a lease and starts keeping it alive (or watching it). */
  HeldLease acquired(Acquisition a, long token, long validFromNanos, int holdCount, boolean handedOff) {
    Duration lease = Duration.ofMillis(a.leaseMillis);
    long drift = settings.driftFor(lease).toNanos();
    boolean claimed = handedOff && a.leaseMillis > claimMillis();
    long firstLease = TimeUnit.MILLISECONDS.toNanos(claimed ? claimMillis() : a.leaseMillis);
    long firstDrift = claimed ? settings.driftFor(Duration.ofNanos(firstLease)).toNanos() : drift;
    HeldLease h = new HeldLease(this, a.state.keys, a.owner, token, lease.toNanos(), drift, a.renewed,
        a.threadId, validFromNanos + firstLease - firstDrift);
    h.threadHolds = holdCount;
    held.put(heldKey(h), h);
    if (a.threadId >= 0) {
      a.state.putThreadHold(h);
    }
    if (h.renewed) {
      watchdog.add(h);
    }
    if (claimed) {
      long confirmAt = validFromNanos + TimeUnit.MILLISECONDS.toNanos(claimMillis()) / 3;
      schedule(Math.max(0, confirmAt - System.nanoTime()), () -> confirmHandoff(h, validFromNanos));
    }
    if (!h.renewed || claimed) {
      // Renewed leases get their expiry check from the watchdog, only when a deadline comes near.
      scheduleExpiryCheck(h);
    }
    return h;
  }

  /**
   * A handed-over lock first lasts only the claim time; if its new owner still holds it a third of
   * the way in, extend it to the lease the owner asked for. Short holds never need this call.
   */
  private void confirmHandoff(HeldLease h, long grantedNanos) {
    if (h.closed.get() || h.lostReason() != null) {
      return;
    }
    long sent = System.nanoTime();
    long leaseMillis = TimeUnit.NANOSECONDS.toMillis(h.leaseNanos);
    long px = h.renewed ? leaseMillis : Math.max(1, leaseMillis - TimeUnit.NANOSECONDS.toMillis(sent - grantedNanos));
    scripts.run(Scripts.RENEW, List.of(h.keys.lock()), List.of(Long.toString(px), h.owner), h.lockName())
        .whenComplete((reply, error) -> {
          if (error != null) {
            log.warn("could not confirm handed-over lock '{}': {}", h.lockName(), error.getMessage());
          } else if ((Long) reply.get(0) == 1L) {
            h.extendTo(h.renewed ? sent + h.leaseNanos - h.driftNanos : grantedNanos + h.leaseNanos - h.driftNanos);
          } else {
            h.lost("the lock handed over to it expired or was taken before it was confirmed");
          }
        });
  }

  private void schedule(long delayNanos, Runnable task) {
    try {
      scheduler.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    } catch (java.util.concurrent.RejectedExecutionException closing) {
      // The client is closing; close() releases every lease.
    }
  }

  private static String heldKey(HeldLease h) {
    return h.keys.lock() + ' ' + h.owner;
  }

  /** Arms a check at {@code h}'s local deadline that reports the lease lost if it is not renewed. */
  void scheduleExpiryCheck(HeldLease h) {
    long delay = Math.max(0, h.validUntilNanos() - System.nanoTime());
    try {
      h.expiryCheck = scheduler.schedule(() -> checkExpiry(h), delay, TimeUnit.NANOSECONDS);
    } catch (java.util.concurrent.RejectedExecutionException closing) {
      // The client is closing; close() releases the lease.
    }
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
    return h.renewed
        ? "the lease ran out before a renewal succeeded (Redis unreachable or the process paused)"
        : "its lease of " + Duration.ofNanos(h.leaseNanos) + " ran out";
  }

  /** Runs a listener on the calling thread; a throwing listener is logged. */
  void runListenerHere(String lockName, Runnable listener) {
    try {
      listener.run();
    } catch (RuntimeException | Error e) {
      log.error("onLost listener of lock '{}' threw; ignored", lockName, e);
    }
  }

  /** Called once when a lease is found lost: stop renewing and watching it. */
  void leaseLost(HeldLease h) {
    watchdog.remove(h);
    log.warn("lease on lock '{}' (token {}) lost: {}", h.lockName(), h.token, h.lostReason());
  }

  void runListener(String lockName, Runnable listener) {
    try {
      events.execute(() -> {
        try {
          listener.run();
        } catch (RuntimeException | Error e) {
          log.error("onLost listener of lock '{}' threw; ignored", lockName, e);
        }
      });
    } catch (java.util.concurrent.RejectedExecutionException closing) {
      log.warn("client closed before the onLost listener of lock '{}' could run", lockName);
    }
  }

  void retireIfIdle(LockState state) {
    if (state.retireIfIdle()) {
      states.remove(state.keys.name(), state);
    }
  }

  // ---- notifications ------------------------------------------------------------------------

  /** A grant: {@code "<token> <owner> <lock key>"}, published by the releasing script. */
  private void onNotification(String message) {
    int first = message.indexOf(' ');
    int second = message.indexOf(' ', first + 1);
    if (first < 0 || second < 0) {
      log.warn("ignoring malformed notification '{}'", message);
      return;
    }
    long token = Long.parseLong(message.substring(0, first));
    String owner = message.substring(first + 1, second);
    String lockKey = message.substring(second + 1);
    String key = lockKey + ' ' + owner;
    Acquisition a = waiters.get(key);
    if (a != null) {
      a.granted(token);
    } else if (!held.containsKey(key) && !closed.get()) {
      // Granted to a waiter this client no longer has (it failed or was cancelled while the grant
      // was on its way): hand the lock on rather than leaving it to expire.
      releaseOrphan(lockKey, owner);
    }
  }

  private void releaseOrphan(String lockKey, String owner) {
    String name = lockKey;
    LockKeys keys = new LockKeys(name, lockKey, lockKey + ":fence", lockKey + ":q", lockKey + ":qi");
    scripts.run(Scripts.RELEASE, keys.all(), List.of(owner, fenceRetentionMillis(), "1"), lockKey)
        .whenComplete((r, e) -> {
          if (e != null) {
            log.warn("could not pass on orphaned grant of {}: {}", lockKey, e.getMessage());
          }
        });
  }

  // ---- releasing ----------------------------------------------------------------------------

  /** {@link HeldLease#close()}: releases a lease-style hold, once. */
  void closeLease(HeldLease h) {
    if (!h.closed.compareAndSet(false, true)) {
      return;
    }
    finishRelease(h, true);
  }

  /** {@code unlock()} by the calling thread. */
  void unlock(String name, long threadId) {
    LockState state = states.get(name);
    HeldLease h = state == null ? null : state.threadHold(threadId);
    if (h == null) {
      throw new IllegalMonitorStateException(
          "the current thread does not hold lock '" + name + "'");
    }
    if (h.threadHolds > 1 && h.lostReason() == null) {
      List<Object> reply = await(scripts.run(Scripts.RELEASE, h.keys.all(),
          List.of(h.owner, fenceRetentionMillis(), "0"), name), name);
      if ((Long) reply.get(0) == 1L) {
        h.threadHolds--;
        return;
      }
      h.lost(describeRelease((Long) reply.get(0)));
    }
    if (h.lostReason() != null && h.threadHolds > 1) {
      h.threadHolds--;
      throw new LockLostException(name, h.lostReason());
    }
    h.threadHolds = 0;
    h.closed.set(true);
    finishRelease(h, true);
  }

  /**
   * Releases in a row that may pass the lock to a waiter of this client ahead of other clients'
   * waiters. Passing within the client saves a cross-process wake-up per acquisition; the bound
   * keeps other processes from waiting more than this many holds per client ahead of them.
   */
  static final int PASSES_AHEAD = 16;

  /** Stops watching {@code h}, releases it in Redis, and reports a loss by throwing. */
  private void finishRelease(HeldLease h, boolean wait) {
    stopTracking(h);
    LockState state = wait ? states.get(h.lockName()) : null;
    Acquisition successor = state == null ? null : state.successor();
    String ahead = successor != null && state.mayPassAhead(PASSES_AHEAD) ? "1" : "0";
    // Every remaining hold at once: the last unlock(), a lease close, or a lost hold being cleaned up.
    List<String> args = List.of(h.owner, fenceRetentionMillis(), "1", successor == null ? "" : successor.owner, ahead);
    long sent = System.nanoTime();
    CompletableFuture<List<Object>> f = scripts.run(Scripts.RELEASE, h.keys.all(), args, h.lockName());
    if (!wait) {
      return;
    }
    if (state != null) {
      // On the thread that receives the reply, before the releasing thread wakes: the successor
      // is waiting for the lock, and each hand-over within the client is on the critical path.
      f = f.thenApply(r -> {
        long code = (Long) r.get(0);
        if (code > 1) {
          state.released(code == 3);
          if (code == 3) {
            successor.passed((Long) r.get(1), sent);
          }
          retireIfIdle(state);
        }
        return r;
      });
    }
    List<Object> reply;
    try {
      reply = await(f, h.lockName());
    } catch (RelockException e) {
      if (h.lostReason() != null) {
        LockLostException lost = new LockLostException(h.lockName(), h.lostReason());
        lost.initCause(e);
        throw lost;
      }
      throw e;
    }
    long code = (Long) reply.get(0);
    if (code <= 0) {
      h.lostOnClose(describeRelease(code));
    }
    if (h.lostReason() != null) {
      throw new LockLostException(h.lockName(), h.lostReason());
    }
  }

  private static String describeRelease(long code) {
    return code == 0 ? "the lock is held by another owner" : "the lock had expired";
  }

  private void stopTracking(HeldLease h) {
    watchdog.remove(h);
    held.remove(heldKey(h), h);
    if (h.expiryCheck != null) {
      h.expiryCheck.cancel(false);
    }
    if (h.threadId >= 0) {
      LockState state = states.get(h.lockName());
      if (state != null) {
        state.removeThreadHold(h);
        retireIfIdle(state);
      }
    }
  }

  /** Releases a lease nobody will close (its acquisition was cancelled as it completed). */
  void abandonLease(HeldLease h) {
    if (h.closed.compareAndSet(false, true)) {
      finishRelease(h, false);
    }
  }

  // ---- inspection ---------------------------------------------------------------------------

  boolean isLocked(String name) {
    LockKeys k = keys(name);
    List<Object> reply = await(scripts.run(Scripts.INSPECT, List.of(k.lock(), k.fence(), k.queue()), List.of(), name), name);
    return !"".equals(reply.get(0));
  }

  boolean forceUnlock(String name) {
    LockKeys k = keys(name);
    List<Object> reply = await(scripts.run(Scripts.FORCE_UNLOCK, k.all(), List.of(fenceRetentionMillis()), name), name);
    return (Long) reply.get(0) == 1L;
  }

  int holdCount(String name, long threadId) {
    LockState state = states.get(name);
    HeldLease h = state == null ? null : state.threadHold(threadId);
    return h == null ? 0 : h.threadHolds;
  }

  boolean isHeldBy(String name, long threadId) {
    LockState state = states.get(name);
    HeldLease h = state == null ? null : state.threadHold(threadId);
    return h != null && h.isValid();
  }

  /** Waits for a Redis call whose future is already bounded by the command timeout. */
  <T> T await(CompletableFuture<T> f, String name) {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return f.get();
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException e) {
          Throwable c = e.getCause();
          if (c instanceof RuntimeException r) {
            throw r;
          }
          throw new RelockException("lock '" + name + "': " + c, c);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Runs {@code r} on the client's event thread, never on a Redis I/O thread. */
  void onEventThread(Runnable r) {
    events.execute(r);
  }

  private void ensureOpen(String name) {
    if (closed.get()) {
      throw new RelockException("client is closed; cannot acquire lock '" + name + "'");
    }
  }

  // ---- closing ------------------------------------------------------------------------------

  /** Withdraws waiters, releases held leases, stops timers, closes the driver. */
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    watchdog.stop();
    for (Acquisition a : waiters.values()) {
      try {
        a.cancel().get(settings.commandTimeout().toMillis(), TimeUnit.MILLISECONDS);
      } catch (Exception e) {
        log.debug("withdrawing a waiter on close failed", e);
      }
    }
    for (LockState s : states.values()) {
      for (Acquisition a : s.waiters()) {
        a.cancel();
      }
    }
    for (HeldLease h : held.values()) {
      if (h.closed.compareAndSet(false, true)) {
        try {
          finishRelease(h, true);
        } catch (RuntimeException e) {
          log.debug("releasing lock '{}' on close: {}", h.lockName(), e.getMessage());
        }
      }
    }
    shutdownQuietly();
  }

  private void shutdownQuietly() {
    scheduler.shutdownNow();
    events.shutdown();
    try {
      driver.close();
    } catch (RuntimeException e) {
      log.debug("closing the driver failed", e);
    }
  }
}

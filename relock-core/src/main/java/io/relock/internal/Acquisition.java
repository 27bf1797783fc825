package io.relock.internal;

import io.relock.LockTimeoutException;
import io.relock.RelockException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One attempt to acquire a lock, from its first call to Redis until it holds the lease or gives
 * up. Asynchronous throughout: nothing here blocks a thread.
 *
 * <p>Waiting: the acquisition queues in its client's {@link LockState}; only the head of that
 * local queue is registered in Redis ({@code acquire.lua} mode {@code wait}). It then waits for a
 * grant notification (the previous holder's release handed it the lock), re-checking on its own
 * when the holder's lease should have run out or after the recheck interval, whichever is sooner.
 * When its time is up it asks once more ({@code giveup}), so a grant that raced the deadline is
 * kept rather than wasted.
 */
final class Acquisition {
  final LockEngine engine;
  final LockState state;
  final String owner;
  final long threadId;
  final long leaseMillis;
  final boolean renewed;
  private final Duration wait;
  private final long deadlineNanos;
  private final boolean timed;
  /** Completed with the lease, or exceptionally; cancellation is reported as CancellationException. */
  final CompletableFuture<HeldLease> result = new CompletableFuture<>();

  // Transitions are guarded by this; Redis calls are made outside the monitor.
  private boolean done;
  private boolean inRedis;
  private ScheduledFuture<?> timer;
  /** Latest send time of a call that Redis ran before any grant: a safe start of a granted lease. */
  private volatile long grantNoEarlierThan;

  Acquisition(LockEngine engine, LockState state, String owner, long threadId, Duration wait,
      long leaseMillis, boolean renewed) {
    this.engine = engine;
    this.state = state;
    this.owner = owner;
    this.threadId = threadId;
    this.wait = wait;
    this.leaseMillis = leaseMillis;
    this.renewed = renewed;
    this.timed = wait != null;
    this.deadlineNanos = timed ? System.nanoTime() + saturatedNanos(wait) : 0;
  }

  private static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException tooLong) {
      return Long.MAX_VALUE / 4;
    }
  }

  String waiterKey() {
    return state.keys.lock() + ' ' + owner;
  }

  /** One attempt that never queues ({@code tryLock()}, zero wait). */
  void tryOnce() {
    send("try");
  }

  /** Joins the local queue; the head starts waiting in Redis, the others wait for their turn. */
  void queueLocally(int position) {
    if (position == LockState.HEAD) {
      startAsHead();
    } else if (timed) {
      schedule(Math.max(0, deadlineNanos - System.nanoTime()), this::localDeadline);
    }
  }

  /** Now first in the local queue: register in Redis (or give up if the time already ran out). */
  void startAsHead() {
    synchronized (this) {
      if (done) {
        return;
      }
      if (!(timed && System.nanoTime() - deadlineNanos >= 0)) {
        inRedis = true;
      }
    }
    if (!inRedis()) {
      fail(timeout());
      return;
    }
    engine.registerWaiter(this);
    send("wait");
  }

  private synchronized boolean inRedis() {
    return inRedis;
  }

  /** Whether this waiter has its entry in the Redis queue and is still waiting. */
  synchronized boolean isQueuedInRedis() {
    return inRedis && !done;
  }

  private void localDeadline() {
    synchronized (this) {
      if (done || inRedis) {
        return;
      }
    }
    fail(timeout());
  }

  private void send(String mode) {
    long sent = System.nanoTime();
    if (grantNoEarlierThan == 0) {
      grantNoEarlierThan = sent;
    }
    long entryMillis = entryLifetimeMillis();
    engine.runAcquire(this, mode, entryMillis)
        .whenComplete((reply, error) -> onReply(mode, sent, reply, error));
  }

  /** A queue entry lives three recheck intervals unless refreshed, and never past the deadline. */
  private long entryLifetimeMillis() {
    long life = 3 * engine.settings().recheckInterval().toMillis();
    if (timed) {
      long left = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()) + 1;
      life = Math.min(life, left);
    }
    return Math.max(1, life);
  }

  private void onReply(String mode, long sent, List<Object> reply, Throwable error) {
    if (error != null) {
      fail(error);
      return;
    }
    try {
      handleReply(mode, sent, reply);
    } catch (RuntimeException e) {
      // A reply of the wrong shape (a confused connection): fail rather than leave the caller hanging.
      fail(new RelockException("unexpected reply " + reply + " from acquire.lua for lock '"
          + state.keys.name() + "'", e));
    }
  }

  private void handleReply(String mode, long sent, List<Object> reply) {
    int code = ((Long) reply.get(0)).intValue();
    long token = (Long) reply.get(1);
    long n = (Long) reply.get(2);
    switch (code) {
      case 1, 2 -> succeed(token, sent, (int) n, false);
      case 3 -> succeed(token, grantNoEarlierThan, 1, true);
      case -1 -> fail("abandon".equals(mode) ? new CancellationException() : timeout());
      case 0 -> busy(mode, sent, n);
      case -3 -> requeue();
      default -> fail(new RelockException("unexpected reply " + reply + " from acquire.lua for lock '"
          + state.keys.name() + "'"));
    }
  }

  private void busy(String mode, long sent, long pttlMillis) {
    if ("try".equals(mode)) {
      fail(timeout());
      return;
    }
    if (sent - grantNoEarlierThan > 0) {
      grantNoEarlierThan = sent;
    }
    long now = System.nanoTime();
    long delay = engine.settings().recheckInterval().toNanos();
    if (pttlMillis > 0) {
      delay = Math.min(delay, TimeUnit.MILLISECONDS.toNanos(pttlMillis + 1));
    }
    if (timed) {
      delay = Math.min(delay, deadlineNanos - now);
    }
    schedule(Math.max(0, delay), this::recheck);
  }

  /** The entry in Redis is gone (expired while this client was stalled): queue again. */
  private void requeue() {
    synchronized (this) {
      if (done) {
        return;
      }
    }
    send("wait");
  }

  private void recheck() {
    synchronized (this) {
      if (done) {
        return;
      }
    }
    boolean out = timed && System.nanoTime() - deadlineNanos >= 0;
    send(out ? "giveup" : "recheck");
  }

  private void schedule(long delayNanos, Runnable task) {
    synchronized (this) {
      if (done) {
        return;
      }
      timer = engine.scheduler().schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    }
  }

  /**
   * A release by another owner of this client passed the lock straight to this waiter; the lease
   * started no earlier than that release was sent.
   */
  void passed(long token, long releaseSentNanos) {
    succeed(token, Math.max(releaseSentNanos, grantNoEarlierThan), 1, false);
  }

  /** Delivered by the notification listener: the previous holder's release handed us the lock. */
  void granted(long token) {
    succeed(token, grantNoEarlierThan, 1, true);
  }

  private boolean finish() {
    synchronized (this) {
      if (done) {
        return false;
      }
      done = true;
      if (timer != null) {
        timer.cancel(false);
      }
    }
    return true;
  }

  /**
   * @param handedOff whether the lock was granted by another owner's release (it then first
   *     lasts only the claim time, see handoff.lua)
   */
  private void succeed(long token, long validFromNanos, int holdCount, boolean handedOff) {
    if (!finish()) {
      return;
    }
    // Held before no longer waiting: a grant notification arriving in between must find one of
    // the two, or it would be taken for an orphan and released under the new holder.
    HeldLease lease = engine.acquired(this, token, validFromNanos, holdCount, handedOff);
    engine.unregisterWaiter(this);
    leaveQueue();
    if (!result.complete(lease)) {
      // The caller cancelled in the meantime: nobody will close this lease.
      engine.abandonLease(lease);
    }
  }

  private void fail(Throwable error) {
    boolean registered;
    synchronized (this) {
      registered = inRedis;
    }
    if (!finish()) {
      return;
    }
    engine.unregisterWaiter(this);
    if (registered && !(error instanceof LockTimeoutException) && !(error instanceof CancellationException)) {
      // A Redis error mid-wait: withdraw if Redis lets us, so the entry does not linger to its expiry.
      engine.runAcquire(this, "abandon", 1);
    }
    leaveQueue();
    result.completeExceptionally(error);
  }

  /**
   * Withdraws: from the local queue, and from Redis (releasing a lock granted meanwhile). The
   * returned future completes when Redis has confirmed, so a caller that throws afterwards leaves
   * nothing behind. A no-op once the acquisition finished.
   */
  CompletableFuture<Void> cancel() {
    boolean registered;
    synchronized (this) {
      registered = inRedis;
    }
    if (!finish()) {
      return CompletableFuture.completedFuture(null);
    }
    engine.unregisterWaiter(this);
    CompletableFuture<Void> cleaned = registered
        ? engine.runAcquire(this, "abandon", 1).handle((r, e) -> null)
        : CompletableFuture.completedFuture(null);
    leaveQueue();
    result.completeExceptionally(new CancellationException("acquisition of lock '" + state.keys.name() + "' cancelled"));
    return cleaned;
  }

  private void leaveQueue() {
    Acquisition next = state.leave(this);
    if (next != null) {
      next.startAsHead();
    }
    engine.retireIfIdle(state);
  }

  private LockTimeoutException timeout() {
    return new LockTimeoutException(state.keys.name(), timed ? wait : Duration.ZERO);
  }
}

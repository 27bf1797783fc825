package io.relock.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Fails the calls of one {@link ScriptRunner} that outlive its command timeout, for drivers that
 * do not time out their own futures ({@link io.relock.spi.RedisDriver#timesOutCommands()}), as
 * {@code CompletableFuture.orTimeout} would, at a fraction of its cost: every call of a runner has
 * the same timeout, so their deadlines come in the order the calls were sent, and one queue in that
 * order, swept by one task every {@link #tickNanos}, does what a timer per call would. A call's
 * future fails with {@link TimeoutException} between its deadline and one tick after it.
 *
 * <p>On the hot path a call costs one queue node; calls answered in time leave the queue when the
 * sweep reaches them. While a call is stuck, those behind it wait in the queue until its deadline:
 * at most a timeout's worth of calls.
 */
final class CallDeadlines {
  /** One sweeper thread for every client in the JVM: it only polls queues and fails futures. */
  private static final ScheduledThreadPoolExecutor SWEEPER = sweeper();

  private record Call(CompletableFuture<?> future, long deadline) {}

  private final ConcurrentLinkedQueue<Call> calls = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean sweeping = new AtomicBoolean();
  private final long timeoutNanos;
  private final long tickNanos;

  CallDeadlines(java.time.Duration timeout) {
    this.timeoutNanos = timeout.toNanos();
    this.tickNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(5), Math.min(TimeUnit.MILLISECONDS.toNanos(100),
        timeoutNanos / 10));
  }

  private static ScheduledThreadPoolExecutor sweeper() {
    ScheduledThreadPoolExecutor s = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "relock-call-deadlines");
      t.setDaemon(true);
      return t;
    });
    s.setRemoveOnCancelPolicy(true);
    return s;
  }

  /** Bounds {@code f} by the timeout from now; returns it. */
  <T> CompletableFuture<T> bound(CompletableFuture<T> f) {
    if (f.isDone()) {
      return f;
    }
    calls.add(new Call(f, System.nanoTime() + timeoutNanos));
    if (sweeping.compareAndSet(false, true)) {
      SWEEPER.schedule(this::sweep, tickNanos, TimeUnit.NANOSECONDS);
    }
    return f;
  }

  private void sweep() {
    long now = System.nanoTime();
    for (Call c; (c = calls.peek()) != null; ) {
      if (!c.future.isDone() && now - c.deadline < 0) {
        break;
      }
      calls.poll();
      if (!c.future.isDone()) {
        c.future.completeExceptionally(new TimeoutException());
      }
    }
    // Keep sweeping while calls are queued; a call queued just after the last look starts it again.
    if (!calls.isEmpty()) {
      SWEEPER.schedule(this::sweep, tickNanos, TimeUnit.NANOSECONDS);
      return;
    }
    sweeping.set(false);
    if (!calls.isEmpty() && sweeping.compareAndSet(false, true)) {
      SWEEPER.schedule(this::sweep, tickNanos, TimeUnit.NANOSECONDS);
    }
  }
}

package io.relock.jedis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The threads that run a driver's blocking Jedis calls, one connection each, and the deadline of
 * calls that wait for one: a call no worker has started within the command timeout fails unsent
 * ({@link QueuedCall}). The deadline costs no timer per call: a call that reaches a worker late is
 * failed there, and one sweep per period fails the calls still queued past theirs (so they fail
 * at most a period late). A timer per call, never cancelled, had kept one task per call in the
 * JVM's shared delay queue for the whole timeout, and its thread ran them all: at a few thousand
 * calls a second that doubled the client's CPU per call.
 */
final class CallWorkers {
  private final ThreadPoolExecutor workers;
  private final ScheduledThreadPoolExecutor sweeper;
  private final long timeoutMillis;

  CallWorkers(int threads, String threadPrefix, long timeoutMillis) {
    this.timeoutMillis = timeoutMillis;
    AtomicInteger n = new AtomicInteger();
    this.workers = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
        r -> daemon(r, threadPrefix + "-worker-" + n.incrementAndGet()));
    this.workers.allowCoreThreadTimeOut(true);
    this.sweeper = new ScheduledThreadPoolExecutor(1, r -> daemon(r, threadPrefix + "-deadlines"));
    long period = Math.max(5, Math.min(100, timeoutMillis / 10));
    this.sweeper.scheduleAtFixedRate(this::sweep, period, period, TimeUnit.MILLISECONDS);
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  /**
   * Queues {@code work}; {@code future} completes with its result, or fails unsent if no worker
   * starts it within the timeout.
   *
   * @throws java.util.concurrent.RejectedExecutionException once shut down
   */
  <T> void execute(Supplier<T> work, CompletableFuture<T> future) {
    workers.execute(new QueuedCall<>(work, future, timeoutMillis));
  }

  private void sweep() {
    long now = System.nanoTime();
    for (Runnable queued : workers.getQueue()) {
      if (queued instanceof QueuedCall<?> call) {
        call.expireIfDue(now);
      }
    }
  }

  /** Stops the threads; returns the calls no worker started (the caller fails them). */
  List<QueuedCall<?>> shutdownNow() {
    sweeper.shutdownNow();
    List<QueuedCall<?>> unstarted = new ArrayList<>();
    for (Runnable queued : workers.shutdownNow()) {
      if (queued instanceof QueuedCall<?> call) {
        unstarted.add(call);
      }
    }
    return unstarted;
  }
}

package io.relock.internal;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * One client's timer thread: every delayed action of the engine runs on it (the retries and
 * rechecks of acquisitions and releases, expiry checks, hand-over confirmations, the watchdog's
 * ticks, a subscription tried again). The engine makes it when the client starts and stops it
 * when the client has shut down; from then on nothing is scheduled, and background retries,
 * which ask {@link #isStopped}, end.
 */
final class ClientTimer {
  private final ScheduledThreadPoolExecutor scheduler;
  private volatile boolean stopped;

  ClientTimer(ThreadFactory thread) {
    this.scheduler = new ScheduledThreadPoolExecutor(1, thread);
    this.scheduler.setRemoveOnCancelPolicy(true);
  }

  /** Runs {@code task} on the timer thread after {@code delayNanos}; null once the client is closing. */
  ScheduledFuture<?> schedule(long delayNanos, Runnable task) {
    try {
      return scheduler.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException closing) {
      return null;
    }
  }

  /** The timer thread itself, for the watchdog's fixed-rate ticks. */
  ScheduledExecutorService executor() {
    return scheduler;
  }

  /** Whether the client has shut down: nothing runs here any more, and background retries stop. */
  boolean isStopped() {
    return stopped;
  }

  /** The client has shut down: cancels what is scheduled and takes nothing more. */
  void stop() {
    stopped = true;
    scheduler.shutdownNow();
  }
}

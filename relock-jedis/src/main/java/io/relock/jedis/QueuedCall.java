package io.relock.jedis;

import io.relock.spi.CommandNotSentException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * One call on its way to a driver's worker thread. Its future completes when the call has really
 * ended: with the reply, with the failure the exchange met (bounded by the socket timeout), or,
 * if no worker started it within the command timeout, with {@link CommandNotSentException}: it
 * is then never sent. So a future never fails while its command may still be on its way to Redis,
 * and relock-core can send a withdrawal after it without the two racing on different connections
 * (which a timeout of its own, racing the worker, once allowed: a zero-wait attempt that timed out
 * on the client, withdrawn on a second connection before the first delivered it, took the lock for
 * nobody). {@link CallWorkers} enforces the deadline.
 */
final class QueuedCall<T> implements Runnable {
  private static final int QUEUED = 0;
  private static final int STARTED = 1;
  private static final int EXPIRED = 2;

  private final Supplier<T> work;
  final CompletableFuture<T> future;
  private final long timeoutMillis;
  private final long deadlineNanos;
  private final AtomicInteger state = new AtomicInteger(QUEUED);

  QueuedCall(Supplier<T> work, CompletableFuture<T> future, long timeoutMillis) {
    this.work = work;
    this.future = future;
    this.timeoutMillis = timeoutMillis;
    this.deadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
  }

  /** Fails the call unsent if it is past its deadline and no worker has started it. */
  void expireIfDue(long nowNanos) {
    if (nowNanos - deadlineNanos >= 0 && state.compareAndSet(QUEUED, EXPIRED)) {
      future.completeExceptionally(new CommandNotSentException(
          "no connection free within the command timeout of " + timeoutMillis + " ms; not sent", null));
    }
  }

  @Override
  public void run() {
    expireIfDue(System.nanoTime());
    if (future.isDone() || !state.compareAndSet(QUEUED, STARTED)) {
      return; // expired while queued, or failed by close(): never sent
    }
    try {
      future.complete(work.get());
    } catch (RuntimeException e) {
      future.completeExceptionally(e);
    }
  }
}

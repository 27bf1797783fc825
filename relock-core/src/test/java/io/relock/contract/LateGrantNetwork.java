package io.relock.contract;

import io.relock.internal.Scripts;
import io.relock.spi.RedisDriver;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A network that makes one waiter learn of a hand-over late: it loses every notification, holds
 * back the reply that tells the waiter it has been handed the lock (acquire.lua's code 3) until
 * only {@code leftOfClaim} of the claim counted from the waiter's last "busy" call remains, and
 * delays every renewal's reply by {@code renewalDelay}. Everything runs on the real driver, against
 * the real Redis, when it is sent.
 */
final class LateGrantNetwork extends LostNotificationsNetwork {
  private final long claimEndNanosAfterBusy;
  private final long renewalDelayNanos;
  /** When the last acquire call that found the lock busy was sent. */
  private volatile long busySent;

  /**
   * @param claimLessDrift the claim time less the drift allowance: how long after its last busy
   *     call the waiter counts a hand-over as surely its own
   */
  LateGrantNetwork(RedisDriver real, Duration claimLessDrift, Duration leftOfClaim, Duration renewalDelay) {
    super(real);
    this.claimEndNanosAfterBusy = claimLessDrift.minus(leftOfClaim).toNanos();
    this.renewalDelayNanos = renewalDelay.toNanos();
  }

  @Override
  public CompletableFuture<List<Object>> evalSha(String sha1, List<String> keys, List<String> args) {
    long sent = System.nanoTime();
    CompletableFuture<List<Object>> reply = real.evalSha(sha1, keys, args);
    if (sha1.equals(Scripts.RENEW.sha1())) {
      return heldBack(reply, renewalDelayNanos);
    }
    if (!sha1.equals(Scripts.ACQUIRE.sha1())) {
      return reply;
    }
    return reply.thenCompose(r -> {
      long code = (Long) r.get(0);
      if (code == 0) {
        busySent = sent;
      }
      return code == 3 ? heldBack(CompletableFuture.completedFuture(r), busySent + claimEndNanosAfterBusy - System.nanoTime())
          : CompletableFuture.completedFuture(r);
    });
  }

  private <T> CompletableFuture<T> heldBack(CompletableFuture<T> reply, long delayNanos) {
    CompletableFuture<T> late = new CompletableFuture<>();
    java.util.concurrent.Executor later = CompletableFuture.delayedExecutor(Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
    reply.whenComplete((value, error) -> later.execute(() -> {
      if (error != null) {
        late.completeExceptionally(error);
      } else {
        late.complete(value);
      }
    }));
    return late;
  }
}

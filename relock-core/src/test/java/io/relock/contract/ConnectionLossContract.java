package io.relock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.LockLease;
import io.relock.Relock;
import io.relock.testkit.TcpProxy;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Connections cut under a client: notifications published while the pub/sub connection is down
 * are lost, so the driver must tell core when it is back, and core re-checks at once.
 */
public abstract class ConnectionLossContract extends RelockContract {
  /** Far longer than the test's patience: only the reconnect can wake the waiter in time. */
  private static final Duration NO_RECHECK = Duration.ofMinutes(2);

  @Test
  void grantLostWhileTheConnectionWasCut_reachesTheWaiterWhenItReconnects_notAtItsNextRecheck() throws Exception {
    try (TcpProxy proxy = TcpProxy.start(redis.host(), redis.port())) {
      Relock holder = client();
      Relock waiter = client(proxy.uri(), DRIVER_SETTINGS, b -> b.recheckInterval(NO_RECHECK));
      LockLease held = holder.lock("cut").acquire(Duration.ZERO);
      CompletableFuture<LockLease> next = waiter.lock("cut").acquireAsync(PATIENCE);
      await("the waiter is queued", () -> redis("ZCARD", lockKey("cut") + ":q").equals(1L));

      proxy.cut();
      held.close(); // grants the lock to the waiter and publishes to a client that cannot hear it
      assertThat(redis("HGET", lockKey("cut"), "o")).as("granted while cut").isNotNull();
      long restored = System.nanoTime();
      proxy.restore();

      LockLease got = next.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
      long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restored);
      System.out.println("connection restored to lock held by the waiter: " + tookMs + " ms");
      assertThat(got.isValid()).isTrue();
      got.close();
    }
    awaitNothingLeftOf("cut");
  }
}

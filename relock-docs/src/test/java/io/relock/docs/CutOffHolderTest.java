package io.relock.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.LockLease;
import io.relock.Relock;
import io.relock.testkit.RedisServer;
import io.relock.testkit.TcpProxy;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The second snippet of docs/testing.md: the test kit without JUnit's extension, and a network fault. */
class CutOffHolderTest {

  @Test
  void aHolderCutOffFromRedis_isToldItsLeaseIsLost() throws InterruptedException {
    // snippet:testkit-faults
    try (RedisServer server = RedisServer.start();
         TcpProxy proxy = TcpProxy.start(server.host(), server.port());
         Relock relock = Relock.builder().uri(proxy.uri()).defaultLease(Duration.ofSeconds(1)).build()) {
      LockLease lease = relock.lock("inventory:sku-3").acquire(Duration.ZERO);
      CountDownLatch lost = new CountDownLatch(1);
      lease.onLost(lost::countDown);

      proxy.cut();                                              // resets the connections, refuses new ones
      assertThat(lost.await(30, TimeUnit.SECONDS)).isTrue();    // told once the lease ran out unrenewed
      assertThat(lease.isValid()).isFalse();
      proxy.restore();
    }
    // end:testkit-faults
  }
}

package io.relock.docs;

// snippet:testkit-junit
import static org.assertj.core.api.Assertions.assertThat;

import io.relock.DistributedLock;
import io.relock.LockLease;
import io.relock.Relock;
import io.relock.testkit.RedisExtension;
import io.relock.testkit.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class InventoryLockTest {

  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();   // one redis-server for the class, on a free port

  @Test
  void aSecondLease_waitsForTheFirst(RedisServer server) {
    try (Relock relock = Relock.connect(server.uri())) {
      DistributedLock lock = relock.lock("inventory:sku-1");
      try (LockLease first = lock.acquire(Duration.ZERO)) {
        assertThat(lock.tryAcquire(Duration.ofMillis(100))).isEmpty();   // leases are not re-entrant
      }
      try (LockLease second = lock.acquire(Duration.ZERO)) {
        assertThat(second.isValid()).isTrue();
      }
    }
  }

  @Test
  void tokensKeepRising_whenRedisRestartsWithoutItsData(RedisServer server) {
    try (Relock relock = Relock.connect(server.uri())) {
      DistributedLock lock = relock.lock("inventory:sku-2");
      long before;
      try (LockLease lease = lock.acquire(Duration.ZERO)) {
        before = lease.fencingToken();
      }
      server.restart();                                        // same port; without persistence, no data
      try (LockLease lease = lock.acquire(Duration.ofSeconds(10))) {
        assertThat(lease.fencingToken()).isGreaterThan(before);
      }
    }
  }
}
// end:testkit-junit

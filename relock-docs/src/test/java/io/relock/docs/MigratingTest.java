package io.relock.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.DistributedLock;
import io.relock.LockLease;
import io.relock.LockTimeoutException;
import io.relock.Relock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The snippets of docs/migrating.md. */
class MigratingTest {

  private final Relock relock = Relock.connect(DocsRedis.uri());
  private final List<String> shipped = new ArrayList<>();

  @AfterEach
  void close() {
    relock.close();
  }

  private void ship(String orderId) {
    shipped.add(orderId);
  }

  private void ship(String orderId, long fencingToken) {
    shipped.add(orderId + "@" + fencingToken);
  }

  @Test
  void theLockInterface_staysAsItWas() throws InterruptedException {
    String orderId = "o-9";
    // snippet:migrate-lock
    Lock lock = relock.lock("orders:" + orderId);      // was: redisson.getLock(...) or registry.obtain(...)
    if (lock.tryLock(5, TimeUnit.SECONDS)) {
      try {
        ship(orderId);
      } finally {
        lock.unlock();
      }
    }
    // end:migrate-lock
    assertThat(shipped).containsExactly("o-9");
  }

  @Test
  void aFixedLeaseTime_becomesALease() {
    String orderId = "o-10";
    // snippet:migrate-lease
    DistributedLock lock = relock.lock("orders:" + orderId);
    // Redisson's tryLock(5, 30, SECONDS): wait up to 5 s, then hold for 30 s unless released sooner.
    try (LockLease lease = lock.acquire(Duration.ofSeconds(5), Duration.ofSeconds(30))) {
      ship(orderId, lease.fencingToken());            // and hand the token to what the lock protects
    } catch (LockTimeoutException busy) {
      // where tryLock returned false
    }
    // end:migrate-lease
    assertThat(shipped).singleElement().asString().startsWith("o-10@");
  }
}

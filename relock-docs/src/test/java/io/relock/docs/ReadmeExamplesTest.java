package io.relock.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.DistributedLock;
import io.relock.LockLease;
import io.relock.Relock;
import java.time.Duration;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The two examples of README.md. */
class ReadmeExamplesTest {

  private static final Logger log = LoggerFactory.getLogger(ReadmeExamplesTest.class);

  record Invoice(int id, long amountCents) {}

  /** A store that refuses a write whose fencing token is below the newest it has accepted. */
  static final class Invoices {
    private long newestToken;
    private Invoice saved;

    synchronized void save(Invoice invoice, long fencingToken) {
      if (fencingToken < newestToken) {
        throw new IllegalStateException("stale fencing token " + fencingToken + " < " + newestToken);
      }
      newestToken = fencingToken;
      saved = invoice;
    }
  }

  private final Invoices invoices = new Invoices();
  private final Invoice invoice = new Invoice(42, 12_900);
  private int recomputed;

  private void recompute() {
    recomputed++;
  }

  @Test
  void aLeaseWithItsFencingToken() {
    String redisUri = DocsRedis.uri();
    // snippet:readme-lease
    try (Relock relock = Relock.connect(redisUri)) {            // e.g. "redis://localhost:6379"
      DistributedLock lock = relock.lock("invoice:42");
      Duration wait = Duration.ofSeconds(5);                   // how long to wait for the lock, not to hold it

      // A lease: held until closed, from any thread. Its lease time is the default 30 s, which the
      // watchdog renews every 10 s while it is open.
      try (LockLease lease = lock.acquire(wait)) {             // LockTimeoutException if still held after 5 s
        lease.onLost(() -> log.warn("lost invoice:42; the store refuses our writes from here on"));
        invoices.save(invoice, lease.fencingToken());          // the store refuses tokens older than its newest
      }                                                        // close() releases; LockLostException if lost
    }
    // end:readme-lease
    assertThat(invoices.saved).isEqualTo(invoice);
    assertThat(invoices.newestToken).isPositive();
  }

  @Test
  void theLockStyle() {
    try (Relock relock = Relock.connect(DocsRedis.uri())) {
      // snippet:readme-lock
      Lock lock = relock.lock("invoice:42");   // a java.util.concurrent.locks.Lock: owned by this thread, re-entrant
      lock.lock();
      try {
        recompute();
      } finally {
        lock.unlock();
      }
      // end:readme-lock
      assertThat(relock.lock("invoice:42").isLocked()).isFalse();
    }
    assertThat(recomputed).isEqualTo(1);
  }
}

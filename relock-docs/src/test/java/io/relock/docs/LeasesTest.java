package io.relock.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.DistributedLock;
import io.relock.LockLease;
import io.relock.LockLostException;
import io.relock.Relock;
import io.relock.testkit.Await;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The snippets of docs/leases-and-fencing.md. */
class LeasesTest {

  private final Relock relock = Relock.connect(DocsRedis.uri());
  private final FencedLedger ledger = new FencedLedger();
  private int reports;

  @AfterEach
  void close() {
    relock.close();
  }

  private void writeReport(long fencingToken) {
    reports++;
  }

  @Test
  void theWaysToTakeALease() throws Exception {
    // snippet:lease-ways
    DistributedLock lock = relock.lock("report:2026-11");

    // Wait up to 5 s; the default lease (30 s), renewed by the watchdog until closed.
    try (LockLease lease = lock.acquire(Duration.ofSeconds(5))) {
      writeReport(lease.fencingToken());
    }

    // One attempt, no waiting; a fixed lease of 2 minutes, never renewed: Redis frees the lock
    // after 2 minutes even if nobody closes the lease.
    try (LockLease lease = lock.acquire(Duration.ZERO, Duration.ofMinutes(2))) {
      writeReport(lease.fencingToken());
    }

    // An empty Optional instead of LockTimeoutException when the wait runs out.
    Optional<LockLease> maybe = lock.tryAcquire(Duration.ofMillis(500));
    maybe.ifPresent(lease -> {
      try (lease) {
        writeReport(lease.fencingToken());
      }
    });

    // No thread waits; the future completes on a relock thread. Cancelling it withdraws the waiter.
    CompletableFuture<LockLease> future = lock.acquireAsync(Duration.ofSeconds(5));
    future.thenAccept(lease -> {
      try (lease) {
        writeReport(lease.fencingToken());
      }
    });
    // end:lease-ways
    future.get(30, TimeUnit.SECONDS);
    Await.until("the async lease was closed", () -> !lock.isLocked());
    assertThat(reports).isEqualTo(4);
  }

  @Test
  void aStaleHolder_isRefusedByTheLedger_andToldAtClose() {
    Duration wait = Duration.ofSeconds(5);
    AtomicBoolean told = new AtomicBoolean();
    // snippet:fencing-at-work
    DistributedLock lock = relock.lock("account:7");

    LockLease first = lock.acquire(wait);
    first.onLost(() -> told.set(true));
    long seen = ledger.read(first.fencingToken());

    // Here the first holder would pause (a long GC, a stopped VM) past its lease. An operator's
    // forced unlock stands in for that: either way, the lock is no longer the first holder's.
    lock.forceUnlock();

    try (LockLease second = lock.acquire(wait)) {          // a larger token than first's
      long balance = ledger.read(second.fencingToken());
      ledger.write(balance + 10, second.fencingToken());
    }

    try {
      ledger.write(seen - 5, first.fencingToken());        // the first holder resumes and writes
    } catch (StaleTokenException refused) {
      // refused: a newer holder has used the ledger since
    }
    try {
      first.close();
    } catch (LockLostException lost) {
      // close() tells the first holder too; its onLost listeners have run
    }
    // end:fencing-at-work
    assertThat(ledger.read(Long.MAX_VALUE)).isEqualTo(10);
    assertThat(told).isTrue();
    assertThatThrownBy(() -> ledger.write(0, 1)).isInstanceOf(StaleTokenException.class);
  }
}

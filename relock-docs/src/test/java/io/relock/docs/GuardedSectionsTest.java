package io.relock.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.LockLostException;
import io.relock.Relock;
import io.relock.testkit.Await;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Test;

/** The snippets of docs/guarded-sections.md, run against a real redis-server. */
class GuardedSectionsTest {

  // snippet:guarded-section
  static long addInterest(Relock relock, FencedLedger ledger) throws Exception {
    // Waits up to 5 s for the lock, runs the task on this thread, and releases the lock however
    // the task ends. If the lock is lost meanwhile, this thread is interrupted.
    return relock.lock("savings").callLocked(Duration.ofSeconds(5), lease -> {
      long balance = ledger.read(lease.fencingToken());
      Thread.sleep(50); // slow work: a loss interrupts it here
      ledger.write(balance + balance / 100, lease.fencingToken()); // refused if a newer holder came by
      return balance;
    });
  }
  // end:guarded-section

  @Test
  void theFirstExample_addsInterestUnderTheLock_andReleasesIt() throws Exception {
    try (Relock relock = Relock.connect(DocsRedis.uri())) {
      FencedLedger ledger = new FencedLedger();
      assertThat(addInterest(relock, ledger)).isZero();
      assertThat(relock.lock("savings").isLocked()).isFalse();
    }
  }

  interface Reports {
    void build() throws InterruptedException;
  }

  // snippet:guarded-loss
  static String nightlyReport(Relock relock, Reports reports) {
    try {
      relock.lock("nightly-report").runLocked(Duration.ZERO, () -> {
        try {
          reports.build(); // blocks in interruptible calls
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt(); // stopped: the section reports the loss
        }
      });
      return "built";
    } catch (LockLostException e) {
      // Stopped, or it ran on past the loss: what it wrote after the loss is what the fencing
      // check let through. The section's interrupt has been cleared from this thread.
      return "stopped: " + e.getMessage();
    }
  }
  // end:guarded-loss

  @Test
  void theLossExample_stopsTheReport_andSaysSo() throws Exception {
    try (Relock holder = Relock.builder().uri(DocsRedis.uri()).defaultLease(Duration.ofMinutes(10)).build();
        Relock operator = Relock.connect(DocsRedis.uri())) {
      CountDownLatch building = new CountDownLatch(1);
      CompletableFuture<String> outcome = CompletableFuture.supplyAsync(() -> nightlyReport(holder, () -> {
        building.countDown();
        Thread.sleep(TimeUnit.MINUTES.toMillis(1));
      }), r -> new Thread(r).start());
      assertThat(building.await(30, TimeUnit.SECONDS)).isTrue();
      assertThat(operator.lock("nightly-report").forceUnlock()).isTrue();
      assertThat(outcome.get(30, TimeUnit.SECONDS)).startsWith("stopped: ").contains("forced unlock");
    }
  }

  // snippet:guarded-async
  static CompletableFuture<Long> refreshPrices(Relock relock, LongFunction<CompletableFuture<Long>> fetchAndStore) {
    // The task only starts the work and returns its future; the lock is held until that future
    // completes. A loss first cancels it and fails the returned future with LockLostException.
    return relock.lock("prices").callLockedAsync(Duration.ofSeconds(1),
        lease -> fetchAndStore.apply(lease.fencingToken()));
  }
  // end:guarded-async

  @Test
  void theAsyncExample_holdsTheLockUntilTheFutureCompletes() throws Exception {
    try (Relock relock = Relock.connect(DocsRedis.uri())) {
      CompletableFuture<Long> stored = new CompletableFuture<>();
      CompletableFuture<Long> refreshed = refreshPrices(relock, token -> stored);
      Await.until("the task runs under the lock", () -> relock.lock("prices").isLocked());
      stored.complete(42L);
      assertThat(refreshed.get(30, TimeUnit.SECONDS)).isEqualTo(42L);
      assertThat(relock.lock("prices").isLocked()).isFalse();
    }
  }
}

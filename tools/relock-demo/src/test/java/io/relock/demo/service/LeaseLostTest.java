package io.relock.demo.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.DistributedLock;
import io.relock.LockLease;
import io.relock.Relock;
import io.relock.demo.Buyer;
import io.relock.demo.guard.RelockGuard;
import io.relock.demo.store.ItemView;
import io.relock.demo.store.RedisInventory;
import io.relock.demo.store.StockRead;
import io.relock.testkit.RedisExtension;
import io.relock.testkit.RedisServer;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A purchase whose lease is lost between its read and its write must not write. */
class LeaseLostTest {

  @RegisterExtension static final RedisExtension redis = new RedisExtension();

  @Test
  void purchase_whoseLockWasTakenOverAfterItsRead_isRefusedByTheFence_andReportsTheLostLease(RedisServer server)
      throws Exception {
    CountDownLatch hasRead = new CountDownLatch(1);
    CountDownLatch mayWrite = new CountDownLatch(1);
    ProcessingStep stalled =
        (item, stock) -> {
          hasRead.countDown();
          try {
            mayWrite.await(30, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        };
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try (Buyer stalledBuyer = Buyer.connect(server.uri(), stalled, "stalled");
        Relock rival = Relock.connect(server.uri());
        RedisInventory rivalStore = RedisInventory.connect(server.uri(), Duration.ofSeconds(5))) {
      stalledBuyer.inventory.restock("fenced-1", 5);
      Future<PurchaseResult> purchase = thread.submit(() -> stalledBuyer.buy("fenced-1", "relock"));
      assertThat(hasRead.await(30, TimeUnit.SECONDS)).isTrue();

      // The stalled buyer's lease is lost (an operator force-unlocks, as a long pause would
      // expire it); a rival takes the lock and reads with its newer token.
      DistributedLock lock = rival.lock(RelockGuard.lockName("fenced-1"));
      assertThat(lock.forceUnlock()).isTrue();
      PurchaseResult result;
      long newerToken;
      try (LockLease newer = lock.acquire(Duration.ofSeconds(10))) {
        newerToken = newer.fencingToken();
        assertThat(rivalStore.readStock("fenced-1", OptionalLong.of(newerToken)).status())
            .isEqualTo(StockRead.Status.READ);
        mayWrite.countDown();
        result = purchase.get(30, TimeUnit.SECONDS);
      }

      assertThat(result.status()).isEqualTo(PurchaseResult.Status.STALE_TOKEN);
      assertThat(result.fencingToken().getAsLong()).isLessThan(newerToken);
      assertThat(result.newestToken()).isEqualTo(newerToken);
      assertThat(result.releaseProblem()).as("the lost lease is reported").isPresent();
      ItemView item = rivalStore.view("fenced-1").orElseThrow();
      assertThat(item.stock()).isEqualTo(5);
      assertThat(item.sold()).isZero();
    } finally {
      thread.shutdownNow();
    }
  }
}

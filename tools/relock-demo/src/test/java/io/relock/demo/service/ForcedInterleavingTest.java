package io.relock.demo.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.demo.Buyer;
import io.relock.demo.Eventually;
import io.relock.demo.guard.RelockGuard;
import io.relock.demo.store.ItemView;
import io.relock.testkit.RedisExtension;
import io.relock.testkit.RedisServer;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The race the demo shows under load, forced deterministically: two buyers with separate
 * connections (as two service processes have) go for the last unit, and each strategy is made to
 * face the interleaving "both read before either writes".
 */
class ForcedInterleavingTest {

  @RegisterExtension static final RedisExtension redis = new RedisExtension();

  private static final Duration GENEROUS = Duration.ofSeconds(30);

  private final ExecutorService threads = Executors.newCachedThreadPool();

  @AfterEach
  void stopThreads() {
    threads.shutdownNow();
  }

  @Test
  void none_twoBuyersBothReadTheLastUnitBeforeEitherWrites_bothGetOrders_oversold(RedisServer server)
      throws Exception {
    CyclicBarrier bothHaveRead = new CyclicBarrier(2);
    ProcessingStep meetAfterRead = (item, stock) -> await(bothHaveRead);
    try (Buyer a = Buyer.connect(server.uri(), meetAfterRead, "a");
        Buyer b = Buyer.connect(server.uri(), meetAfterRead, "b")) {
      a.inventory.restock("none-1", 1);

      Future<PurchaseResult> first = threads.submit(() -> a.buy("none-1", "none"));
      Future<PurchaseResult> second = threads.submit(() -> b.buy("none-1", "none"));

      assertThat(first.get(30, TimeUnit.SECONDS).status()).isEqualTo(PurchaseResult.Status.SOLD);
      assertThat(second.get(30, TimeUnit.SECONDS).status()).isEqualTo(PurchaseResult.Status.SOLD);
      ItemView item = a.inventory.view("none-1").orElseThrow();
      assertThat(item.sold()).isEqualTo(2);
      assertThat(item.oversold()).isEqualTo(1);
      assertThat(item.stock()).as("both wrote 1 - 1: one update was lost").isZero();
    }
  }

  @Test
  void relock_secondBuyerQueuesWhileFirstIsBetweenReadAndWrite_soldExactlyTheStock(RedisServer server)
      throws Exception {
    CountDownLatch firstHasRead = new CountDownLatch(1);
    CountDownLatch firstMayWrite = new CountDownLatch(1);
    CountDownLatch secondHasRead = new CountDownLatch(1);
    ProcessingStep holdAfterRead =
        (item, stock) -> {
          firstHasRead.countDown();
          await(firstMayWrite);
        };
    try (Buyer a = Buyer.connect(server.uri(), holdAfterRead, "a");
        Buyer b = Buyer.connect(server.uri(), (item, stock) -> secondHasRead.countDown(), "b")) {
      a.inventory.restock("relock-1", 1);

      Future<PurchaseResult> first = threads.submit(() -> a.buy("relock-1", "relock"));
      assertThat(firstHasRead.await(30, TimeUnit.SECONDS)).isTrue();
      Future<PurchaseResult> second = threads.submit(() -> b.buy("relock-1", "relock"));
      String queue = "relock:{" + RelockGuard.lockName("relock-1") + "}:q";
      Eventually.await(
          "the second buyer waits in the lock's queue", GENEROUS, () -> zcard(server, queue) == 1);
      assertThat(secondHasRead.getCount()).as("the second buyer has not read the stock").isEqualTo(1);
      assertThat(second).isNotDone();

      firstMayWrite.countDown();
      assertThat(first.get(30, TimeUnit.SECONDS).status()).isEqualTo(PurchaseResult.Status.SOLD);
      assertThat(second.get(30, TimeUnit.SECONDS).status()).isEqualTo(PurchaseResult.Status.SOLD_OUT);
      ItemView item = a.inventory.view("relock-1").orElseThrow();
      assertThat(item.sold()).isEqualTo(1);
      assertThat(item.oversold()).isZero();
      assertThat(item.stock()).isZero();
    }
  }

  @Test
  void seedSetnx_holderSlowerThanTheExpiry_isOvertaken_twoBuyersInside_oversold(RedisServer server)
      throws Exception {
    CountDownLatch firstHasRead = new CountDownLatch(1);
    CountDownLatch secondHasRead = new CountDownLatch(1);
    // The first holder works until the second buyer is inside too, which only the recipe's
    // takeover of an "expired" timestamp (200 ms) lets happen.
    ProcessingStep slowHolder =
        (item, stock) -> {
          firstHasRead.countDown();
          await(secondHasRead);
        };
    try (Buyer a = Buyer.connect(server.uri(), slowHolder, "a");
        Buyer b = Buyer.connect(server.uri(), (item, stock) -> secondHasRead.countDown(), "b")) {
      a.inventory.restock("setnx-1", 1);

      Future<PurchaseResult> first = threads.submit(() -> a.buy("setnx-1", "seed-setnx"));
      assertThat(firstHasRead.await(30, TimeUnit.SECONDS)).isTrue();
      Future<PurchaseResult> second = threads.submit(() -> b.buy("setnx-1", "seed-setnx"));

      assertThat(second.get(30, TimeUnit.SECONDS).status()).isEqualTo(PurchaseResult.Status.SOLD);
      assertThat(first.get(30, TimeUnit.SECONDS).status()).isEqualTo(PurchaseResult.Status.SOLD);
      ItemView item = a.inventory.view("setnx-1").orElseThrow();
      assertThat(item.sold()).isEqualTo(2);
      assertThat(item.oversold()).isEqualTo(1);
    }
  }

  private static long zcard(RedisServer server, String key) {
    return (Long) server.execute("ZCARD", key);
  }

  private static void await(CyclicBarrier barrier) {
    try {
      barrier.await(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("the other buyer never reached the same point", e);
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(30, TimeUnit.SECONDS)) {
        throw new AssertionError("the other buyer never got there");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }
}

package io.relock.demo.production;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.relock.testkit.RedisExtension;
import io.relock.testkit.RedisServer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The production strategy's stock in Redis: taken by one script per buyer, each unit's order queued with it. */
class FlashSaleTest {

  @RegisterExtension static final RedisExtension redis = new RedisExtension();

  private static RedisClient client;
  private static StatefulRedisConnection<String, String> connection;

  @BeforeAll
  static void connect() {
    client = RedisClient.create(redis.server().uri());
    connection = client.connect();
  }

  @AfterAll
  static void disconnect() {
    connection.close();
    client.shutdown();
  }

  @Test
  void concurrentBuyers_takeExactlyTheStock_andEachTakenUnitHasOneQueuedOrder() throws Exception {
    FlashSale sale = new FlashSale(connection.sync(), 4);
    long id = sale.start("take-1", 10);
    ExecutorService buyers = Executors.newFixedThreadPool(16);
    List<Future<FlashSale.Take>> takes = new ArrayList<>();
    try {
      for (int i = 0; i < 60; i++) {
        takes.add(buyers.submit(() -> sale.take("take-1", "test")));
      }
      Set<Long> units = new HashSet<>();
      Set<String> orders = new HashSet<>();
      int soldOut = 0;
      for (Future<FlashSale.Take> f : takes) {
        FlashSale.Take take = f.get();
        if (take.status() == FlashSale.Take.Status.QUEUED) {
          units.add(take.unit());
          orders.add(take.orderId());
          assertThat(take.sale()).isEqualTo(id);
          assertThat(take.orderId()).isEqualTo("take-1-" + id + "-" + take.unit());
        } else {
          assertThat(take.status()).isEqualTo(FlashSale.Take.Status.SOLD_OUT);
          soldOut++;
        }
      }
      assertThat(units).containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L);
      assertThat(soldOut).isEqualTo(50);

      RedisCommands<String, String> r = connection.sync();
      Set<String> queued = new HashSet<>();
      for (int p = 0; p < 4; p++) {
        for (StreamMessage<String, String> entry : r.xrange(SaleKeys.stream("take-1", p), io.lettuce.core.Range.create("-", "+"))) {
          OrderEntry order = OrderEntry.of(entry.getId(), entry.getBody());
          assertThat((order.unit() - 1) % 4).as("unit %d's partition", order.unit()).isEqualTo(p);
          queued.add(order.orderId());
        }
      }
      assertThat(queued).isEqualTo(orders);
      FlashSale.SaleView view = sale.view("take-1").orElseThrow();
      assertThat(view.stock()).isZero();
      assertThat(view.taken()).isEqualTo(10);
    } finally {
      buyers.shutdownNow();
    }
  }

  @Test
  void aNewSale_startsAgainFromUnitOne_andKeepsTheEarlierSalesQueuedOrders() {
    FlashSale sale = new FlashSale(connection.sync(), 2);
    long first = sale.start("take-2", 1);
    assertThat(sale.take("take-2", "test").status()).isEqualTo(FlashSale.Take.Status.QUEUED);
    long second = sale.start("take-2", 1);

    FlashSale.Take take = sale.take("take-2", "test");

    assertThat(second).isGreaterThan(first);
    assertThat(take.unit()).isEqualTo(1);
    assertThat(take.sale()).isEqualTo(second);
    assertThat(connection.sync().xlen(SaleKeys.stream("take-2", 0))).as("both sales' orders").isEqualTo(2);
  }

  @Test
  void aTake_ofAnItemWithoutASale_changesNothing() {
    FlashSale sale = new FlashSale(connection.sync(), 2);
    assertThat(sale.take("take-none", "test").status()).isEqualTo(FlashSale.Take.Status.NO_SALE);
    assertThat(connection.sync().exists(SaleKeys.sale("take-none"), SaleKeys.stream("take-none", 0))).isZero();
  }
}

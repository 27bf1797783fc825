package io.relock.demo.load;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.relock.demo.Eventually;
import io.relock.demo.Postgres;
import io.relock.demo.production.FlashSale;
import io.relock.demo.production.OrderLedger;
import io.relock.demo.production.WriterCounters;
import io.relock.testkit.RedisExtension;
import io.relock.testkit.RedisServer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The production strategy's order writers, three processes, under the demo's two faults: the
 * writer that committed a batch is killed before it acknowledges it, and the next owner of that
 * partition is frozen past its lease as it is about to write. Every taken unit ends up stored
 * exactly once, and the frozen writer's write is refused by the database.
 */
class OrderWritersUnderFaultsTest {

  @RegisterExtension static final RedisExtension redis = new RedisExtension();

  private static final String ITEM = "faults-1";
  private static final int UNITS = 40;

  @Test
  void aWriterKilledMidBatch_andOneFrozenPastItsLease_loseNoOrder_storeNoneTwice_andTheFrozenWriteIsRefused(
      RedisServer server) {
    String jdbc = Postgres.jdbcUrl();
    RedisClient client = RedisClient.create(server.uri());
    try (WriterFleet writers = WriterFleet.start(3, server.uri(), jdbc, List.of(ITEM), 2, Duration.ofSeconds(2), true);
        DemoKeys keys = new DemoKeys(server.uri());
        StatefulRedisConnection<String, String> connection = client.connect();
        OrderLedger ledger = OrderLedger.open(jdbc)) {
      FlashSale sale = new FlashSale(connection.sync(), 2);
      long id = sale.start(ITEM, UNITS);
      keys.armFaults(ITEM, 0);
      FaultDirector director = new FaultDirector(writers, jdbc, System.out).start();
      for (int i = 0; i < UNITS + 5; i++) {
        sale.take(ITEM, "test");
      }

      FaultDirector.Faults faults = director.await(Duration.ofSeconds(120));

      assertThat(faults.problems()).isEmpty();
      assertThat(faults.killed()).isNotNull();
      assertThat(faults.paused()).isNotNull().isNotEqualTo(faults.killed());
      assertThat(faults.fenced()).as("the frozen writer's write was refused").isTrue();
      Eventually.await("every taken unit's order stored and acknowledged", Duration.ofSeconds(60),
          () -> ledger.figures(ITEM, id, UNITS).lost() == 0 && keys.pendingOrders(ITEM, 2) == 0);
      assertThat(ledger.figures(ITEM, id, UNITS)).isEqualTo(new OrderLedger.SaleFigures(UNITS, 0, 0, 0));
      WriterCounters counters = keys.writerCounters(ITEM);
      assertThat(counters.claimed()).as("entries taken over from the dead and the frozen writer").isPositive();
      assertThat(counters.alreadyStored()).as("the dead writer's committed batch came again").isPositive();
      assertThat(counters.fencedBatches()).isPositive();

      assertThat(writers.stop()).as("writers that had to be killed at the end").isEmpty();
      assertThat(keys.leftoverLockKeys("production", ITEM)).isEmpty();
      keys.deleteAll(ITEM);
    } finally {
      client.shutdown();
    }
  }
}

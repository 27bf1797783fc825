package io.relock.demo.production;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.demo.Postgres;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The orders' database: idempotent by order id, and each partition's writes fenced by the writer's token. */
class OrderLedgerTest {

  private static OrderEntry order(String item, long unit, String entryId) {
    return new OrderEntry(entryId, item + "-7-" + unit, item, 7, unit, "svc-test", 1_000L + unit);
  }

  @Test
  void aBatchWrittenWithAnOlderTokenThanThePartitionsNewest_isRefused_andChangesNothing() {
    String stream = SaleKeys.stream("fence-1", 0);
    try (OrderLedger ledger = OrderLedger.open(Postgres.jdbcUrl())) {
      ledger.ensurePartition(stream);
      // The successor (token 200) has taken the partition over and written entries 1 to 3.
      OrderLedger.Write successor = ledger.write(stream, 200, "w3",
          List.of(order("fence-1", 1, "1-1"), order("fence-1", 2, "1-2"), order("fence-1", 3, "1-3")));
      assertThat(successor.accepted()).isTrue();

      // The old owner (token 100) wakes and writes what it had read before its pause.
      OrderLedger.Write stale = ledger.write(stream, 100, "w2", List.of(order("fence-1", 1, "1-1"),
          order("fence-1", 4, "1-4")));

      assertThat(stale.accepted()).isFalse();
      assertThat(stale.fence()).isEqualTo(200);
      assertThat(ledger.partitionToken(stream)).hasValue(200);
      assertThat(ledger.appliedThrough(stream)).as("the checkpoint does not go back").isEqualTo("1-3");
      assertThat(ledger.figures("fence-1", 7, 4).persisted()).as("unit 4 was not written by the stale owner")
          .isEqualTo(3);
    }
  }

  @Test
  void theSameTokenWritingAgain_isTheSameLease_andAccepted() {
    String stream = SaleKeys.stream("fence-2", 0);
    try (OrderLedger ledger = OrderLedger.open(Postgres.jdbcUrl())) {
      ledger.ensurePartition(stream);
      assertThat(ledger.write(stream, 300, "w1", List.of(order("fence-2", 1, "2-1"))).accepted()).isTrue();
      assertThat(ledger.write(stream, 300, "w1", List.of(order("fence-2", 2, "2-2"))).accepted()).isTrue();
      assertThat(ledger.write(stream, 301, "w2", List.of(order("fence-2", 3, "2-3"))).accepted()).isTrue();
      assertThat(ledger.figures("fence-2", 7, 3)).isEqualTo(new OrderLedger.SaleFigures(3, 0, 0, 0));
    }
  }

  @Test
  void aRedeliveredBatch_storesNoOrderTwice() {
    String stream = SaleKeys.stream("redeliver-1", 0);
    List<OrderEntry> batch = List.of(order("redeliver-1", 1, "3-1"), order("redeliver-1", 2, "3-2"));
    try (OrderLedger ledger = OrderLedger.open(Postgres.jdbcUrl())) {
      ledger.ensurePartition(stream);
      assertThat(ledger.write(stream, 10, "w1", batch).inserted()).isEqualTo(2);

      // Its writer died after the commit and before the acknowledgement: the next owner gets it again.
      OrderLedger.Write again = ledger.write(stream, 11, "w2", batch);

      assertThat(again.accepted()).isTrue();
      assertThat(again.inserted()).isZero();
      assertThat(ledger.figures("redeliver-1", 7, 2)).isEqualTo(new OrderLedger.SaleFigures(2, 0, 0, 0));
    }
  }

  @Test
  void figures_countUnitsTakenInRedisWithoutAStoredOrderAsLost() {
    String stream = SaleKeys.stream("lost-1", 0);
    try (OrderLedger ledger = OrderLedger.open(Postgres.jdbcUrl())) {
      ledger.ensurePartition(stream);
      ledger.write(stream, 10, "w1", List.of(order("lost-1", 1, "4-1"), order("lost-1", 3, "4-3")));

      assertThat(ledger.figures("lost-1", 7, 3)).isEqualTo(new OrderLedger.SaleFigures(2, 0, 1, 0));
      assertThat(ledger.figures("lost-1", 7, 2)).as("unit 3 was never given out")
          .isEqualTo(new OrderLedger.SaleFigures(2, 0, 1, 1));
    }
  }
}

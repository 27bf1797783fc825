package io.relock.demo.load;

import io.relock.demo.production.OrderLedger;
import io.relock.demo.production.WriterCounters;
import java.util.List;
import java.util.Optional;

/**
 * What the production strategy's run left behind it, beyond the buyers' answers: the database's
 * orders against the units Redis gave out, the writers' counters, the orders still unacknowledged,
 * and the faults.
 *
 * @param taken units taken in Redis, each one's order queued
 * @param database the sale's orders in the database
 * @param writers what the order writers did (batches, claims, refused writes)
 * @param pendingLeft orders read and not acknowledged when the run ended (0 once drained)
 * @param drainMillis from the end of the buyers' load until every taken unit's order was stored
 *     (or the deadline passed)
 * @param faults what the fault director did; empty when the run had no faults
 */
public record ProductionFigures(long taken, OrderLedger.SaleFigures database, WriterCounters writers,
    long pendingLeft, long drainMillis, Optional<FaultDirector.Faults> faults) {

  public long persisted() {
    return database.persisted();
  }

  public long duplicates() {
    return database.duplicates();
  }

  /** Taken units without a stored order, plus stored orders for units Redis never gave out. */
  public long lost() {
    return database.lost() + database.unknown();
  }

  /** What went wrong: an order lost or stored twice, one left in flight, a planned fault that did not happen. */
  public List<String> problems() {
    List<String> problems = new java.util.ArrayList<>();
    if (database.lost() > 0) {
      problems.add(database.lost() + " taken units have no order in the database");
    }
    if (database.unknown() > 0) {
      problems.add(database.unknown() + " orders in the database are for units Redis never gave out");
    }
    if (database.duplicates() > 0) {
      problems.add(database.duplicates() + " units were stored as more than one order");
    }
    if (pendingLeft > 0) {
      problems.add(pendingLeft + " orders were still unacknowledged on the streams");
    }
    faults.ifPresent(f -> f.problems().forEach(p -> problems.add("fault: " + p)));
    return problems;
  }
}

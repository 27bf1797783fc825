package io.relock.demo.load;

import io.relock.demo.production.OrderDatabase;
import io.relock.demo.production.OrderLedger;
import java.time.Duration;
import java.util.List;

/**
 * The production strategy's back end, as the demo runs it: the orders' database (with its tables)
 * and the order writer processes. Started next to the service processes; its writers are stopped
 * once the production run has drained, the database at {@link #close()}.
 */
public final class OrderPipeline implements AutoCloseable {

  /**
   * The writers' partition lease: a writer that stops renewing loses its partitions after this
   * long. Short, so that the demo's takeovers are quick; long enough for a renewal (every third of
   * it) to survive a busy two-core machine.
   */
  public static final Duration WRITER_LEASE = Duration.ofSeconds(2);

  private final OrderDatabase database;
  private final WriterFleet writers;
  private boolean writersStopped;

  private OrderPipeline(OrderDatabase database, WriterFleet writers) {
    this.database = database;
    this.writers = writers;
  }

  /**
   * Creates the tables in {@code database} if missing and starts the writers.
   *
   * @param database the orders' database, closed here if the writers cannot be started
   * @param redisUri the sales' Redis, or null if the writers should read {@code REDIS_URL}
   * @param writerCount how many writer processes
   * @param items the items whose orders they write
   * @param partitions order streams per item
   * @param faultPoints whether the writers obey the demo's fault plans
   */
  public static OrderPipeline start(OrderDatabase database, String redisUri, int writerCount, List<String> items,
      int partitions, boolean faultPoints) {
    try {
      try (OrderLedger ledger = OrderLedger.open(database.jdbcUrl())) {
        ledger.createTables();
      }
      // With DATABASE_URL the writers read it from the environment they inherit.
      String writerJdbc = database.isEmbedded() ? database.jdbcUrl() : null;
      WriterFleet writers = WriterFleet.start(writerCount, redisUri, writerJdbc, items, partitions, WRITER_LEASE,
          faultPoints);
      return new OrderPipeline(database, writers);
    } catch (RuntimeException e) {
      database.close();
      throw e;
    }
  }

  public OrderDatabase database() {
    return database;
  }

  public WriterFleet writers() {
    return writers;
  }

  /** A new connection to the orders' database; close it. */
  public OrderLedger ledger() {
    return OrderLedger.open(database.jdbcUrl());
  }

  /**
   * Stops the writers (SIGTERM), so that they release their partition locks.
   *
   * @return the writers that did not stop in time and were killed
   */
  public List<String> stopWriters() {
    if (writersStopped) {
      return List.of();
    }
    writersStopped = true;
    return writers.stop();
  }

  /** Kills any writer left and stops an embedded database. */
  @Override
  public void close() {
    try {
      writers.close();
    } finally {
      database.close();
    }
  }
}

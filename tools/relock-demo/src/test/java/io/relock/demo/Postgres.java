package io.relock.demo;

import io.relock.demo.production.OrderDatabase;
import io.relock.demo.production.OrderLedger;
import java.nio.file.Path;

/**
 * One embedded PostgreSQL for the tests of this JVM (it takes seconds to start), with the order
 * tables created; stopped when the JVM exits. Tests keep apart by using their own item ids.
 */
public final class Postgres {

  private static OrderDatabase database;

  private Postgres() {}

  /** The JDBC URL of the shared database, started on first use. */
  public static synchronized String jdbcUrl() {
    if (database == null) {
      database = OrderDatabase.start(null, Path.of("target", "test-postgres.log"));
      Runtime.getRuntime().addShutdownHook(new Thread(database::close, "test-postgres-stop"));
      try (OrderLedger ledger = OrderLedger.open(database.jdbcUrl())) {
        ledger.createTables();
      }
    }
    return database.jdbcUrl();
  }
}

package io.relock.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Locks kept by PostgreSQL, each thread on a session (connection) of its own, as the locks are
 * bound to sessions or transactions:
 * <ul>
 *   <li>{@link Kind#ADVISORY}: {@code pg_advisory_lock(key)}, which waits in the server's lock
 *       queue, and {@code pg_advisory_unlock(key)}; the key is a 64-bit hash of the name. Nothing
 *       is written: the lock lives in the server's memory and goes with the session.
 *   <li>{@link Kind#ROW_LOCK}: the articles' pessimistic recipe, {@code SELECT ... FOR UPDATE} on
 *       the lock's row in a transaction, released by {@code COMMIT}; a waiter queues on the row.
 *   <li>{@link Kind#VERSION}: the articles' optimistic recipe, a version column updated with
 *       compare-and-set: read the row; if it is free (or its holder's lease ran out) {@code UPDATE
 *       ... SET owner, version = version + 1 ... WHERE version = <read>}, and read again when
 *       another client won; if it is held, retry every 10 ms as the Redis recipe does. The lease
 *       ({@code expires_at}) is what frees the lock of a holder that died; the version is a token
 *       that only grows.
 * </ul>
 * The tables are made by the harness ({@link LockServers}) before workers open.
 */
final class PostgresLocks implements LockClient {

  /** Which of the three. */
  enum Kind { ADVISORY, ROW_LOCK, VERSION }

  static final String ROW_TABLE = "relock_bench_row_locks";
  static final String VERSION_TABLE = "relock_bench_version_locks";
  private static final long POLL_MILLIS = 10;

  private final String jdbcUrl;
  private final Kind kind;
  private final long leaseMillis;
  private final List<Connection> connections = new CopyOnWriteArrayList<>();

  PostgresLocks(String jdbcUrl, Kind kind, Duration lease) {
    this.jdbcUrl = jdbcUrl;
    this.kind = kind;
    this.leaseMillis = lease.toMillis();
  }

  @Override
  public BenchLock lock(String name) {
    try {
      Connection c = DriverManager.getConnection(jdbcUrl);
      connections.add(c);
      return switch (kind) {
        case ADVISORY -> advisory(c, name);
        case ROW_LOCK -> rowLock(c, name);
        case VERSION -> version(c, name);
      };
    } catch (SQLException e) {
      throw new IllegalStateException("PostgreSQL: " + e.getMessage(), e);
    }
  }

  private static BenchLock advisory(Connection c, String name) throws SQLException {
    PreparedStatement lock = c.prepareStatement("SELECT pg_advisory_lock(hashtextextended(?, 0))");
    PreparedStatement unlock = c.prepareStatement("SELECT pg_advisory_unlock(hashtextextended(?, 0))");
    lock.setString(1, name);
    unlock.setString(1, name);
    return () -> {
      run(lock);
      return () -> run(unlock);
    };
  }

  private static BenchLock rowLock(Connection c, String name) throws SQLException {
    try (PreparedStatement row = c.prepareStatement("INSERT INTO " + ROW_TABLE + " (name) VALUES (?) ON CONFLICT DO NOTHING")) {
      row.setString(1, name);
      row.executeUpdate();
    }
    c.setAutoCommit(false);
    PreparedStatement select = c.prepareStatement("SELECT name FROM " + ROW_TABLE + " WHERE name = ? FOR UPDATE");
    select.setString(1, name);
    return () -> {
      run(select);
      return () -> {
        try {
          c.commit();
        } catch (SQLException e) {
          throw new IllegalStateException("PostgreSQL: " + e.getMessage(), e);
        }
      };
    };
  }

  private BenchLock version(Connection c, String name) throws SQLException {
    try (PreparedStatement row = c.prepareStatement("INSERT INTO " + VERSION_TABLE + " (name, version) VALUES (?, 0)"
        + " ON CONFLICT DO NOTHING")) {
      row.setString(1, name);
      row.executeUpdate();
    }
    PreparedStatement read = c.prepareStatement("SELECT version, owner IS NULL OR expires_at < clock_timestamp()"
        + " FROM " + VERSION_TABLE + " WHERE name = ?");
    PreparedStatement take = c.prepareStatement("UPDATE " + VERSION_TABLE + " SET owner = ?, version = version + 1,"
        + " expires_at = clock_timestamp() + ? * interval '1 millisecond' WHERE name = ? AND version = ?");
    PreparedStatement give = c.prepareStatement("UPDATE " + VERSION_TABLE + " SET owner = NULL WHERE name = ? AND owner = ?");
    read.setString(1, name);
    take.setLong(2, leaseMillis);
    take.setString(3, name);
    give.setString(1, name);
    return () -> {
      String owner = UUID.randomUUID().toString();
      try {
        while (true) {
          long version;
          boolean free;
          try (ResultSet r = read.executeQuery()) {
            r.next();
            version = r.getLong(1);
            free = r.getBoolean(2);
          }
          if (!free) {
            Thread.sleep(POLL_MILLIS);
            continue;
          }
          take.setString(1, owner);
          take.setLong(4, version);
          if (take.executeUpdate() == 1) {
            break;
          }
          // Another client changed the row since it was read: read it again.
        }
        give.setString(2, owner);
      } catch (SQLException e) {
        throw new IllegalStateException("PostgreSQL: " + e.getMessage(), e);
      }
      return () -> {
        try {
          give.executeUpdate();
        } catch (SQLException e) {
          throw new IllegalStateException("PostgreSQL: " + e.getMessage(), e);
        }
      };
    };
  }

  private static void run(PreparedStatement statement) {
    try {
      statement.execute();
    } catch (SQLException e) {
      throw new IllegalStateException("PostgreSQL: " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    for (Connection c : connections) {
      try {
        c.close();
      } catch (SQLException e) {
        // Closing anyway.
      }
    }
  }
}

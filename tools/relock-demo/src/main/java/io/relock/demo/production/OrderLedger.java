package io.relock.demo.production;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.OptionalLong;

/**
 * The orders' database (PostgreSQL), as the order writers and the demo use it. One instance holds
 * one JDBC connection and is used by one thread.
 *
 * <p>Two tables: {@value #ORDERS} (one row per order, keyed by order id, with the stream entry, the
 * writer and the fencing token that stored it) and {@value #PARTITIONS} (one row per order stream:
 * the newest fencing token that wrote to it, who wrote, and the last entry applied). A batch of
 * orders is stored in one transaction that first raises the partition's row to the writer's token,
 * on condition that no newer token has written there ({@link #write}), then inserts the orders,
 * skipping any already stored.
 */
public final class OrderLedger implements AutoCloseable {

  /** The orders table. */
  public static final String ORDERS = "relock_demo_orders";
  /** The partitions' fence table. */
  public static final String PARTITIONS = "relock_demo_order_partitions";

  private static final String FENCED_UPDATE = "UPDATE " + PARTITIONS
      + " SET token = ?, writer = ?, applied_through = ?, updated_at = clock_timestamp()"
      + " WHERE stream = ? AND token <= ?";
  private static final String INSERT_ORDER = "INSERT INTO " + ORDERS
      + " (order_id, item, sale, unit, stream, entry_id, token, writer, taken_by, accepted_at_ms)"
      + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (order_id) DO NOTHING";

  private final Connection connection;

  private OrderLedger(Connection connection) {
    this.connection = connection;
  }

  /**
   * Connects.
   *
   * @param jdbcUrl {@code jdbc:postgresql://...}
   * @throws IllegalStateException naming the host if the database cannot be reached
   */
  public static OrderLedger open(String jdbcUrl) {
    try {
      return new OrderLedger(DriverManager.getConnection(jdbcUrl));
    } catch (SQLException e) {
      throw new IllegalStateException("cannot connect to PostgreSQL at " + OrderDatabase.describe(jdbcUrl) + ": "
          + e.getMessage(), e);
    }
  }

  /** Creates the two tables if they are missing. */
  public void createTables() {
    run(st -> {
      st.execute("CREATE TABLE IF NOT EXISTS " + ORDERS + " (order_id text PRIMARY KEY, item text NOT NULL,"
          + " sale bigint NOT NULL, unit bigint NOT NULL, stream text NOT NULL, entry_id text NOT NULL,"
          + " token bigint NOT NULL, writer text NOT NULL, taken_by text NOT NULL, accepted_at_ms bigint NOT NULL,"
          + " stored_at timestamptz NOT NULL DEFAULT clock_timestamp())");
      st.execute("CREATE INDEX IF NOT EXISTS " + ORDERS + "_sale ON " + ORDERS + " (item, sale)");
      st.execute("CREATE TABLE IF NOT EXISTS " + PARTITIONS + " (stream text PRIMARY KEY, token bigint NOT NULL,"
          + " writer text, applied_through text, updated_at timestamptz)");
    });
  }

  /** Drops the two tables. */
  public void dropTables() {
    run(st -> st.execute("DROP TABLE IF EXISTS " + ORDERS + ", " + PARTITIONS));
  }

  /** Makes sure {@code stream} has its fence row (token 0 when new). */
  public void ensurePartition(String stream) {
    try (PreparedStatement st = connection.prepareStatement(
        "INSERT INTO " + PARTITIONS + " (stream, token) VALUES (?, 0) ON CONFLICT (stream) DO NOTHING")) {
      connection.setAutoCommit(true);
      st.setString(1, stream);
      st.executeUpdate();
    } catch (SQLException e) {
      throw failed("cannot register partition " + stream, e);
    }
  }

  /**
   * Stores {@code orders} of {@code stream}, fenced by {@code token}: in one transaction, the
   * partition's row takes this token, writer and last entry only if its token is not newer
   * ({@code token <= ?}: an equal token is the same lease writing again); if it is newer, nothing is
   * written. The orders are then inserted, each skipped if its order id is already stored. The
   * row's update also locks it until the commit, so two writers of one partition never interleave.
   *
   * @param stream the partition's stream
   * @param token the writer's fencing token for the partition's lock
   * @param writer the writer's name
   * @param orders the batch, in stream order, not empty
   * @return whether the fence let the batch in, and how many orders were new
   */
  public Write write(String stream, long token, String writer, List<OrderEntry> orders) {
    if (orders.isEmpty()) {
      throw new IllegalArgumentException("an empty batch for " + stream);
    }
    try {
      connection.setAutoCommit(false);
      try {
        try (PreparedStatement fence = connection.prepareStatement(FENCED_UPDATE)) {
          fence.setLong(1, token);
          fence.setString(2, writer);
          fence.setString(3, orders.get(orders.size() - 1).entryId());
          fence.setString(4, stream);
          fence.setLong(5, token);
          if (fence.executeUpdate() == 0) {
            connection.rollback();
            connection.setAutoCommit(true);
            return new Write(false, 0, partitionToken(stream).orElse(0));
          }
        }
        int inserted = 0;
        try (PreparedStatement insert = connection.prepareStatement(INSERT_ORDER)) {
          for (OrderEntry order : orders) {
            insert.setString(1, order.orderId());
            insert.setString(2, order.item());
            insert.setLong(3, order.sale());
            insert.setLong(4, order.unit());
            insert.setString(5, stream);
            insert.setString(6, order.entryId());
            insert.setLong(7, token);
            insert.setString(8, writer);
            insert.setString(9, order.takenBy());
            insert.setLong(10, order.acceptedAtMillis());
            insert.addBatch();
          }
          for (int count : insert.executeBatch()) {
            inserted += Math.max(0, count);
          }
        }
        connection.commit();
        return new Write(true, inserted, token);
      } catch (SQLException | RuntimeException e) {
        rollbackQuietly();
        throw e;
      }
    } catch (SQLException e) {
      throw failed("cannot store " + orders.size() + " orders of " + stream, e);
    }
  }

  /** The newest token that has written to {@code stream}, if it has a fence row. */
  public OptionalLong partitionToken(String stream) {
    try (PreparedStatement st = connection.prepareStatement("SELECT token FROM " + PARTITIONS + " WHERE stream = ?")) {
      st.setString(1, stream);
      try (ResultSet r = st.executeQuery()) {
        return r.next() ? OptionalLong.of(r.getLong(1)) : OptionalLong.empty();
      }
    } catch (SQLException e) {
      throw failed("cannot read the fence of " + stream, e);
    }
  }

  /** The last entry id applied to {@code stream}'s row, or null if none. */
  public String appliedThrough(String stream) {
    try (PreparedStatement st = connection.prepareStatement(
        "SELECT applied_through FROM " + PARTITIONS + " WHERE stream = ?")) {
      st.setString(1, stream);
      try (ResultSet r = st.executeQuery()) {
        return r.next() ? r.getString(1) : null;
      }
    } catch (SQLException e) {
      throw failed("cannot read the checkpoint of " + stream, e);
    }
  }

  /**
   * What the database holds of one sale, against the units Redis says were taken.
   *
   * @param item the item
   * @param sale the sale's id
   * @param taken units taken in Redis (each one's order was queued)
   */
  public SaleFigures figures(String item, long sale, long taken) {
    try (PreparedStatement st = connection.prepareStatement("SELECT count(*), count(DISTINCT unit),"
        + " count(DISTINCT unit) FILTER (WHERE unit BETWEEN 1 AND ?) FROM " + ORDERS + " WHERE item = ? AND sale = ?")) {
      st.setLong(1, taken);
      st.setString(2, item);
      st.setLong(3, sale);
      try (ResultSet r = st.executeQuery()) {
        r.next();
        long rows = r.getLong(1);
        long units = r.getLong(2);
        long takenUnits = r.getLong(3);
        return new SaleFigures(rows, rows - units, taken - takenUnits, units - takenUnits);
      }
    } catch (SQLException e) {
      throw failed("cannot count the orders of " + item, e);
    }
  }

  @Override
  public void close() {
    try {
      connection.close();
    } catch (SQLException e) {
      // Closing: nothing to save.
    }
  }

  /**
   * A batch's fate.
   *
   * @param accepted whether the fence let it in; false: nothing was written
   * @param inserted orders newly stored (the others were stored already)
   * @param fence the partition's token after the attempt (the newer token, when refused)
   */
  public record Write(boolean accepted, int inserted, long fence) {}

  /**
   * A sale's orders in the database.
   *
   * @param persisted order rows
   * @param duplicates rows beyond one per unit (a unit stored as two orders)
   * @param lost units taken in Redis whose order is not stored
   * @param unknown stored units that Redis never gave out (beyond the units taken)
   */
  public record SaleFigures(long persisted, long duplicates, long lost, long unknown) {}

  private interface Work {
    void on(Statement st) throws SQLException;
  }

  private void run(Work work) {
    try (Statement st = connection.createStatement()) {
      connection.setAutoCommit(true);
      work.on(st);
    } catch (SQLException e) {
      throw failed("schema change failed", e);
    }
  }

  private void rollbackQuietly() {
    try {
      connection.rollback();
    } catch (SQLException e) {
      // The connection is likely gone; the server rolls back on its own.
    }
  }

  private static IllegalStateException failed(String what, SQLException e) {
    return new IllegalStateException(what + ": " + e.getMessage(), e);
  }
}

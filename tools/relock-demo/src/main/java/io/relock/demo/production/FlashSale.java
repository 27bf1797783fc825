package io.relock.demo.production;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.api.sync.RedisCommands;
import io.relock.demo.store.LuaScript;
import io.relock.demo.store.RedisUnavailableException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The production strategy's stock, in Redis: a sale's stock is taken one unit at a time by a
 * script that also queues the unit's order on a stream, so no lock is on the buyer's path and no
 * unit is taken without its order. Thread-safe (one multiplexed connection's commands).
 */
public final class FlashSale {

  private static final LuaScript START_SALE = LuaScript.load(FlashSale.class, "start_sale.lua");
  private static final LuaScript TAKE_UNIT = LuaScript.load(FlashSale.class, "take_unit.lua");
  private static final LuaScript VIEW_SALE = LuaScript.load(FlashSale.class, "view_sale.lua");

  private final RedisCommands<String, String> redis;
  private final int partitions;

  /**
   * @param redis the commands of a connection to the sale's Redis
   * @param partitions the number of order streams (partitions) of each sale, at least 1
   */
  public FlashSale(RedisCommands<String, String> redis, int partitions) {
    if (partitions < 1) {
      throw new IllegalArgumentException("partitions must be at least 1: " + partitions);
    }
    this.redis = redis;
    this.partitions = partitions;
  }

  public int partitions() {
    return partitions;
  }

  /**
   * Starts a new sale of {@code stock} units of {@code item}: a new sale id, nothing taken, an
   * empty fault plan. Orders of an earlier sale still queued stay queued.
   *
   * @return the new sale's id
   */
  public long start(String item, long stock) {
    if (stock < 0) {
      throw new IllegalArgumentException("stock must not be negative: " + stock);
    }
    List<String> keys = new ArrayList<>();
    keys.add(SaleKeys.sale(item));
    keys.add(SaleKeys.faults(item));
    keys.add(SaleKeys.writerCounters(item));
    keys.addAll(SaleKeys.streams(item, partitions));
    Object sale = call(false, () -> START_SALE.runValue(redis, keys.toArray(String[]::new), Long.toString(stock),
        SaleKeys.GROUP));
    return Long.parseLong(sale.toString());
  }

  /** Takes one unit of {@code item} for {@code instance} and queues its order. */
  public Take take(String item, String instance) {
    List<String> keys = new ArrayList<>(partitions + 1);
    keys.add(SaleKeys.sale(item));
    keys.addAll(SaleKeys.streams(item, partitions));
    List<Object> reply = call(true, () -> TAKE_UNIT.run(redis, keys.toArray(String[]::new), item, instance));
    long code = (Long) reply.get(0);
    if (code == 1) {
      return new Take(Take.Status.QUEUED, Long.parseLong(reply.get(3).toString()), (Long) reply.get(1),
          (Long) reply.get(2), ((Long) reply.get(4)).intValue(), reply.get(5).toString(), reply.get(6).toString());
    }
    if (code == 0) {
      return new Take(Take.Status.SOLD_OUT, Long.parseLong(reply.get(1).toString()), 0, 0, -1, null, null);
    }
    return new Take(Take.Status.NO_SALE, 0, 0, 0, -1, null, null);
  }

  /** The sale of {@code item} as it stands in Redis, if there is one. */
  public Optional<SaleView> view(String item) {
    List<Object> reply = call(false, () -> VIEW_SALE.run(redis, new String[] {SaleKeys.sale(item)}));
    if (reply.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new SaleView(item, (Long) reply.get(0), (Long) reply.get(1), (Long) reply.get(2),
        Long.parseLong(reply.get(3).toString()), ((Long) reply.get(4)).intValue()));
  }

  /**
   * One buyer's take.
   *
   * @param status what happened
   * @param sale the id of the sale taken from (or found sold out)
   * @param unit the unit's number in the sale, 1 to the stock, when {@link Status#QUEUED}
   * @param stockLeft the stock after the take
   * @param partition the partition the order was queued on
   * @param entryId the order's stream entry id
   * @param orderId the order's id: {@code <item>-<sale>-<unit>}, the key the database stores it by
   */
  public record Take(Status status, long sale, long unit, long stockLeft, int partition, String entryId,
      String orderId) {

    /** The outcomes of a take. */
    public enum Status {
      /** One unit taken, its order queued. */
      QUEUED,
      /** No unit left; nothing changed. */
      SOLD_OUT,
      /** The item has no sale. */
      NO_SALE
    }
  }

  /**
   * A sale in Redis.
   *
   * @param item the item
   * @param stock units left
   * @param initialStock units the sale started with
   * @param taken units taken, each with its order queued ({@code initialStock - stock})
   * @param sale the sale's id
   * @param partitions its number of order streams
   */
  public record SaleView(String item, long stock, long initialStock, long taken, long sale, int partitions) {}

  private static <T> T call(boolean isWrite, Supplier<T> command) {
    try {
      return command.get();
    } catch (RedisCommandExecutionException e) {
      throw new RedisUnavailableException("Redis refused the command: " + e.getMessage(), e, false);
    } catch (RedisCommandTimeoutException e) {
      throw new RedisUnavailableException("Redis did not answer in time: " + e.getMessage(), e, isWrite);
    } catch (RedisException e) {
      boolean neverSent = String.valueOf(e.getMessage()).contains("not connected");
      throw new RedisUnavailableException("Redis is unreachable: " + e.getMessage(), e, isWrite && !neverSent);
    }
  }
}

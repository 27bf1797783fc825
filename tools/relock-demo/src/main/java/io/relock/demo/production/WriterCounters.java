package io.relock.demo.production;

import io.lettuce.core.api.sync.RedisCommands;
import java.util.Map;

/**
 * What the order writers did for one sale, added up across writer processes in a Redis hash
 * ({@link SaleKeys#writerCounters}), which a new sale clears.
 *
 * @param batches batches the fence let in
 * @param stored orders newly stored
 * @param alreadyStored orders of accepted batches that were stored already (redelivered after a
 *     writer died between its commit and its acknowledgement), skipped by order id
 * @param claimed stream entries a new owner of a partition claimed from an earlier one (XAUTOCLAIM):
 *     delivered a second time
 * @param fencedBatches batches the fence refused: their writer's token was older than the
 *     partition's newest
 * @param fencedOrders orders in those batches
 */
public record WriterCounters(long batches, long stored, long alreadyStored, long claimed, long fencedBatches,
    long fencedOrders) {

  static final String BATCHES = "batches";
  static final String STORED = "stored";
  static final String ALREADY_STORED = "already_stored";
  static final String CLAIMED = "claimed";
  static final String FENCED_BATCHES = "fenced_batches";
  static final String FENCED_ORDERS = "fenced_orders";

  /** The counters of {@code item}'s current sale. */
  public static WriterCounters read(RedisCommands<String, String> redis, String item) {
    Map<String, String> all = redis.hgetall(SaleKeys.writerCounters(item));
    return new WriterCounters(get(all, BATCHES), get(all, STORED), get(all, ALREADY_STORED), get(all, CLAIMED),
        get(all, FENCED_BATCHES), get(all, FENCED_ORDERS));
  }

  static void add(RedisCommands<String, String> redis, String item, String counter, long amount) {
    if (amount != 0) {
      redis.hincrby(SaleKeys.writerCounters(item), counter, amount);
    }
  }

  private static long get(Map<String, String> all, String name) {
    String value = all.get(name);
    return value == null ? 0 : Long.parseLong(value);
  }
}

package io.relock.demo.production;

import io.relock.demo.store.RedisInventory;
import java.util.ArrayList;
import java.util.List;

/**
 * The names the production strategy uses in Redis and for its locks. Every key of an item carries
 * the item id as hash tag, so that the take script's keys (sale hash and streams) share one Redis
 * Cluster slot.
 *
 * <ul>
 *   <li>{@code relock-demo:sale:{<id>}}: the sale (hash: stock, initial, taken, sale, partitions)
 *   <li>{@code relock-demo:sale:{<id>}:orders:p<n>}: the order stream of partition n, consumer
 *       group {@value #GROUP}
 *   <li>{@code relock-demo:sale:{<id>}:writers}: the order writers' counters (hash)
 *   <li>{@code relock-demo:sale:{<id>}:faults}: the demo's fault plan for the sale (hash)
 *   <li>lock {@code orders:<id>:p<n>}: ownership of partition n (relock's keys {@code
 *       relock:{orders:<id>:p<n>}...})
 * </ul>
 */
public final class SaleKeys {

  /** The consumer group of every order stream: the order writers. */
  public static final String GROUP = "order-writers";

  /** The channel on which a service announces a new sale (message: the item id). */
  public static final String SALES_CHANNEL = RedisInventory.KEY_PREFIX + "sales";

  private SaleKeys() {}

  /** The sale hash of {@code item}. */
  public static String sale(String item) {
    requireValidItem(item);
    return RedisInventory.KEY_PREFIX + "sale:{" + item + "}";
  }

  /** The order stream of {@code partition} (0-based). */
  public static String stream(String item, int partition) {
    return sale(item) + ":orders:p" + partition;
  }

  /** The order streams of {@code item}, in partition order. */
  public static List<String> streams(String item, int partitions) {
    List<String> streams = new ArrayList<>(partitions);
    for (int p = 0; p < partitions; p++) {
      streams.add(stream(item, p));
    }
    return streams;
  }

  /** The order writers' counters of {@code item}'s sale. */
  public static String writerCounters(String item) {
    return sale(item) + ":writers";
  }

  /** The demo's fault plan for {@code item}'s sale. */
  public static String faults(String item) {
    return sale(item) + ":faults";
  }

  /** The relock lock that a writer holds while it owns {@code partition} of {@code item}. */
  public static String partitionLock(String item, int partition) {
    requireValidItem(item);
    return "orders:" + item + ":p" + partition;
  }

  private static void requireValidItem(String item) {
    if (!RedisInventory.isValidItemId(item)) {
      throw new IllegalArgumentException("item id must be 1 to 64 of A-Z a-z 0-9 . _ -: " + item);
    }
  }
}

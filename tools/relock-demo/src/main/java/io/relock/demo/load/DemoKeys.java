package io.relock.demo.load;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.relock.demo.guard.RelockGuard;
import io.relock.demo.guard.SeedSetnxGuard;
import io.relock.demo.production.FaultPoints;
import io.relock.demo.production.SaleKeys;
import io.relock.demo.production.WriterCounters;
import io.relock.demo.store.RedisInventory;
import java.util.ArrayList;
import java.util.List;

/**
 * The demo's view of Redis keys: the lock keys a strategy left behind after a run, and the cleanup
 * of everything the demo created.
 *
 * <p>What counts as left behind, for an item:
 *
 * <ul>
 *   <li>{@code none}: nothing, it has no lock.
 *   <li>{@code seed-setnx}: the recipe's lock key {@code relock-demo:setnx-lock:item:<id>}. It has no
 *       TTL, so once its release was skipped it stays until some buyer takes it over.
 *   <li>{@code relock}: the lock hash {@code relock:{item:<id>}} and the wait queue keys {@code
 *       ...:q} and {@code ...:qi}. The fence key {@code ...:fence} holds the last fencing token and is
 *       kept on purpose (tokens must keep growing), so it is not counted.
 *   <li>{@code production}: the order writers' partition locks {@code relock:{orders:<id>:p<n>}}
 *       and their queue keys, the fence keys again not counted. Checked once the writers have
 *       stopped: a running writer holds its partitions.
 * </ul>
 */
public final class DemoKeys implements AutoCloseable {

  private static final String RELOCK_PREFIX = "relock:";

  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final RedisCommands<String, String> redis;

  public DemoKeys(String redisUri) {
    this.client = RedisClient.create(RedisURI.create(redisUri));
    this.connection = client.connect();
    this.redis = connection.sync();
  }

  /** The lock keys {@code strategy} left behind for {@code item}, by the rules above. */
  public List<String> leftoverLockKeys(String strategy, String item) {
    switch (strategy) {
      case "seed-setnx":
        return scan(escapeGlob(SeedSetnxGuard.lockKey(item)));
      case "relock":
        return withoutFences(scan(relockBase(item) + "*"));
      case "production":
        return withoutFences(scan(partitionLocksBase(item) + "*"));
      default:
        return List.of();
    }
  }

  /** Orders read by a writer and not acknowledged yet, over every partition of {@code item}. */
  public long pendingOrders(String item, int partitions) {
    long pending = 0;
    for (String stream : SaleKeys.streams(item, partitions)) {
      if (redis.exists(stream) == 1) {
        pending += redis.xpending(stream, SaleKeys.GROUP).getCount();
      }
    }
    return pending;
  }

  /** Arms {@code item}'s fault plan on {@code partition} (see {@link FaultPoints}). */
  public void armFaults(String item, int partition) {
    FaultPoints.arm(redis, item, partition);
  }

  /** What the order writers did for {@code item}'s current sale. */
  public WriterCounters writerCounters(String item) {
    return WriterCounters.read(redis, item);
  }

  /** Deletes the lock keys a previous run may have left for {@code item}, so a run starts clean. */
  public void clearLeftovers(String strategy, String item) {
    List<String> keys = leftoverLockKeys(strategy, item);
    if (!keys.isEmpty()) {
      redis.del(keys.toArray(String[]::new));
    }
  }

  /**
   * Deletes every key of {@code item}: store, recipe lock, relock lock, queue and fence; the
   * production sale, its streams and its partition locks.
   */
  public int deleteAll(String item) {
    List<String> keys = new ArrayList<>();
    keys.addAll(scan(escapeGlob(RedisInventory.itemKey(item)) + "*"));
    keys.addAll(scan(escapeGlob(SeedSetnxGuard.lockKey(item))));
    keys.addAll(scan(relockBase(item) + "*"));
    keys.addAll(scan(escapeGlob(SaleKeys.sale(item)) + "*"));
    keys.addAll(scan(partitionLocksBase(item) + "*"));
    if (keys.isEmpty()) {
      return 0;
    }
    return redis.del(keys.toArray(String[]::new)).intValue();
  }

  @Override
  public void close() {
    connection.close();
    client.shutdown();
  }

  private static String relockBase(String item) {
    return escapeGlob(RELOCK_PREFIX + "{" + RelockGuard.lockName(item) + "}");
  }

  /** The prefix of the production strategy's partition locks of {@code item}, escaped for SCAN. */
  private static String partitionLocksBase(String item) {
    return escapeGlob(RELOCK_PREFIX + "{" + SaleKeys.partitionLock(item, 0)).replaceFirst("0$", "");
  }

  private static List<String> withoutFences(List<String> found) {
    List<String> keys = new ArrayList<>();
    for (String key : found) {
      if (!key.endsWith(":fence")) {
        keys.add(key);
      }
    }
    return keys;
  }

  private List<String> scan(String pattern) {
    List<String> keys = new ArrayList<>();
    ScanArgs args = ScanArgs.Builder.matches(pattern).limit(1000);
    KeyScanCursor<String> cursor = redis.scan(args);
    keys.addAll(cursor.getKeys());
    while (!cursor.isFinished()) {
      cursor = redis.scan(ScanCursor.of(cursor.getCursor()), args);
      keys.addAll(cursor.getKeys());
    }
    return keys;
  }

  /** Escapes the glob characters of a key so that SCAN MATCH takes it literally. */
  private static String escapeGlob(String key) {
    StringBuilder out = new StringBuilder(key.length() + 8);
    for (char c : key.toCharArray()) {
      if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
        out.append('\\');
      }
      out.append(c);
    }
    return out.toString();
  }
}

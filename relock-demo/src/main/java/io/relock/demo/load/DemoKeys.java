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
        List<String> keys = new ArrayList<>();
        for (String key : scan(relockBase(item) + "*")) {
          if (!key.endsWith(":fence")) {
            keys.add(key);
          }
        }
        return keys;
      default:
        return List.of();
    }
  }

  /** Deletes the lock keys a previous run may have left for {@code item}, so a run starts clean. */
  public void clearLeftovers(String strategy, String item) {
    List<String> keys = leftoverLockKeys(strategy, item);
    if (!keys.isEmpty()) {
      redis.del(keys.toArray(String[]::new));
    }
  }

  /** Deletes every key of {@code item}: store, recipe lock, relock lock, queue and fence. */
  public int deleteAll(String item) {
    List<String> keys = new ArrayList<>();
    keys.addAll(scan(escapeGlob(RedisInventory.itemKey(item)) + "*"));
    keys.addAll(scan(escapeGlob(SeedSetnxGuard.lockKey(item))));
    keys.addAll(scan(relockBase(item) + "*"));
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

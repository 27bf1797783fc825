package io.relock.demo.guard;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.relock.demo.store.RedisInventory;
import io.relock.demo.store.RedisUnavailableException;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Strategy {@code seed-setnx}: the lock recipe of the flash-sale article (seed 004), kept with its
 * flaws on purpose so that the demo can show them under load. Do not use it.
 *
 * <ul>
 *   <li>The lock is a plain key whose value is "now + expiry" in the client's clock, in ms. The key
 *       has no TTL in Redis: only clients that read the timestamp treat it as expired.
 *   <li>Acquire: {@code SETNX}; if taken, {@code GET} the timestamp, and if it lies in the past,
 *       {@code GETSET} our own and win only if the old value is the one we read. Then try again at
 *       once, until the wait runs out (the article's loop does not pause between tries).
 *   <li>Release: {@code GET}, compare with our value, then {@code DEL}: two commands, not atomic.
 * </ul>
 *
 * The flaws that follow: a holder slower than the expiry is overtaken while it still works (two
 * buyers inside, overselling); a loser's {@code GETSET} overwrites the winner's value, so the
 * winner's release finds a foreign value and leaves the key behind, and with no TTL it stays until
 * someone takes it over; two buyers that compute the same millisecond share a value and can delete
 * each other's lock; the value is compared with clocks of different machines.
 */
public final class SeedSetnxGuard extends HoldingGuard implements AutoCloseable {

  /** Prefix of the recipe's lock keys; the demo counts those left behind. */
  public static final String LOCK_KEY_PREFIX = RedisInventory.KEY_PREFIX + "setnx-lock:";

  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final RedisCommands<String, String> redis;
  private final Duration expiry;
  private final Duration wait;
  private final Duration pollPause;

  /**
   * @param redisUri the Redis of the sale
   * @param commandTimeout deadline of one command
   * @param expiry how far in the future the lock's timestamp is set (the article: 200 ms)
   * @param wait how long a buyer keeps trying (the article: 200 ms)
   * @param pollPause pause between tries; zero spins like the article
   * @throws RedisUnavailableException if Redis cannot be reached now
   */
  public SeedSetnxGuard(String redisUri, Duration commandTimeout, Duration expiry, Duration wait, Duration pollPause) {
    if (expiry.isNegative() || expiry.isZero() || wait.isNegative() || pollPause.isNegative()) {
      throw new IllegalArgumentException(
          "expiry must be positive, wait and pollPause not negative: " + expiry + ", " + wait + ", " + pollPause);
    }
    this.expiry = expiry;
    this.wait = wait;
    this.pollPause = pollPause;
    this.client = RedisClient.create(RedisURI.create(redisUri));
    client.setOptions(RedisInventory.failFastOptions(commandTimeout));
    try {
      this.connection = client.connect();
    } catch (RedisException e) {
      client.shutdown();
      throw new RedisUnavailableException("cannot connect to Redis: " + e.getMessage(), e, false);
    }
    this.redis = connection.sync();
  }

  /** The recipe's lock key for {@code item}. */
  public static String lockKey(String item) {
    return LOCK_KEY_PREFIX + "item:" + item;
  }

  @Override
  public String name() {
    return "seed-setnx";
  }

  @Override
  Hold enter(String item) {
    String key = lockKey(item);
    // The article computes the value once, before trying, and releases with that same value.
    String value = String.valueOf(System.currentTimeMillis() + expiry.toMillis());
    long deadline = System.currentTimeMillis() + wait.toMillis();
    try {
      for (; ; ) {
        if (Boolean.TRUE.equals(redis.setnx(key, value))) {
          return new KeyHold(key, value);
        }
        String current = redis.get(key);
        if (current != null && Long.parseLong(current) < System.currentTimeMillis()) {
          String previous = redis.getset(key, value);
          if (previous != null && previous.equals(current)) {
            return new KeyHold(key, value);
          }
        }
        if (deadline - System.currentTimeMillis() <= 0) {
          throw new LockBusyException(name(), item, wait);
        }
        if (!pollPause.isZero()) {
          LockSupport.parkNanos(pollPause.toNanos());
        }
      }
    } catch (RedisException e) {
      throw new RedisUnavailableException("cannot take the lock of item " + item + ": " + e.getMessage(), e, false);
    }
  }

  @Override
  public void close() {
    connection.close();
    client.shutdown();
  }

  private final class KeyHold implements Hold {
    private final String key;
    private final String value;

    KeyHold(String key, String value) {
      this.key = key;
      this.value = value;
    }

    @Override
    public OptionalLong fencingToken() {
      return OptionalLong.empty();
    }

    @Override
    public Optional<String> release() {
      try {
        String current = redis.get(key);
        if (current != null && value.equals(current)) {
          redis.del(key);
        }
        // Like the article, a foreign value is passed over in silence: that is how keys stay behind.
        return Optional.empty();
      } catch (RedisException e) {
        return Optional.of("unlock error: " + e.getMessage());
      }
    }
  }
}

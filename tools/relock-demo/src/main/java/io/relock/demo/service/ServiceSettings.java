package io.relock.demo.service;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The service's settings, under {@code demo.*} (command line {@code --demo.processing-time=20ms},
 * environment {@code DEMO_PROCESSING_TIME}, or application.properties).
 *
 * @param redisUri the Redis of the store and the locks; default {@code $REDIS_URL}, else localhost
 * @param instance this process's name in orders and logs; default {@code svc-<pid>}
 * @param defaultStrategy the strategy of a purchase without {@code ?strategy=}
 * @param processingTime the simulated work between reading and writing the stock
 * @param lockWait how long a relock purchase waits for the item's lock
 * @param redisTimeout deadline of one store command
 * @param setnx the settings of the article's recipe
 * @param partitions the production strategy's order streams per sale; its order writers must be
 *     started with the same number
 */
@ConfigurationProperties("demo")
public record ServiceSettings(
    @DefaultValue("redis://127.0.0.1:6379") String redisUri,
    String instance,
    @DefaultValue("relock") String defaultStrategy,
    @DefaultValue("10ms") Duration processingTime,
    @DefaultValue("10s") Duration lockWait,
    @DefaultValue("2s") Duration redisTimeout,
    @DefaultValue Setnx setnx,
    @DefaultValue("4") int partitions) {

  public ServiceSettings {
    if (instance == null || instance.isBlank()) {
      instance = "svc-" + ProcessHandle.current().pid();
    }
    requireNotNegative("demo.processing-time", processingTime);
    requireNotNegative("demo.lock-wait", lockWait);
    if (partitions < 1) {
      throw new IllegalArgumentException("demo.partitions must be at least 1: " + partitions);
    }
    if (redisTimeout.isNegative() || redisTimeout.isZero()) {
      throw new IllegalArgumentException("demo.redis-timeout must be positive: " + redisTimeout);
    }
  }

  /**
   * The recipe's knobs; the defaults are the article's.
   *
   * @param expiry how far ahead the lock's timestamp is set (the article: 200 ms)
   * @param waitTime how long a buyer keeps trying (the article: 200 ms)
   * @param pollPause pause between tries (the article: none)
   */
  public record Setnx(
      @DefaultValue("200ms") Duration expiry,
      @DefaultValue("200ms") Duration waitTime,
      @DefaultValue("0ms") Duration pollPause) {}

  private static void requireNotNegative(String name, Duration value) {
    if (value.isNegative()) {
      throw new IllegalArgumentException(name + " must not be negative: " + value);
    }
  }
}

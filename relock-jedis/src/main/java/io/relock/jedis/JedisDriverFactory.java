package io.relock.jedis;

import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;
import io.relock.spi.RedisDriverFactory;
import io.relock.spi.RedisTarget;

/**
 * Registered with {@link java.util.ServiceLoader} under the name {@code jedis}, so {@code
 * Relock.connect(uri)} finds Jedis; with several drivers on the class path, pick it with {@code
 * -Drelock.driver=jedis}. Connects to a single server, to a primary behind Sentinel ({@link
 * JedisDriver}) or to a Redis Cluster ({@link JedisClusterDriver}).
 */
public final class JedisDriverFactory implements RedisDriverFactory {
  /** Created by {@link java.util.ServiceLoader}, which finds this factory on the class path. */
  public JedisDriverFactory() {}

  @Override
  public String name() {
    return "jedis";
  }

  @Override
  public RedisDriver connect(String uri, DriverSettings settings) {
    return JedisDriver.connect(uri, settings);
  }

  /**
   * {@link RedisTarget.Kind#SINGLE SINGLE} and {@link RedisTarget.Kind#SENTINEL SENTINEL} as
   * {@link JedisDriver#connect(RedisTarget, DriverSettings)} describes, {@link
   * RedisTarget.Kind#CLUSTER CLUSTER} as {@link JedisClusterDriver#connect(RedisTarget,
   * DriverSettings)} does.
   */
  @Override
  public RedisDriver connect(RedisTarget target, DriverSettings settings) {
    if (target.kind() == RedisTarget.Kind.CLUSTER) {
      return JedisClusterDriver.connect(target, settings);
    }
    return JedisDriver.connect(target, settings);
  }
}

package io.relock.jedis;

import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;
import io.relock.spi.RedisDriverFactory;

/**
 * Registered with {@link java.util.ServiceLoader} under the name {@code jedis}, so {@code
 * Relock.connect(uri)} finds Jedis; with several drivers on the class path, pick it with {@code
 * -Drelock.driver=jedis}.
 */
public final class JedisDriverFactory implements RedisDriverFactory {
  @Override
  public String name() {
    return "jedis";
  }

  @Override
  public RedisDriver connect(String uri, DriverSettings settings) {
    return JedisDriver.connect(uri, settings);
  }
}

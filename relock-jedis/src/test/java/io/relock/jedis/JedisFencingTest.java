package io.relock.jedis;

import io.relock.contract.FencingContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class JedisFencingTest extends FencingContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return JedisDriver.connect(uri, settings);
  }
}

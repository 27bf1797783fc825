package io.relock.jedis;

import io.relock.contract.GuardedContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class JedisGuardedTest extends GuardedContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return JedisDriver.connect(uri, settings);
  }
}

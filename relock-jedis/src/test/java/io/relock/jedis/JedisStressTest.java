package io.relock.jedis;

import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;
import io.relock.stress.StressContract;

class JedisStressTest extends StressContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return JedisDriver.connect(uri, settings);
  }
}

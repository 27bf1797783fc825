package io.relock.jedis;

import io.relock.contract.SemaphoreContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class JedisSemaphoreTest extends SemaphoreContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return JedisDriver.connect(uri, settings);
  }
}

package io.relock.jedis;

import io.relock.contract.RedisErrorsContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class JedisRedisErrorsTest extends RedisErrorsContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return JedisDriver.connect(uri, settings);
  }
}

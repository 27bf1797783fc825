package io.relock.lettuce;

import io.relock.contract.RedisErrorsContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class LettuceRedisErrorsTest extends RedisErrorsContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return LettuceDriver.connect(uri, settings);
  }
}

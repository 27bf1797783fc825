package io.relock.lettuce;

import io.relock.contract.ReadWriteLockContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class LettuceReadWriteLockTest extends ReadWriteLockContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return LettuceDriver.connect(uri, settings);
  }
}

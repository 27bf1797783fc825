package io.relock.lettuce;

import io.relock.contract.SemaphoreContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class LettuceSemaphoreTest extends SemaphoreContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return LettuceDriver.connect(uri, settings);
  }
}

package io.relock.lettuce;

import io.relock.contract.GuardedContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class LettuceGuardedTest extends GuardedContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return LettuceDriver.connect(uri, settings);
  }
}

package io.relock.lettuce;

import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;
import io.relock.stress.StressContract;

class LettuceStressTest extends StressContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return LettuceDriver.connect(uri, settings);
  }
}

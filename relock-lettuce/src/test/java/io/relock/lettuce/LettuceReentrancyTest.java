package io.relock.lettuce;

import io.relock.contract.ReentrancyContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class LettuceReentrancyTest extends ReentrancyContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return LettuceDriver.connect(uri, settings);
  }
}

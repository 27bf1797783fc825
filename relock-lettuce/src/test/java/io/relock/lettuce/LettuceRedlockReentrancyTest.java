package io.relock.lettuce;

import io.relock.contract.RedlockReentrancyContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class LettuceRedlockReentrancyTest extends RedlockReentrancyContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return LettuceDriver.connect(uri, settings); // unused: Redlock connects through the driver on the class path
  }
}

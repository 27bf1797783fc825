package io.relock.lettuce;

import io.relock.contract.RedlockLeaderContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class LettuceRedlockLeaderTest extends RedlockLeaderContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return LettuceDriver.connect(uri, settings); // unused: Redlock connects through the driver on the class path
  }
}

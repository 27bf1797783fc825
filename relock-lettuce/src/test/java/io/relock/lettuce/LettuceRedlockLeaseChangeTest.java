package io.relock.lettuce;

import io.relock.contract.RedlockLeaseChangeContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class LettuceRedlockLeaseChangeTest extends RedlockLeaseChangeContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return LettuceDriver.connect(uri, settings); // unused: Redlock connects through the driver on the class path
  }
}

package io.relock.lettuce;

import io.relock.contract.RedlockInspectionContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class LettuceRedlockInspectionTest extends RedlockInspectionContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return LettuceDriver.connect(uri, settings);
  }
}

package io.relock.lettuce;

import io.relock.contract.InspectionContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class LettuceInspectionTest extends InspectionContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return LettuceDriver.connect(uri, settings);
  }
}

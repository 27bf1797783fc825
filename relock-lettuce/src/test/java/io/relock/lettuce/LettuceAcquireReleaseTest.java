package io.relock.lettuce;

import io.relock.contract.AcquireReleaseContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class LettuceAcquireReleaseTest extends AcquireReleaseContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return LettuceDriver.connect(uri, settings);
  }
}

package io.relock.lettuce;

import io.relock.contract.LeaseContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class LettuceLeaseTest extends LeaseContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return LettuceDriver.connect(uri, settings);
  }
}

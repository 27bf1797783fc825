package io.relock.lettuce;

import io.relock.contract.LeaseChangeContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class LettuceLeaseChangeTest extends LeaseChangeContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return LettuceDriver.connect(uri, settings);
  }
}

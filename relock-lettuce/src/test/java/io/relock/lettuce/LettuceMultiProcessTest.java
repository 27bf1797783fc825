package io.relock.lettuce;

import io.relock.contract.MultiProcessContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class LettuceMultiProcessTest extends MultiProcessContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return LettuceDriver.connect(uri, settings);
  }
}

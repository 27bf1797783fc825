package io.relock.lettuce;

import io.relock.contract.FencingContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class LettuceFencingTest extends FencingContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return LettuceDriver.connect(uri, settings);
  }
}

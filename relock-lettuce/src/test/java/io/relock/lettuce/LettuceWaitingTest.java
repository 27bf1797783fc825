package io.relock.lettuce;

import io.relock.contract.WaitingContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class LettuceWaitingTest extends WaitingContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return LettuceDriver.connect(uri, settings);
  }
}

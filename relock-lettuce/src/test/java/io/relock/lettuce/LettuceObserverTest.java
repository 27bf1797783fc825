package io.relock.lettuce;

import io.relock.contract.ObserverContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class LettuceObserverTest extends ObserverContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return LettuceDriver.connect(uri, settings);
  }
}

package io.relock.lettuce;

import io.relock.contract.ConnectionLossContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class LettuceConnectionLossTest extends ConnectionLossContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return LettuceDriver.connect(uri, settings);
  }
}

package io.relock.lettuce;

import io.relock.contract.ListenerContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class LettuceListenerTest extends ListenerContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return LettuceDriver.connect(uri, settings);
  }
}

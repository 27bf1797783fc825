package io.relock.lettuce;

import io.relock.contract.OddNamesContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class LettuceOddNamesTest extends OddNamesContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return LettuceDriver.connect(uri, settings);
  }
}

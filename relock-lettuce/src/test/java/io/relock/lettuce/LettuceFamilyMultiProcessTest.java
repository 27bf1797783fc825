package io.relock.lettuce;

import io.relock.contract.FamilyMultiProcessContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class LettuceFamilyMultiProcessTest extends FamilyMultiProcessContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return LettuceDriver.connect(uri, settings);
  }
}

package io.relock.lettuce;

import io.relock.contract.ClientRacesContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class LettuceClientRacesTest extends ClientRacesContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return LettuceDriver.connect(uri, settings);
  }
}

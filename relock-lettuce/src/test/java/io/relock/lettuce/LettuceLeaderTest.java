package io.relock.lettuce;

import io.relock.contract.LeaderContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class LettuceLeaderTest extends LeaderContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return LettuceDriver.connect(uri, settings);
  }
}

package io.relock.lettuce;

import io.relock.contract.ClusterContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;
import io.relock.spi.RedisTarget;

class LettuceClusterTest extends ClusterContract {
  @Override
  protected RedisDriver connectDriver(RedisTarget target, DriverSettings settings) {
    return LettuceClusterDriver.connect(target, settings);
  }
}

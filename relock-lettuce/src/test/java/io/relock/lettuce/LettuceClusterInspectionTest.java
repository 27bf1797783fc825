package io.relock.lettuce;

import io.relock.contract.ClusterInspectionContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;
import io.relock.spi.RedisTarget;

class LettuceClusterInspectionTest extends ClusterInspectionContract {
  @Override
  protected RedisDriver connectDriver(RedisTarget target, DriverSettings settings) {
    return LettuceClusterDriver.connect(target, settings);
  }
}

package io.relock.jedis;

import io.relock.contract.ClusterInspectionContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;
import io.relock.spi.RedisTarget;

class JedisClusterInspectionTest extends ClusterInspectionContract {
  @Override
  protected RedisDriver connectDriver(RedisTarget target, DriverSettings settings) {
    return JedisClusterDriver.connect(target, settings);
  }
}

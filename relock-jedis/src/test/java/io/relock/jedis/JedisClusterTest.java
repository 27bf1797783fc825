package io.relock.jedis;

import io.relock.contract.ClusterContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;
import io.relock.spi.RedisTarget;

/** Core's Cluster contract on the Jedis cluster driver. */
class JedisClusterTest extends ClusterContract {
  @Override
  protected RedisDriver connectDriver(RedisTarget target, DriverSettings settings) {
    return JedisClusterDriver.connect(target, settings);
  }
}

package io.relock.jedis;

import io.relock.contract.SentinelContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;
import io.relock.spi.RedisTarget;

class JedisSentinelTest extends SentinelContract {
  @Override
  protected RedisDriver connectDriver(RedisTarget target, DriverSettings settings) {
    return JedisDriver.connect(target, settings);
  }
}

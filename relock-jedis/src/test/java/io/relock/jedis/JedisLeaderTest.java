package io.relock.jedis;

import io.relock.contract.LeaderContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class JedisLeaderTest extends LeaderContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return JedisDriver.connect(uri, settings);
  }
}

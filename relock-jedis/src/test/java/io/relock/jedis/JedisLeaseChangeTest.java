package io.relock.jedis;

import io.relock.contract.LeaseChangeContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class JedisLeaseChangeTest extends LeaseChangeContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return JedisDriver.connect(uri, settings);
  }
}

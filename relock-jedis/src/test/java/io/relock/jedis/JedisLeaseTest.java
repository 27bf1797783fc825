package io.relock.jedis;

import io.relock.contract.LeaseContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class JedisLeaseTest extends LeaseContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return JedisDriver.connect(uri, settings);
  }
}

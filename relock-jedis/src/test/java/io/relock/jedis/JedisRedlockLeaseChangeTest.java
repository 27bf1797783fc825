package io.relock.jedis;

import io.relock.contract.RedlockLeaseChangeContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class JedisRedlockLeaseChangeTest extends RedlockLeaseChangeContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return JedisDriver.connect(uri, settings); // unused: Redlock connects through the driver on the class path
  }
}

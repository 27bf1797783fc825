package io.relock.jedis;

import io.relock.contract.RedlockInspectionContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class JedisRedlockInspectionTest extends RedlockInspectionContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return JedisDriver.connect(uri, settings);
  }
}

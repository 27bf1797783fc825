package io.relock.jedis;

import io.relock.contract.InspectionContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class JedisInspectionTest extends InspectionContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return JedisDriver.connect(uri, settings);
  }
}

package io.relock.jedis;

import io.relock.contract.AcquireReleaseContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class JedisAcquireReleaseTest extends AcquireReleaseContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return JedisDriver.connect(uri, settings);
  }
}

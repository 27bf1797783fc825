package io.relock.jedis;

import io.relock.contract.MultiLockContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class JedisMultiLockTest extends MultiLockContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return JedisDriver.connect(uri, settings);
  }
}

package io.relock.jedis;

import io.relock.contract.ReadWriteLockContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class JedisReadWriteLockTest extends ReadWriteLockContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return JedisDriver.connect(uri, settings);
  }
}

package io.relock.jedis;

import io.relock.contract.ObserverContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class JedisObserverTest extends ObserverContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return JedisDriver.connect(uri, settings);
  }
}

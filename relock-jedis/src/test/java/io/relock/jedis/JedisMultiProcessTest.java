package io.relock.jedis;

import io.relock.contract.MultiProcessContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class JedisMultiProcessTest extends MultiProcessContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return JedisDriver.connect(uri, settings);
  }
}

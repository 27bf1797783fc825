package io.relock.jedis;

import io.relock.contract.ReentrancyContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class JedisReentrancyTest extends ReentrancyContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return JedisDriver.connect(uri, settings);
  }
}

package io.relock.jedis;

import io.relock.contract.OddNamesContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class JedisOddNamesTest extends OddNamesContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return JedisDriver.connect(uri, settings);
  }
}

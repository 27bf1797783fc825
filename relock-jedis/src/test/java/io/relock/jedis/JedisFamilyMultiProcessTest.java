package io.relock.jedis;

import io.relock.contract.FamilyMultiProcessContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class JedisFamilyMultiProcessTest extends FamilyMultiProcessContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return JedisDriver.connect(uri, settings);
  }
}

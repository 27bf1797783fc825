package io.relock.jedis;

import io.relock.contract.WaitingContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class JedisWaitingTest extends WaitingContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return JedisDriver.connect(uri, settings);
  }
}

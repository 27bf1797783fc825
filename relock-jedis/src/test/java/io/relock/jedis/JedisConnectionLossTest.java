package io.relock.jedis;

import io.relock.contract.ConnectionLossContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class JedisConnectionLossTest extends ConnectionLossContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return JedisDriver.connect(uri, settings);
  }
}

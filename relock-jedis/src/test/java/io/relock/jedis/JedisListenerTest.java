package io.relock.jedis;

import io.relock.contract.ListenerContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class JedisListenerTest extends ListenerContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return JedisDriver.connect(uri, settings);
  }
}

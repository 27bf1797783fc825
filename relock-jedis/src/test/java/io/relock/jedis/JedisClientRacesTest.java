package io.relock.jedis;

import io.relock.contract.ClientRacesContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class JedisClientRacesTest extends ClientRacesContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return JedisDriver.connect(uri, settings);
  }
}

package io.relock.jedis;

import io.relock.contract.AclContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class JedisAclTest extends AclContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return JedisDriver.connect(uri, settings);
  }
}

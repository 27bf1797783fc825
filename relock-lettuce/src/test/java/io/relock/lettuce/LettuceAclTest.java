package io.relock.lettuce;

import io.relock.contract.AclContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class LettuceAclTest extends AclContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return LettuceDriver.connect(uri, settings);
  }
}

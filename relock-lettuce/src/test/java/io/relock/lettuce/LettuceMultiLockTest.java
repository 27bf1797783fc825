package io.relock.lettuce;

import io.relock.contract.MultiLockContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class LettuceMultiLockTest extends MultiLockContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return LettuceDriver.connect(uri, settings);
  }
}

package io.relock.lettuce;

import io.relock.contract.SentinelContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;
import io.relock.spi.RedisTarget;

class LettuceSentinelTest extends SentinelContract {
  @Override
  protected RedisDriver connectDriver(RedisTarget target, DriverSettings settings) {
    return LettuceDriver.connect(target, settings);
  }
}

package io.relock.lettuce;

import io.relock.contract.ReplicaAcksContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class LettuceReplicaAcksTest extends ReplicaAcksContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return LettuceDriver.connect(uri, settings);
  }
}

package io.relock.jedis;

import io.relock.contract.ReplicaAcksContract;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;

class JedisReplicaAcksContractTest extends ReplicaAcksContract {
  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return JedisDriver.connect(uri, settings);
  }
}

package io.relock.lettuce;

import io.relock.Relock;
import io.relock.contract.ReentrancyContract;
import io.relock.contract.RedlockTopology;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

class LettuceRedlockReentrancyTest extends ReentrancyContract {
  private final RedlockTopology redlock = new RedlockTopology();

  @BeforeAll
  void startOtherMasters() {
    redlock.start();
  }

  @BeforeEach
  void flushOtherMasters() {
    redlock.flush();
  }

  @AfterAll
  void stopOtherMasters() {
    redlock.stop();
  }

  @Override
  protected Relock.Builder builderFor(String uri, DriverSettings settings) {
    return redlock.builder(uri, settings);
  }

  @Override
  protected RedisDriver connectDriver(String uri, DriverSettings settings) {
    return LettuceDriver.connect(uri, settings);
  }
}

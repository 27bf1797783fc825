package io.relock.contract;

import io.relock.Relock;
import io.relock.spi.DriverSettings;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * {@link ReentrancyContract} on Redlock ({@link RedlockTopology}): the contract's server and two
 * more masters, through the driver on the module's class path.
 */
public abstract class RedlockReentrancyContract extends ReentrancyContract {
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
}

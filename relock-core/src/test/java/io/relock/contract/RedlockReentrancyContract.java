package io.relock.contract;

import io.relock.Relock;
import io.relock.spi.DriverSettings;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link ReentrancyContract} on Redlock ({@link RedlockTopology}): the contract's server and two
 * more masters, through the driver on the module's class path.
 */
public abstract class RedlockReentrancyContract extends ReentrancyContract {
  @RegisterExtension
  final RedlockTopology redlock = new RedlockTopology();

  @Override
  protected Relock.Builder builderFor(String uri, DriverSettings settings) {
    return redlock.builder(uri, settings);
  }
}

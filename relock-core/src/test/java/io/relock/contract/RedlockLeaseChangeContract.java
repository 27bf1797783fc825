package io.relock.contract;

import io.relock.Relock;
import io.relock.spi.DriverSettings;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link LeaseChangeContract} on Redlock ({@link RedlockTopology}): the contract's server and two
 * more masters, through the driver on the module's class path. A change counts when a majority
 * of the masters made it.
 */
public abstract class RedlockLeaseChangeContract extends LeaseChangeContract {
  @RegisterExtension
  final RedlockTopology redlock = new RedlockTopology();

  @BeforeAll
  void warmUp() {
    // A first Redlock acquisition in a fresh JVM can take longer than the short leases the
    // contract asks for (its classes load, its scripts are sent to three masters): not in a test.
    try (Relock warm = builderFor(redis.uri(), DRIVER_SETTINGS).build()) {
      warm.lock("warm-up").acquire(PATIENCE, java.time.Duration.ofSeconds(5)).close();
    }
  }

  @Override
  protected boolean onRedlock() {
    return true;
  }

  @Override
  protected Relock.Builder builderFor(String uri, DriverSettings settings) {
    return redlock.builder(uri, settings);
  }
}

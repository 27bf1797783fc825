package io.relock.contract;

import io.relock.Relock;
import io.relock.spi.DriverSettings;
import io.relock.testkit.RedisMasterGroup;

/**
 * Runs a single-Redis contract on Redlock: the contract's server is the first of three masters,
 * and two more are started beside it. A contract subclass in a driver module delegates its
 * builder to {@link #builder} and its lifecycle to {@link #start}, {@link #flush}, {@link #stop}.
 * Checks that read the contract's server then see the first master's copy of each lock.
 */
public final class RedlockTopology {
  private RedisMasterGroup others;

  public void start() {
    others = RedisMasterGroup.start(2);
  }

  public void flush() {
    others.flushAll();
  }

  public void stop() {
    others.close();
  }

  public Relock.Builder builder(String uri, DriverSettings settings) {
    return Relock.builder().redlock(uri, others.uris()[0], others.uris()[1])
        .commandTimeout(settings.commandTimeout()).connectTimeout(settings.connectTimeout());
  }
}

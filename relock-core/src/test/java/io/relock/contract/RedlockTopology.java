package io.relock.contract;

import io.relock.Relock;
import io.relock.spi.DriverSettings;
import io.relock.testkit.RedisMasterGroup;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs a single-Redis contract on Redlock: the contract's server is the first of three masters,
 * and two more are started beside it. A contract registers it as an extension (an instance field
 * with {@code @RegisterExtension}: the contracts have one instance per class), which starts the
 * two masters before the class's tests, empties them before each and stops them after the last,
 * and delegates its builder to {@link #builder}. Checks that read the contract's server then see
 * the first master's copy of each lock.
 */
public final class RedlockTopology implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback {
  private RedisMasterGroup others;

  @Override
  public void beforeAll(ExtensionContext context) {
    others = RedisMasterGroup.start(2);
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    flush();
  }

  /** Empties the two other masters (the contract's server keeps its data). */
  public void flush() {
    others.flushAll();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    others.close();
  }

  public Relock.Builder builder(String uri, DriverSettings settings) {
    return Relock.builder().redlock(uri, others.uris()[0], others.uris()[1])
        .commandTimeout(settings.commandTimeout()).connectTimeout(settings.connectTimeout());
  }
}

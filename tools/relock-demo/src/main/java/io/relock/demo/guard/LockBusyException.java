package io.relock.demo.guard;

import java.time.Duration;

/** A purchase could not enter the critical section of its item within the strategy's wait. */
public class LockBusyException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String strategy;
  private final Duration wait;

  public LockBusyException(String strategy, String item, Duration wait) {
    super("lock of item " + item + " still taken after " + wait.toMillis() + " ms (strategy " + strategy + ")");
    this.strategy = strategy;
    this.wait = wait;
  }

  /** The strategy that gave up. */
  public String strategy() {
    return strategy;
  }

  /** How long it waited. */
  public Duration waitTime() {
    return wait;
  }
}

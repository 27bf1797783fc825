package io.relock.demo;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Polls a condition until it holds or a generous deadline passes; tests never sleep blindly. */
public final class Eventually {

  private Eventually() {}

  /**
   * Returns once {@code condition} holds.
   *
   * @throws AssertionError naming {@code what} if it does not within {@code timeout}
   */
  public static void await(String what, Duration timeout, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out after " + timeout + " waiting for: " + what);
      }
      LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
    }
  }
}

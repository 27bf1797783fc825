package io.relock.micrometer;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Waits for a condition with a generous deadline; the tests never sleep blindly. */
final class Await {

  static final Duration GENEROUS = Duration.ofSeconds(30);

  private Await() {}

  static void until(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + GENEROUS.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("not within " + GENEROUS + ": " + what);
      }
      LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
    }
  }
}

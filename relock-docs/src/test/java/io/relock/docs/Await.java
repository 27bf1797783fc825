package io.relock.docs;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waits for a condition with a generous deadline, for what a snippet sets going in the background. */
final class Await {

  private static final Duration GENEROUS = Duration.ofSeconds(30);

  private Await() {}

  static void until(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + GENEROUS.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + GENEROUS + ": " + what);
      }
      Thread.onSpinWait();
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for: " + what, e);
      }
    }
  }
}

package io.relock.testkit;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Waits for a condition with a generous deadline, for tests that must wait for something a lock,
 * a client or a Redis process does in the background: never a bare sleep, and never a deadline
 * tight enough to fail on a busy machine. Timing claims belong in benchmarks, not here.
 */
public final class Await {

  /** How long {@link #until} waits: long enough for a loaded 2-core machine, short enough to fail. */
  public static final Duration GENEROUS = Duration.ofSeconds(30);

  private Await() {}

  /**
   * Returns once {@code condition} holds, asking every 10 ms.
   *
   * @param what the condition in words, for the failure's message
   * @param condition asked until it holds
   * @throws AssertionError if it does not hold within {@link #GENEROUS}, naming {@code what}
   */
  public static void until(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + GENEROUS.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("not within " + GENEROUS + ": " + what);
      }
      LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
      if (Thread.interrupted()) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for: " + what);
      }
    }
  }
}

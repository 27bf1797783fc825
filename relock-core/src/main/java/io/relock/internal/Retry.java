package io.relock.internal;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The one timer of an operation that a {@link LockState} owns (an acquisition or a release): at
 * most one action armed at a time, run as an event of the state's mailbox, and fired at once
 * instead when the connection to Redis comes back. Confined to the mailbox, like its owner.
 * Also counts the operation's consecutive failures for its backoff.
 */
final class Retry {
  private static final long FIRST_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(25);
  private static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final ClientTimer clock;
  private final LockState state;
  private int generation;
  private Runnable armed;
  private ScheduledFuture<?> timer;
  /** When the armed action fires (System.nanoTime()), if one is armed. */
  private long firesAt;
  private int failures;

  Retry(ClientTimer clock, LockState state) {
    this.clock = clock;
    this.state = state;
  }

  /** Arms {@code action} to run in {@code delayNanos}, replacing whatever was armed. */
  void after(long delayNanos, Runnable action) {
    cancel();
    int mine = generation;
    armed = action;
    firesAt = System.nanoTime() + Math.max(0, delayNanos);
    timer = clock.schedule(Math.max(0, delayNanos), () -> state.post(() -> fire(mine)));
  }

  /** Whether an action is armed to fire within {@code nanos} from now. */
  boolean isArmedSoonerThan(long nanos) {
    return armed != null && firesAt - System.nanoTime() <= nanos;
  }

  /** Runs the armed action now, if there is one. */
  void now() {
    fire(generation);
  }

  private void fire(int which) {
    if (which != generation || armed == null) {
      return; // cancelled or replaced after this firing was scheduled
    }
    Runnable action = armed;
    cancel();
    action.run();
  }

  void cancel() {
    generation++;
    armed = null;
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }

  /** The next backoff: see {@link #backoffNanos}. */
  long nextBackoffNanos() {
    return backoffNanos(failures++);
  }

  /** The backoff after {@code failures} failures in a row: 25 ms, doubling, at most 1 s. */
  static long backoffNanos(int failures) {
    return Math.min(MAX_BACKOFF_NANOS, FIRST_BACKOFF_NANOS << Math.min(failures, 10));
  }

  /** A call got through: the next failure starts the backoff over. */
  void succeeded() {
    failures = 0;
  }
}

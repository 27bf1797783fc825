package io.relock.torture;

import java.time.Duration;
import java.util.List;

/**
 * The size and timing of a suite: how many workers, which locks, the relock settings the workers
 * use, and how long each run lasts. {@link #shortRun()} is the CI version (about two minutes on two
 * cores), {@link #full()} the thorough one (under ten minutes).
 *
 * @param processes worker processes at the start of each run (killed ones are replaced)
 * @param threads threads per worker process; each is its own lock owner
 * @param locks lock names; every thread picks one at random for each critical section
 * @param lease the workers' default lease (watchdog-renewed), and the fixed lease of one hold in four
 * @param commandTimeout relock's command timeout in the workers
 * @param recheckInterval relock's recheck interval in the workers
 * @param acquireWait how long one acquisition waits before giving up
 * @param holdMin shortest time between a critical section's read and its write
 * @param holdMax longest such time
 * @param longHoldOneIn one watchdog-renewed hold in this many is long instead: between one and {@code
 *     longHoldMax} between read and write, kept by the watchdog (so that faults that last about a
 *     lease hit holders still at work)
 * @param longHoldMax longest long hold
 * @param runLength how long the nemesis acts in a single-fault (or fault-free) run
 * @param combinedLength how long the nemesis acts in a combined run
 * @param combinedRuns how many combined runs (each with its own schedule)
 */
record TortureSettings(int processes, int threads, List<String> locks, Duration lease, Duration commandTimeout,
    Duration recheckInterval, Duration acquireWait, Duration holdMin, Duration holdMax, int longHoldOneIn,
    Duration longHoldMax, Duration runLength,
    Duration combinedLength, int combinedRuns) {

  static TortureSettings shortRun() {
    return new TortureSettings(2, 2, List.of("torture-a", "torture-b"), Duration.ofMillis(1500),
        Duration.ofMillis(1000), Duration.ofSeconds(1), Duration.ofSeconds(3), Duration.ofMillis(20),
        Duration.ofMillis(120), 16, Duration.ofMillis(3500), Duration.ofSeconds(7), Duration.ofSeconds(12), 1);
  }

  static TortureSettings full() {
    return new TortureSettings(3, 2, List.of("torture-a", "torture-b"), Duration.ofMillis(1500),
        Duration.ofMillis(1000), Duration.ofSeconds(1), Duration.ofSeconds(3), Duration.ofMillis(20),
        Duration.ofMillis(120), 16, Duration.ofMillis(3500), Duration.ofSeconds(35), Duration.ofSeconds(60), 2);
  }

  TortureSettings withRunLength(Duration single, Duration combined) {
    return new TortureSettings(processes, threads, locks, lease, commandTimeout, recheckInterval, acquireWait,
        holdMin, holdMax, longHoldOneIn, longHoldMax, single, combined, combinedRuns);
  }

  /**
   * The "small bound" of claim (d): a lock whose holder died must be available again within the
   * lease plus this. One second for scheduling and round trips, plus one recheck interval, the
   * longest a waiter sleeps between its own checks when no notification comes.
   */
  Duration stuckBound() {
    return Duration.ofSeconds(1).plus(recheckInterval);
  }
}

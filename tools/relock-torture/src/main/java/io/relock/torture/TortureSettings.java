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
 * @param longHoldOneIn one watchdog-renewed hold in this many is long instead: between {@code
 *     longHoldMin} and {@code longHoldMax} between read and write, kept by the watchdog (so that
 *     faults that last about a lease, or a failover, hit holders still at work)
 * @param longHoldMin shortest long hold (the lease in the single-server topology)
 * @param longHoldMax longest long hold
 * @param runLength how long the nemesis acts in a single-fault (or fault-free) run
 * @param combinedLength how long the nemesis acts in a combined run
 * @param combinedRuns how many combined runs (each with its own schedule)
 */
record TortureSettings(int processes, int threads, List<String> locks, Duration lease, Duration commandTimeout,
    Duration recheckInterval, Duration acquireWait, Duration holdMin, Duration holdMax, int longHoldOneIn,
    Duration longHoldMin, Duration longHoldMax, Duration runLength,
    Duration combinedLength, int combinedRuns) {

  /** replicaAcks timeout of the Sentinel runs that turn it on: well under the command timeout. */
  static final Duration REPLICA_ACK_TIMEOUT = Duration.ofMillis(500);

  static TortureSettings shortRun() {
    return new TortureSettings(2, 2, List.of("torture-a", "torture-b"), Duration.ofMillis(1500),
        Duration.ofMillis(1000), Duration.ofSeconds(1), Duration.ofSeconds(3), Duration.ofMillis(20),
        Duration.ofMillis(120), 16, Duration.ofMillis(1500), Duration.ofMillis(3500), Duration.ofSeconds(7),
        Duration.ofSeconds(12), 1);
  }

  static TortureSettings full() {
    return new TortureSettings(3, 2, List.of("torture-a", "torture-b"), Duration.ofMillis(1500),
        Duration.ofMillis(1000), Duration.ofSeconds(1), Duration.ofSeconds(3), Duration.ofMillis(20),
        Duration.ofMillis(120), 16, Duration.ofMillis(1500), Duration.ofMillis(3500), Duration.ofSeconds(35),
        Duration.ofSeconds(60), 2);
  }

  /**
   * The settings of the Sentinel runs, from those of the suite. A lease of 12 s, longer than a
   * failover (about 2 to 3.5 s from the kill to the promotion with the sentinels' down-after of 1 s,
   * and up to a second more until the client reconnected): a hold that reached the replica survives
   * a failover, so what the runs measure is the hole, not leases running out while no primary
   * answers. The last renewal the replica saw leaves at least two thirds of the lease, 8 s, more
   * than a cut of replication (up to 2.5 s) plus a failover. One watchdog-renewed hold in four is a
   * long one of 4 to 6 s, so that holds granted just before a failover are still at work when it
   * ends. About twelve threads in all, sixteen locks and a 2 s acquire wait, so that long holds do
   * not keep every thread waiting and long holds keep starting while replication is cut (about one
   * a second). Runs of 22 s (--short) or 40 s, each with a handful of failovers.
   */
  TortureSettings forSentinel(boolean shortSuite) {
    Duration length = shortSuite ? Duration.ofSeconds(22) : Duration.ofSeconds(40);
    List<String> sixteen = new java.util.ArrayList<>();
    for (char c = 'a'; c < 'a' + 16; c++) {
      sixteen.add("torture-" + c);
    }
    return new TortureSettings(processes, Math.max(threads, 12 / processes), List.copyOf(sixteen),
        Duration.ofSeconds(12), commandTimeout, recheckInterval, Duration.ofSeconds(2), holdMin, holdMax, 4,
        Duration.ofSeconds(4), Duration.ofSeconds(6), length, length, 0);
  }

  /**
   * The settings of the Cluster runs: those of the Sentinel runs (a lease longer than a failover,
   * sixteen locks, which spread over the three primaries' slots, long holds of 4 to 6 s), in runs of
   * 16 s (--short) or 30 s. The nodes' {@code cluster-node-timeout} is 1 s, like the sentinels'
   * down-after, so a primary's replica takes over about 2 s after it is killed.
   */
  TortureSettings forCluster(boolean shortSuite) {
    Duration length = shortSuite ? Duration.ofSeconds(16) : Duration.ofSeconds(30);
    return forSentinel(shortSuite).withRunLength(length, length);
  }

  /**
   * The settings of the Redlock runs, from those of the suite: the same workers, locks, lease (so
   * the per-node timeout is a quarter of the command timeout, 250 ms) and short holds, but one
   * watchdog-renewed hold in three is a long one of 2 to 4 s, so that a fault on one master finds
   * a holder at work and a hold erased by a restart goes on long enough for someone else to want
   * the lock. Runs of 16 s (--short) or 30 s.
   */
  TortureSettings forRedlock(boolean shortSuite) {
    Duration length = shortSuite ? Duration.ofSeconds(16) : Duration.ofSeconds(30);
    return new TortureSettings(processes, threads, locks, lease, commandTimeout, recheckInterval, acquireWait,
        holdMin, holdMax, 3, Duration.ofSeconds(2), Duration.ofSeconds(4), length, length, 0);
  }

  /**
   * The Redlock workers' {@code redlockRestartDelay}: twice the lease (relock's default, given
   * explicitly so that the runs say what they test). It must be at least the longest lease the
   * workers ask for (the fixed leases are one lease long), and short enough that a run sees
   * several restarts and their ends.
   */
  Duration redlockRestartDelay() {
    return lease.multipliedBy(2);
  }

  /**
   * The settings of the lock family's single-server runs ({@link Workload}), from those of the suite:
   * the same timing, on locks of their own kind. The read-write runs use two locks, like the
   * exclusive ones. The semaphore runs use one semaphore, with at least twice as many threads as it
   * has permits, so that threads queue for permits and a holder that loses its permit is soon
   * joined by as many others as there are permits.
   */
  TortureSettings forWorkload(Workload workload) {
    return switch (workload) {
      case EXCLUSIVE -> this;
      case READ_WRITE -> new TortureSettings(processes, threads, List.of("torture-rw-a", "torture-rw-b"), lease,
          commandTimeout, recheckInterval, acquireWait, holdMin, holdMax, longHoldOneIn, longHoldMin, longHoldMax,
          runLength, combinedLength, combinedRuns);
      case SEMAPHORE -> new TortureSettings(processes,
          Math.max(threads, (2 * Workload.PERMITS + processes - 1) / processes), List.of("torture-sem"), lease,
          commandTimeout, recheckInterval, acquireWait, holdMin, holdMax, longHoldOneIn, longHoldMin, longHoldMax,
          runLength, combinedLength, combinedRuns);
    };
  }

  TortureSettings withRunLength(Duration single, Duration combined) {
    return new TortureSettings(processes, threads, locks, lease, commandTimeout, recheckInterval, acquireWait,
        holdMin, holdMax, longHoldOneIn, longHoldMin, longHoldMax, single, combined, combinedRuns);
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

package io.relock.bench;

import java.time.Duration;
import java.util.List;

/**
 * Phase lengths and sizes of one bench run.
 *
 * @param mode {@code full} or {@code short}
 * @param uncontendedThreads thread counts of the uncontended scenario
 * @param contendedThreads threads on one key in the one-JVM contended scenario
 * @param processes worker processes of the cross-process scenario
 * @param threadsPerProcess threads in each of them
 * @param jvmWarmup extra load before the first window in fresh worker JVMs (JIT compilation)
 * @param warmup load before each measuring window, not counted
 * @param measure length of each measuring window
 * @param settleLimit how long a configuration's windows are taken again while the JIT is busy
 * @param heldLocks locks held at once in the held-locks scenario
 * @param holdFor how long they are held (the measuring window)
 * @param heldLease the watchdog lease in that scenario (renewed every third of it)
 * @param loadLease the lease (or expiry) in the load scenarios
 */
record BenchSettings(String mode, List<Integer> uncontendedThreads, int contendedThreads, int processes,
    int threadsPerProcess, Duration jvmWarmup, Duration warmup, Duration measure, Duration settleLimit, int heldLocks, Duration holdFor,
    Duration heldLease, Duration loadLease) {

  /** The whole set: at most five minutes on two cores. */
  static BenchSettings full() {
    return new BenchSettings("full", List.of(1, 8, 64), 8, 4, 8, Duration.ofMillis(1500), Duration.ofMillis(500),
        Duration.ofMillis(1750), Duration.ofSeconds(15), 10_000, Duration.ofSeconds(60), Duration.ofSeconds(30), Duration.ofSeconds(30));
  }

  /**
   * About a minute and a quarter: 8 threads only where the full run tries 1, 8 and 64; shorter
   * windows; locks held for 4 s under a 3 s lease (a renewal tick every second) instead of 60 s
   * under 30 s (a tick every 10 s): fewer ticks, each costing the same. The caller leaves out the
   * contended-in-one-JVM scenario.
   */
  static BenchSettings shortRun() {
    return new BenchSettings("short", List.of(8), 8, 4, 8, Duration.ofMillis(1000), Duration.ofMillis(400),
        Duration.ofMillis(1500), Duration.ofSeconds(3), 10_000, Duration.ofSeconds(4), Duration.ofSeconds(3), Duration.ofSeconds(30));
  }

  BenchSettings withSettleLimit(Duration limit) {
    return new BenchSettings(mode, uncontendedThreads, contendedThreads, processes, threadsPerProcess, jvmWarmup, warmup,
        measure, limit, heldLocks, holdFor, heldLease, loadLease);
  }

  /** The watchdog's renewal period in the held-locks scenario. */
  Duration renewalTick() {
    return heldLease.dividedBy(3);
  }
}

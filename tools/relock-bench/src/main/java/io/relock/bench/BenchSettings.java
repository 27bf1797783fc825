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
 * @param processThreads threads in each of them, one configuration per count, run in this order
 *     (the first, in fresh JVMs, is the one that waits for the JIT)
 * @param windows measuring windows per configuration; tables show their median and range
 * @param jvmWarmup extra load before the first windows in fresh worker JVMs (JIT compilation)
 * @param warmup load before each configuration's windows, not counted
 * @param window length of each measuring window
 * @param settleLimit how long the first configuration in fresh JVMs may go on measuring windows
 *     until enough in a row had the JIT quiet
 * @param heldLocks locks held at once in the held-locks scenario, while the load scenarios run
 * @param moreHeldLocks locks held at once in a second held-locks run, after the load scenarios and
 *     with nothing else running (0: none)
 * @param holdFor how long they are held under {@code MONITOR} (the counted window), before the
 *     quiet window of the renewal figures
 * @param heldLease the watchdog lease in that scenario (renewed every third of it)
 * @param loadLease the lease (or expiry) in the load scenarios
 * @param deathTimeout in the holder-killed scenario, the lease, expiry, session timeout or time to
 *     live after which each system gives up on a silent holder
 * @param calibrateEach whether every configuration of the cross-process scenario gets a {@code
 *     MONITOR} calibration of its own, or all share the first one's (which share of each command
 *     came from clients hardly depends on the thread count)
 */
record BenchSettings(String mode, List<Integer> uncontendedThreads, int contendedThreads, int processes,
    List<Integer> processThreads, int windows, Duration jvmWarmup, Duration warmup, Duration window,
    Duration settleLimit, int heldLocks, int moreHeldLocks, Duration holdFor, Duration heldLease, Duration loadLease,
    Duration deathTimeout, boolean calibrateEach) {

  BenchSettings {
    uncontendedThreads = List.copyOf(uncontendedThreads);
    processThreads = List.copyOf(processThreads);
    if (windows < 1) {
      throw new IllegalArgumentException("at least one window per configuration, not " + windows);
    }
  }

  /** The whole set: about five minutes on two cores. */
  static BenchSettings full() {
    return new BenchSettings("full", List.of(1, 8, 64), 8, 4, List.of(8, 2, 1), 3, Duration.ofMillis(1500),
        Duration.ofMillis(400), Duration.ofMillis(1000), Duration.ofSeconds(15), 10_000, 100_000, Duration.ofSeconds(30),
        Duration.ofSeconds(30), Duration.ofSeconds(30), DEATH_TIMEOUT, true);
  }

  /**
   * About a minute and a half: 8 threads only where the full run tries 1, 8 and 64; shorter
   * windows; one calibration for all cross-process configurations; locks held for 4 s under a 3 s lease (a renewal tick every second) instead of 60 s
   * under 30 s (a tick every 10 s): fewer ticks, each costing the same. The caller leaves out the
   * contended-in-one-JVM scenario.
   */
  static BenchSettings shortRun() {
    return new BenchSettings("short", List.of(8), 8, 4, List.of(8, 2, 1), 3, Duration.ofMillis(1000),
        Duration.ofMillis(300), Duration.ofMillis(500), Duration.ofSeconds(3), 10_000, 0, Duration.ofSeconds(4),
        Duration.ofSeconds(3), Duration.ofSeconds(30), DEATH_TIMEOUT, false);
  }

  /**
   * The comparison with ZooKeeper, etcd and PostgreSQL ({@code --compare}): uncontended with 1 and
   * 8 threads, across processes as the full run, then the holder-killed scenario; 3 windows of 1 s
   * (with {@code --short}: 8 threads only, 0.5 s windows, a shorter wait for the JIT). No held
   * locks (only relock and Redisson have a watchdog to measure).
   */
  static BenchSettings compare(boolean shortRun) {
    return shortRun
        ? new BenchSettings("short compare", List.of(8), 8, 4, List.of(8, 2, 1), 3, Duration.ofMillis(1000),
            Duration.ofMillis(300), Duration.ofMillis(500), Duration.ofSeconds(3), 0, 0, Duration.ZERO, Duration.ofSeconds(3),
            Duration.ofSeconds(30), DEATH_TIMEOUT, false)
        : new BenchSettings("compare", List.of(1, 8), 8, 4, List.of(8, 2, 1), 3, Duration.ofMillis(1500),
            Duration.ofMillis(400), Duration.ofMillis(1000), Duration.ofSeconds(10), 0, 0, Duration.ZERO,
            Duration.ofSeconds(3), Duration.ofSeconds(30), DEATH_TIMEOUT, false);
  }

  /**
   * The lock family's rows ({@code --family}): issue 12's 20 contending threads in 4 processes (4 x
   * 5), one configuration per workload, 3 windows of 1 s as the full run (with {@code --short}: 0.5 s
   * windows and a shorter wait for the JIT); each row gets its own {@code MONITOR} calibration,
   * since each workload runs different scripts.
   */
  static BenchSettings family(boolean shortRun) {
    return shortRun
        ? new BenchSettings("short family", List.of(), 8, 4, List.of(5), 3, Duration.ofMillis(1000),
            Duration.ofMillis(300), Duration.ofMillis(500), Duration.ofSeconds(3), 0, 0, Duration.ZERO,
            Duration.ofSeconds(3), Duration.ofSeconds(30), DEATH_TIMEOUT, true)
        : new BenchSettings("family", List.of(), 8, 4, List.of(5), 3, Duration.ofMillis(1500),
            Duration.ofMillis(400), Duration.ofMillis(1000), Duration.ofSeconds(15), 0, 0, Duration.ZERO,
            Duration.ofSeconds(3), Duration.ofSeconds(30), DEATH_TIMEOUT, true);
  }

  /**
   * 3 s: short enough to wait for in a bench run, and within every system's bounds (ZooKeeper's
   * session timeout here is 2 to 20 s, etcd's shortest lease about 1.5 s).
   */
  static final Duration DEATH_TIMEOUT = Duration.ofSeconds(3);

  BenchSettings withSettleLimit(Duration limit) {
    return new BenchSettings(mode, uncontendedThreads, contendedThreads, processes, processThreads, windows,
        jvmWarmup, warmup, window, limit, heldLocks, moreHeldLocks, holdFor, heldLease, loadLease, deathTimeout,
        calibrateEach);
  }

  /** The watchdog's renewal period in the held-locks scenario. */
  Duration renewalTick() {
    return heldLease.dividedBy(3);
  }

  /** The most threads per process of the cross-process scenario (4 x 8): the configuration of the older figures. */
  int mostProcessThreads() {
    return processThreads.stream().mapToInt(Integer::intValue).max().orElse(0);
  }
}

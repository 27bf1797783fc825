package io.relock.torture;

import io.relock.Relock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One run: fresh servers and workers, the nemesis acting for the run's length, an orderly stop,
 * the fenced store's final state, and the checker's verdict. Everything lands in the run's
 * directory: the histories ({@code *.jsonl}), {@code schedule.txt} and {@code report.txt}.
 */
final class TortureRun {
  /** In abandon-holder runs, one hold in this many walks away from its lease. */
  static final int ABANDON_ONE_IN = 6;

  /**
   * @param name the run's name (also its directory under {@code outDir})
   * @param fault the run's fault
   * @param steps the nemesis's schedule (empty for the fault-free run)
   * @param length how long the nemesis acts; the workers run as long, plus start and stop
   * @param topology the lock Redis
   * @param replicaAcks the workers' relock replicaAcks replicas, 0 for off (with {@link
   *     TortureSettings#REPLICA_ACK_TIMEOUT})
   * @param settings the settings of the run (the Sentinel and Redlock runs have their own, see {@link
   *     TortureSettings#forSentinel} and {@link TortureSettings#forRedlock}); null for those the suite was given
   * @param workload the kind of lock the workers take
   */
  record Plan(String name, Fault fault, List<Step> steps, Duration length, long seed, Topology topology,
      int replicaAcks, TortureSettings settings, Workload workload) {

    Plan(String name, Fault fault, List<Step> steps, Duration length, long seed) {
      this(name, fault, steps, length, seed, Topology.SINGLE, 0, null);
    }

    Plan(String name, Fault fault, List<Step> steps, Duration length, long seed, Topology topology,
        int replicaAcks, TortureSettings settings) {
      this(name, fault, steps, length, seed, topology, replicaAcks, settings, Workload.EXCLUSIVE);
    }
  }

  private TortureRun() {}

  static RunResult execute(Plan plan, TortureSettings suiteSettings, Path outDir) {
    TortureSettings settings = plan.settings() != null ? plan.settings() : suiteSettings;
    boolean sentinel = plan.topology() == Topology.SENTINEL;
    boolean single = plan.topology() == Topology.SINGLE;
    Path runDir = outDir.resolve(plan.name());
    deleteHistories(runDir);
    writeLines(runDir.resolve("schedule.txt"), plan.steps().stream().map(Step::toString).toList());
    List<String> done;
    Map<String, FencedStore.Counters> store;
    AckCost.Result ackCost = null;
    String ackCostError = null;
    long t0 = System.nanoTime();
    long[] phases = new long[5];  // started, nemesis done, workers stopped, leftovers checked, measured
    long serversUp;
    try (HistoryWriter log = new HistoryWriter(runDir.resolve("nemesis.jsonl"), "nemesis");
        Cluster cluster = Cluster.start(settings, runDir, plan.seed(),
            plan.fault() == Fault.ABANDON_HOLDER ? ABANDON_ONE_IN : 0, log, plan.topology(), plan.replicaAcks(),
            TortureSettings.REPLICA_ACK_TIMEOUT, plan.fault() == Fault.CLOCK_STEP_MASTER ? clockLibrary(outDir) : null,
            plan.workload());
        // Only kill-holder steps wait for a lock themselves; only the single-server runs have them.
        Relock probe = !single ? null
            : Relock.builder().uri(cluster.lockUri()).defaultLease(settings.lease())
                .commandTimeout(settings.commandTimeout()).recheckInterval(settings.recheckInterval()).build()) {
      phases[0] = System.nanoTime();
      serversUp = cluster.serversUpNanos;
      long end = System.nanoTime() + plan.length().toNanos();
      done = new Nemesis(cluster, probe).run(plan.steps(), end);
      sleepUntil(end);
      Duration patience = settings.acquireWait().plus(settings.lease()).plus(settings.commandTimeout().multipliedBy(3))
          .plusSeconds(5);
      phases[1] = System.nanoTime();
      cluster.stopWorkers(patience);
      phases[2] = System.nanoTime();
      try {
        Leftovers.check(cluster, settings.lease().plus(settings.stuckBound()).plusSeconds(1));
      } catch (RuntimeException e) {
        log.record(Event.NEMESIS_ERROR, null, null, 0, HistoryWriter.fields("error",
            "the check for locks left after the workers stopped failed: " + e.getMessage()));
      }
      phases[3] = System.nanoTime();
      try (FencedStore s = new FencedStore(cluster.storeRedis.uri())) {
        store = s.snapshot(settings.locks());
      }
      if (sentinel && done.stream().noneMatch(d -> d.contains(" failed: "))) {
        try {
          ackCost = AckCost.measure(cluster.lockUri(), settings, Math.max(1, plan.replicaAcks()),
              TortureSettings.REPLICA_ACK_TIMEOUT);
        } catch (RuntimeException e) {
          ackCostError = "measuring what replicaAcks costs failed: " + e;
        }
      }
      phases[4] = System.nanoTime();
    }
    long closed = System.nanoTime();
    History history = History.read(runDir);
    if (plan.fault() == Fault.ABANDON_HOLDER) {
      // The workers inject this fault themselves; list what they did.
      done = new ArrayList<>(done);
      for (Event e : history.ofKind(Event.ABANDONED).toList()) {
        done.add("abandon-holder " + e.hold() + " walked away from " + e.lock());
      }
    }
    RunResult result = Checker.check(plan.name(), plan.fault(), done, history, store, settings, plan.topology(),
        plan.replicaAcks(), plan.workload()).withAckCost(ackCost);
    List<String> report = new ArrayList<>();
    report.add("run " + plan.name() + " (" + plan.fault().description + ")");
    report.add("topology " + plan.topology().id + (plan.topology() == Topology.REDLOCK
        ? ", " + Cluster.REDLOCK_MASTERS + " masters, redlockRestartDelay " + settings.redlockRestartDelay().toMillis() + " ms"
        : ", replicaAcks " + SummaryTable.acks(plan.replicaAcks())) + ", lease " + settings.lease().toMillis() + " ms, "
        + plan.workload().description + (plan.workload() == Workload.READ_WRITE
            ? " (" + Workload.READ_PERCENT + "% of the critical sections read)" : ""));
    if (ackCostError != null) {
      report.add(ackCostError);
    }
    if (ackCost != null) {
      report.add(String.format(java.util.Locale.ROOT, "replicaAcks cost: uncontended acquire median %.2f ms without,"
              + " %.2f ms with replicaAcks %d (%s)", ackCost.medianOffMicros() / 1000.0,
          ackCost.medianOnMicros() / 1000.0, ackCost.replicaAcks(), ackCost.phases()));
    }
    long checked = System.nanoTime();
    report.add(String.format(java.util.Locale.ROOT, "timing: servers and workers up in %.1f s (servers %.1f s,"
            + " workers %.1f s), nemesis %.1f s, workers stopped in %.1f s, leftover locks checked in %.1f s,"
            + " measuring %.1f s, shutdown %.1f s, checking %.1f s",
        (phases[0] - t0) / 1e9, (serversUp - t0) / 1e9, (phases[0] - serversUp) / 1e9, (phases[1] - phases[0]) / 1e9,
        (phases[2] - phases[1]) / 1e9, (phases[3] - phases[2]) / 1e9, (phases[4] - phases[3]) / 1e9,
        (closed - phases[4]) / 1e9, (checked - closed) / 1e9));
    report.add("faults injected:");
    done.forEach(d -> report.add("  " + d));
    report.add("failures: " + (result.failures().isEmpty() ? "none" : String.join("; ", result.failures())));
    report.add("examples:");
    result.examples().forEach(x -> report.add("  " + x));
    writeLines(runDir.resolve("report.txt"), report);
    return result;
  }

  /** The clock-step library, built into the suite's output directory. */
  private static Path clockLibrary(Path outDir) {
    ClockShim.Build build = ClockShim.build(outDir.resolve("clockstep"));
    if (build.library() == null) {
      throw new IllegalStateException(build.unavailable());
    }
    return build.library();
  }

  private static void deleteHistories(Path runDir) {
    try {
      Files.createDirectories(runDir);
      try (var files = Files.list(runDir)) {
        for (Path f : files.toList()) {
          Files.delete(f);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot clear " + runDir, e);
    }
  }

  private static void writeLines(Path file, List<String> lines) {
    try {
      Files.createDirectories(file.getParent());
      Files.write(file, lines, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  private static void sleepUntil(long endNanos) {
    long left = endNanos - System.nanoTime();
    if (left <= 0) {
      return;
    }
    try {
      TimeUnit.NANOSECONDS.sleep(left);  // the workers keep working until the run's length is up
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}

package io.relock.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Everything one run measured, and what follows from it: ratios to relock, the targets, the
 * summary line, the tables.
 */
final class Results {

  static final String UNCONTENDED = "uncontended";
  static final String CONTENDED_JVM = "contended-1jvm";
  static final String CONTENDED_PROCESSES = "contended-processes";

  final BenchSettings settings;
  final Machine machine;
  final List<Row> rows;
  final List<HeldRow> held;
  final double wallSeconds;
  final String loadAfter;
  /** Where it ran: one Redis, a Sentinel group, a Redis Cluster or Redlock masters (and how many). */
  final Deployment deployment;
  final BenchTarget.Topology topology;

  Results(BenchSettings settings, Machine machine, List<Row> rows, List<HeldRow> held, double wallSeconds,
      String loadAfter) {
    this(settings, machine, rows, held, wallSeconds, loadAfter, Deployment.of(BenchTarget.Topology.SINGLE));
  }

  Results(BenchSettings settings, Machine machine, List<Row> rows, List<HeldRow> held, double wallSeconds,
      String loadAfter, Deployment deployment) {
    this.deployment = deployment;
    this.topology = deployment.topology();
    this.settings = settings;
    this.machine = machine;
    this.rows = List.copyOf(rows);
    this.held = List.copyOf(held);
    this.wallSeconds = wallSeconds;
    this.loadAfter = loadAfter;
  }

  /** Above this share of the machine's CPU taken by other processes, a run is not a clean one. */
  static final double BUSY_SHARE = 0.10;

  /** Share of the machine's CPU other processes used during the run; NaN if unknown. */
  double othersCpuShare = Double.NaN;

  /** Whether other processes took a noticeable share of the CPU while the bench ran. */
  boolean machineWasBusy() {
    return othersCpuShare > BUSY_SHARE;
  }

  String othersCpuText() {
    return Double.isNaN(othersCpuShare) ? "an unknown share"
        : String.format(Locale.ROOT, "%.0f%%", othersCpuShare * 100);
  }

  Optional<Row> find(String scenario, Implementation impl, int threads) {
    return rows.stream()
        .filter(r -> r.scenario.equals(scenario) && r.impl == impl && r.threadsPerProcess == threads)
        .findFirst();
  }

  Optional<Row> find(String scenario, Implementation impl) {
    return rows.stream().filter(r -> r.scenario.equals(scenario) && r.impl == impl).findFirst();
  }

  Optional<HeldRow> held(Implementation impl) {
    return held.stream().filter(h -> h.impl() == impl).findFirst();
  }

  /** {@code row}'s acquisitions per second divided by relock's in the same configuration. */
  double ratioToRelock(Row row) {
    return find(row.scenario, Implementation.RELOCK, row.threadsPerProcess)
        .map(relock -> row.perSecond() / relock.perSecond())
        .orElse(Double.NaN);
  }

  /** The Redisson lock relock is compared with here: {@code RedissonRedLock} on Redlock, else {@code RLock}. */
  Implementation redisson() {
    return Implementation.redissonOn(topology);
  }

  private double uncontendedRatio(Implementation other) {
    return ratio(find(UNCONTENDED, Implementation.RELOCK, 8), find(UNCONTENDED, other, 8));
  }

  private double contendedRatio(Implementation other) {
    return ratio(find(CONTENDED_PROCESSES, Implementation.RELOCK), find(CONTENDED_PROCESSES, other));
  }

  private static double ratio(Optional<Row> top, Optional<Row> bottom) {
    if (top.isEmpty() || bottom.isEmpty() || bottom.get().perSecond() == 0) {
      return Double.NaN;
    }
    return top.get().perSecond() / bottom.get().perSecond();
  }

  /**
   * The line scripts read; elsewhere than on one Redis it names the topology first ({@code
   * topology=redlock-3}: Redlock and its size), and compares with {@link #redisson()}.
   */
  String summaryLine() {
    double calls = find(CONTENDED_PROCESSES, Implementation.RELOCK).map(Row::callsPerAcquisition).orElse(Double.NaN);
    return "bench: " + (topology == BenchTarget.Topology.SINGLE ? "" : "topology=" + deployment.id() + " ")
        + "uncontended_vs_redisson=" + fmt(uncontendedRatio(redisson()))
        + " contended_vs_redisson=" + fmt(contendedRatio(redisson()))
        + " contended_calls_per_acquisition=" + fmt(calls)
        + " limit_fraction=" + fmt(uncontendedRatio(Implementation.LIMIT));
  }

  private static String fmt(double v) {
    return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%.2f", v);
  }

  /** The targets for relock, each with the measured value and whether it was met. */
  List<Target> targets() {
    List<Target> t = new ArrayList<>();
    t.add(new Target("uncontended, 8 threads: relock / Redisson acquisitions/s", ">= 4",
        uncontendedRatio(Implementation.REDISSON), v -> v >= 4));
    t.add(new Target("uncontended, 8 threads: relock / Redis-bound limit", ">= 0.5",
        uncontendedRatio(Implementation.LIMIT), v -> v >= 0.5));
    String procs = settings.processes() + " processes";
    t.add(new Target("contended, " + procs + ": relock / Redisson acquisitions/s", ">= 5",
        contendedRatio(Implementation.REDISSON), v -> v >= 5));
    Optional<Row> relock = find(CONTENDED_PROCESSES, Implementation.RELOCK);
    Optional<Row> redisson = find(CONTENDED_PROCESSES, Implementation.REDISSON);
    double p99Ratio = relock.isPresent() && redisson.isPresent()
        ? relock.get().millis(99) / redisson.get().millis(99) : Double.NaN;
    t.add(new Target("contended, " + procs + ": relock p99 wait / Redisson p99 wait", "<= 0.2",
        p99Ratio, v -> v <= 0.2));
    t.add(new Target("contended, " + procs + ": relock Redis calls per acquisition", "<= 3",
        relock.map(Row::callsPerAcquisition).orElse(Double.NaN), v -> v <= 3));
    t.add(new Target("contended, " + procs + ": relock least process share of the mean (0 = starved)", "> 0",
        relock.map(Row::minProcessShare).orElse(Double.NaN), v -> v > 0));
    t.add(new Target("contended, " + procs + ": relock max wait, ms (bounded: under 1 s)", "< 1000",
        relock.map(Row::maxMillis).orElse(Double.NaN), v -> v < 1000));
    // While a script runs Redis runs nothing else, so renewing many locks must not stall it: the
    // watchdog renews in batches sized for well under 0.5 ms each, and more batches mean more calls.
    Optional<HeldRow> relockHeld = held(Implementation.RELOCK);
    t.add(new Target(settings.heldLocks() + " held locks: relock worst Redis stall while renewing, ms", "<= 1",
        relockHeld.map(h -> h.stall().worstMillis()).orElse(Double.NaN), v -> v <= 1.0));
    t.add(new Target(settings.heldLocks() + " held locks: relock Redis calls per renewal tick", "<= 50",
        relockHeld.map(HeldRow::callsPerTick).orElse(Double.NaN), v -> v <= 50));
    return t;
  }

  /** A target, its threshold as text, the value measured (NaN if not measured). */
  record Target(String what, String threshold, double value, java.util.function.DoublePredicate test) {
    String verdict() {
      return Double.isNaN(value) ? "not measured" : test.test(value) ? "met" : "MISSED";
    }
  }

  /** The load scenarios, in the order their tables come. */
  static final List<String> LOAD_SCENARIOS = List.of(UNCONTENDED, CONTENDED_JVM, CONTENDED_PROCESSES);

  /** Columns of a load scenario's table, as {@link #cells} fills them. */
  static final List<String> LOAD_COLUMNS = List.of("implementation", "procs x threads", "acq/s",
      "vs relock", "p50 ms", "p99 ms", "max ms", "calls/acq", "all cmds/acq", "Redis CPU us/acq",
      "client CPU us/acq", "process spread (Jain)", "warm-up s", "JIT %", "errors");

  /** One table per load scenario, then the held-locks table. */
  List<Table> tables() {
    List<Table> tables = new ArrayList<>();
    for (String scenario : LOAD_SCENARIOS) {
      Table t = new Table(titleOf(scenario) + (topology == BenchTarget.Topology.SINGLE ? ""
          : " [topology: " + deployment.describe() + "]"), LOAD_COLUMNS);
      cells(scenario).forEach(cells -> t.add(cells.toArray(new String[0])));
      if (!t.rows().isEmpty()) {
        tables.add(t);
      }
    }
    if (!held.isEmpty()) {
      Table t = new Table(String.format(Locale.ROOT, "4. %,d locks held under the watchdog for %.0f s (lease %d s, renewal every %.0f s)",
          settings.heldLocks(), settings.holdFor().toMillis() / 1000.0, settings.heldLease().toSeconds(),
          settings.renewalTick().toMillis() / 1000.0),
          List.of("implementation", "calls/s", "calls per renewal tick", "script cmds/s", "Redis CPU s",
              "worst Redis stall ms", "client CPU s", "client heap MB", "heap bytes/lock", "acquire all s",
              "keys start/end"));
      for (HeldRow h : held) {
        t.add(h.impl().id(), num(h.callsPerSecond(), 1), num(h.callsPerTick(), 1),
            num(h.scriptCalls() / h.seconds(), 1),
            num(h.redis().redisCpuSeconds(), 2), h.stall().worstMillisText(), num(h.clientCpuSeconds(), 2),
            num(h.heapBytes() / 1e6, 1), num(h.bytesPerLock(), 0),
            num(h.acquireSeconds(), 1), h.keysAtStart() + "/" + h.keysAtEnd());
      }
      tables.add(t);
    }
    return tables;
  }

  /** The rows of {@code scenario}'s table, one per implementation (and thread count), in {@link #LOAD_COLUMNS}. */
  List<List<String>> cells(String scenario) {
    List<List<String>> out = new ArrayList<>();
    for (Row r : rows) {
      if (r.scenario.equals(scenario)) {
        out.add(List.of(r.impl.id(), r.processes + " x " + r.threadsPerProcess, num(r.perSecond(), 0),
            num(ratioToRelock(r), 2), num(r.millis(50), 3), num(r.millis(99), 3), num(r.maxMillis(), 1),
            num(r.callsPerAcquisition(), 2), num(r.allCommandsPerAcquisition(), 1),
            num(r.redis.redisCpuSeconds() * 1e6 / Math.max(1, r.acquisitions()), 1),
            num(r.clientCpuSeconds * 1e6 / Math.max(1, r.acquisitions()), 1),
            r.processes > 1 ? num(r.processFairness(), 3) : "-", num(r.warmupSeconds, 1), num(100 * r.jitShare, 0),
            String.valueOf(r.errors)));
      }
    }
    return out;
  }

  String titleOf(String scenario) {
    return switch (scenario) {
      case UNCONTENDED -> "1. Uncontended: each thread locks its own key, one JVM";
      case CONTENDED_JVM -> "2. Contended in one JVM: " + settings.contendedThreads() + " threads on one key";
      default -> "3 and 5. Contended across " + settings.processes() + " processes x "
          + settings.threadsPerProcess() + " threads on one key (fairness: p99/max wait, spread over processes)";
    };
  }

  static String num(double v, int decimals) {
    if (Double.isNaN(v)) {
      return "-";
    }
    return String.format(Locale.ROOT, "%,." + decimals + "f", v);
  }

  Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("summary", summaryLine());
    m.put("mode", settings.mode());
    m.put("topology", topology.id());
    if (deployment.masters() > 0) {
      m.put("redlock_masters", deployment.masters());
    }
    m.put("wall_seconds", wallSeconds);
    m.put("load_average_after", loadAfter);
    m.put("others_cpu_share", othersCpuShare);
    m.put("machine_was_busy", machineWasBusy());
    m.put("machine", machine.toJson());
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("warmup_s", settings.warmup().toMillis() / 1000.0);
    s.put("settle_limit_s", settings.settleLimit().toMillis() / 1000.0);
    s.put("jit_settled_share", Bench.JIT_SETTLED);
    s.put("measure_s", settings.measure().toMillis() / 1000.0);
    s.put("uncontended_threads", settings.uncontendedThreads());
    s.put("contended_threads", settings.contendedThreads());
    s.put("processes", settings.processes());
    s.put("threads_per_process", settings.threadsPerProcess());
    s.put("held_locks", settings.heldLocks());
    s.put("hold_s", settings.holdFor().toMillis() / 1000.0);
    s.put("held_lease_s", settings.heldLease().toMillis() / 1000.0);
    m.put("settings", s);
    List<Object> results = new ArrayList<>();
    for (Row r : rows) {
      Map<String, Object> j = r.toJson();
      j.put("ratio_to_relock", ratioToRelock(r));
      results.add(j);
    }
    held.forEach(h -> results.add(h.toJson()));
    m.put("results", results);
    List<Object> targets = new ArrayList<>();
    for (Target t : targets()) {
      targets.add(Map.of("target", t.what(), "threshold", t.threshold(), "value", t.value(), "verdict", t.verdict()));
    }
    m.put("targets", targets);
    return m;
  }
}

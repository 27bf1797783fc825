package io.relock.torture;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ./relock torture}: runs the suite, prints a line per run, the per-fault table and the summary line. */
@Command(name = "relock torture", mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
    description = {
        "Jepsen-style safety suite. Worker JVMs take relock locks and update a fenced counter on a separate Redis"
            + " while a seeded nemesis pauses and kills lock holders, cuts, blackholes and delays their connections,"
            + " and restarts or pauses the lock Redis. A checker then reads the histories. Runs: none (no fault),"
            + " each fault alone, and combined.",
        "",
        "With --topology sentinel the lock Redis is a primary, a replica and three Sentinels, and the nemesis fails"
            + " the primary over, with and without cutting replication first (the Sentinel hole), each with relock's"
            + " replicaAcks off and on. With --topology cluster it is a Redis Cluster of three primaries with a"
            + " replica each, and the nemesis kills primaries (replicaAcks off and on) or migrates slots under load."
            + " With --topology redlock the workers use relock's Redlock over three masters, and the nemesis cuts one"
            + " off, pauses one, restarts one without its data (with relock's delayed restart, and once without it"
            + " as a control), or steps one's clock forward.",
        "",
        "Always starts its own redis-servers, and ignores REDIS_URL: the suite must be able to restart, pause and"
            + " kill them.",
        "",
        "Exits 1 on any fencing violation, unreported loss, stuck lock or lost update, any overlap in the"
            + " fault-free run, or a hold granted without the replica acknowledgement replicaAcks asked for. The last"
            + " line reads:",
        "torture: runs=<n> unfenced_overlaps=<n> fenced_violations=<n> unreported_losses=<n> stuck_locks=<n>"
            + " lost_updates=<n>",
        ""})
public final class TortureMain implements Callable<Integer> {

  @Option(names = "--seed", paramLabel = "N",
      description = "Seed of the fault schedules (default: random, printed). Reproduces the schedule, not the interleavings.")
  Long seed;

  @Option(names = "--short", description = "The CI version, about 2 minutes with two runs side by side (about 4 one after"
      + " another, --parallel 1): the single-server runs with 2 workers"
      + " x 2 threads (about 2 minutes) and a pause-holder run each of a read-write lock and a semaphore (about"
      + " 30 s), then, unless --topology says otherwise, one Sentinel failover-hole run"
      + " with replicaAcks off and one with it on (about a minute), one Cluster kill-primary run (about 30 s)"
      + " and one Redlock restart-master run (about 25 s).")
  boolean shortRun;

  @Option(names = "--topology", paramLabel = "single|sentinel|cluster|redlock|all",
      description = "The lock Redis: one server, a Sentinel group, a Redis Cluster, three Redlock masters, or all"
          + " four, one after the other. Default single, but all with --short (so that CI covers each) or --runs (the names say"
          + " which).")
  String topology;

  @Option(names = "--runs", split = ",", paramLabel = "RUN",
      description = "Runs to do (default all): none, abandon-holder, pause-holder, kill-holder, restart-redis, pause-redis, "
          + "cut-holder, blackhole-holder, delay, combined; also blackhole-resume (not in the default set). "
          + "Sentinel topology: failover, failover-hole (each with replicaAcks off and on), or a run's full name "
          + "such as sentinel-failover-hole-acks. Cluster topology: kill-primary (replicaAcks off and on), "
          + "migrate-slot, or their full names such as cluster-kill-primary-acks. Redlock topology: partition-master, "
          + "pause-master, restart-master, clock-step-master (needs a C compiler), restart-master-nodelay (the control), "
          + "or their full names such as redlock-restart-master. Lock family (single server): rw-none, rw-pause-holder, "
          + "rw-kill-holder, rw-restart-redis (read-write lock), sem-none, sem-pause-holder, sem-kill-holder, "
          + "sem-restart-redis (semaphore of 3 permits), or rw, sem for all four of a kind.")
  List<String> runs;

  @Option(names = "--parallel", paramLabel = "N",
      description = "Runs to do side by side, each with servers and workers of its own (default 2 with --short, else 1)."
          + " The longest runs start first; the progress lines still come in the runs' order. --parallel 1 runs"
          + " them one after another, as on a busy machine: a run's workers need the CPU when their leases are due.")
  Integer parallel;

  @Option(names = "--run-seconds", paramLabel = "S",
      description = "Override how long the nemesis acts in each run (combined runs get 1.5 times as long).")
  Integer runSeconds;

  @Option(names = "--out", paramLabel = "DIR",
      description = "Where histories and reports go (default tools/relock-torture/target/torture).")
  Path out;

  @Option(names = "--write-docs", description = "Also write docs/safety.md from this run.")
  boolean writeDocs;

  @Option(names = "--docs-dir", paramLabel = "DIR", defaultValue = "docs",
      description = "Where --write-docs writes (default ${DEFAULT-VALUE}).")
  Path docsDir;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  private final List<String> arguments;

  TortureMain(String... arguments) {
    this.arguments = List.of(arguments);
  }

  public static void main(String[] args) {
    quietLogging("error");
    int code = new CommandLine(new TortureMain(args)).execute(args);
    System.exit(code);
  }

  /** Sets slf4j-simple's level, to standard error; must run before any logger exists. */
  static void quietLogging(String level) {
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", level);
    System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
    System.setProperty("org.slf4j.simpleLogger.showDateTime", "true");
  }

  @Override
  public Integer call() throws Exception {
    PrintStream console = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
    long theSeed = seed != null ? seed : new Random().nextInt(1_000_000);
    TortureSettings settings = shortRun ? TortureSettings.shortRun() : TortureSettings.full();
    TortureSettings sentinelSettings = settings.forSentinel(shortRun);
    TortureSettings redlockSettings = settings.forRedlock(shortRun);
    TortureSettings clusterSettings = settings.forCluster(shortRun);
    if (runSeconds != null) {
      clusterSettings = clusterSettings.withRunLength(Duration.ofSeconds(runSeconds), Duration.ofSeconds(runSeconds));
      settings = settings.withRunLength(Duration.ofSeconds(runSeconds), Duration.ofMillis(runSeconds * 1500L));
      sentinelSettings = sentinelSettings.withRunLength(Duration.ofSeconds(runSeconds), Duration.ofSeconds(runSeconds));
      redlockSettings = redlockSettings.withRunLength(Duration.ofSeconds(runSeconds), Duration.ofSeconds(runSeconds));
    }
    Path outDir = out != null ? out
        : Files.isDirectory(Path.of("tools", "relock-torture")) ? Path.of("tools", "relock-torture", "target", "torture")
        : Path.of("torture-results");
    List<TortureRun.Plan> plans;
    try {
      // Without --topology: both with --short (CI) or when --runs names the runs; else today's single server.
      String topologies = topology != null ? topology
          : shortRun || (runs != null && !runs.isEmpty()) ? "all" : "single";
      plans = plans(settings, sentinelSettings, clusterSettings, redlockSettings, theSeed, runs,
          Topology.parse(topologies), shortRun);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    if (plans.stream().anyMatch(p -> p.fault() == Fault.CLOCK_STEP_MASTER)) {
      ClockShim.Build clock = ClockShim.build(outDir.resolve("clockstep"));
      if (clock.library() == null) {
        console.println("torture: skipping " + redlockRunName(Fault.CLOCK_STEP_MASTER) + ": " + clock.unavailable());
        plans = plans.stream().filter(p -> p.fault() != Fault.CLOCK_STEP_MASTER).toList();
        if (plans.isEmpty()) {
          return 2;
        }
      }
    }
    console.printf(Locale.ROOT, "torture: seed %d (reproduce the schedules with --seed %d), %d runs, %d workers x %d threads,"
        + " locks %s, lease %d ms, histories in %s%n", theSeed, theSeed, plans.size(), settings.processes(),
        settings.threads(), settings.locks(), settings.lease().toMillis(), outDir.toAbsolutePath());
    if (plans.stream().anyMatch(p -> p.topology() == Topology.SENTINEL)) {
      console.printf(Locale.ROOT, "torture: sentinel runs: a primary, one replica and three sentinels (down-after 1 s),"
          + " %d workers x %d threads, locks %s, lease %d ms, one watchdog hold in %d held %d-%d ms, %d s each,"
          + " replicaAcks off or 1 replica within %d ms%n", sentinelSettings.processes(), sentinelSettings.threads(),
          sentinelSettings.locks(), sentinelSettings.lease().toMillis(), sentinelSettings.longHoldOneIn(),
          sentinelSettings.longHoldMin().toMillis(),
          sentinelSettings.longHoldMax().toMillis(), sentinelSettings.runLength().toSeconds(),
          TortureSettings.REPLICA_ACK_TIMEOUT.toMillis());
    }
    if (plans.stream().anyMatch(p -> p.topology() == Topology.CLUSTER)) {
      console.printf(Locale.ROOT, "torture: cluster runs: %d primaries with a replica each (node timeout 1 s),"
              + " %d workers x %d threads, locks %s, lease %d ms, one watchdog hold in %d held %d-%d ms, %d s each,"
              + " replicaAcks off or 1 replica within %d ms%n", Cluster.CLUSTER_PRIMARIES, clusterSettings.processes(),
          clusterSettings.threads(), clusterSettings.locks(), clusterSettings.lease().toMillis(),
          clusterSettings.longHoldOneIn(), clusterSettings.longHoldMin().toMillis(),
          clusterSettings.longHoldMax().toMillis(), clusterSettings.runLength().toSeconds(),
          TortureSettings.REPLICA_ACK_TIMEOUT.toMillis());
    }
    if (plans.stream().anyMatch(p -> p.topology() == Topology.REDLOCK)) {
      console.printf(Locale.ROOT, "torture: redlock runs: %d independent masters, each worker through a proxy of its"
              + " own per master, %d workers x %d threads, locks %s, lease %d ms, per-node timeout %d ms,"
              + " redlockRestartDelay %d ms, one watchdog hold in %d held %d-%d ms, %d s each%n",
          Cluster.REDLOCK_MASTERS, redlockSettings.processes(), redlockSettings.threads(), redlockSettings.locks(),
          redlockSettings.lease().toMillis(), redlockSettings.commandTimeout().toMillis() / 4,
          redlockSettings.redlockRestartDelay().toMillis(), redlockSettings.longHoldOneIn(),
          redlockSettings.longHoldMin().toMillis(), redlockSettings.longHoldMax().toMillis(),
          redlockSettings.runLength().toSeconds());
    }
    int lanes = parallel != null ? parallel : shortRun ? 2 : 1;
    if (lanes < 1) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--parallel must be at least 1");
    }
    if (lanes > 1) {
      console.printf(Locale.ROOT, "torture: %d runs at a time (--parallel 1 runs them one after another)%n", lanes);
    }
    TortureSuite suite = new TortureSuite(settings, outDir, console, lanes);
    List<RunResult> results = suite.run(plans);
    List<String> table = SummaryTable.markdown(results);
    console.println();
    table.forEach(console::println);
    console.println();
    String sentinel = SummaryTable.sentinelLine(results);
    if (sentinel != null) {
      console.println(sentinel);
      console.println();
    }
    String clusterLine = SummaryTable.clusterLine(results);
    if (clusterLine != null) {
      console.println(clusterLine);
      console.println();
    }
    String redlock = SummaryTable.redlockLine(results);
    if (redlock != null) {
      console.println(redlock);
      console.println();
    }
    boolean failed = false;
    for (RunResult r : results) {
      for (String f : r.failures()) {
        console.println("FAIL " + r.run() + ": " + f + "   (details: " + outDir.resolve(r.run()).resolve("report.txt") + ")");
        failed = true;
      }
    }
    String summary = SummaryTable.summaryLine(results);
    if (writeDocs) {
      Path doc = SafetyDoc.write(docsDir, results, settings, sentinelSettings, clusterSettings, redlockSettings, theSeed,
          command(),
          suite.elapsed(), summary);
      console.println("wrote " + doc);
    }
    console.println(summary);
    return failed ? 1 : 0;
  }

  /** The command line, without the options that only say where results go. */
  private String command() {
    List<String> kept = new ArrayList<>();
    for (int i = 0; i < arguments.size(); i++) {
      String a = arguments.get(i);
      if (a.equals("--docs-dir") || a.equals("--out")) {
        i++;  // and its value
      } else if (!a.startsWith("--write-docs") && !a.startsWith("--docs-dir=") && !a.startsWith("--out=")) {
        kept.add(a);
      }
    }
    return ("./relock torture " + String.join(" ", kept)).trim();
  }

  /** The single-server runs of a suite, each with its own schedule drawn from the seed and the run's name. */
  static List<TortureRun.Plan> plans(TortureSettings settings, long seed, List<String> only) {
    return plans(settings, settings.forSentinel(false), settings.forCluster(false), settings.forRedlock(false), seed,
        only, List.of(Topology.SINGLE), false);
  }

  /**
   * The runs of a suite for each topology, each with its own schedule drawn from the seed and the
   * run's name. The Sentinel runs are {@code sentinel-failover} and {@code sentinel-failover-hole},
   * each with replicaAcks off and on ({@code -acks}); a short suite has only the latter two. The
   * Cluster runs are {@code cluster-kill-primary} (replicaAcks off and on) and {@code
   * cluster-migrate-slot}; a short suite has only the first. The Redlock runs are {@code redlock-} and a fault of {@link Fault#REDLOCK}; a short suite has only
   * {@code redlock-restart-master}.
   *
   * @throws IllegalArgumentException if {@code only} names an unknown run, or leaves no run
   */
  static List<TortureRun.Plan> plans(TortureSettings settings, TortureSettings sentinelSettings,
      TortureSettings clusterSettings, TortureSettings redlockSettings, long seed, List<String> only,
      List<Topology> topologies, boolean shortSuite) {
    List<TortureRun.Plan> plans = new ArrayList<>();
    if (only != null) {
      for (String id : only) {
        if (sentinelRunNames().contains(id) || clusterRunNames().contains(id) || redlockRunNames().contains(id)
            || familyRunNames().contains(id) || FAMILY.stream().anyMatch(w -> w.id.equals(id))) {
          continue;
        }
        try {
          Fault.byId(id);
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(e.getMessage() + "; lock family run names: " + familyRunNames()
              + " (or rw, sem for all of a kind); Sentinel run names: " + sentinelRunNames()
              + "; Cluster run names: " + clusterRunNames() + "; Redlock run names: " + redlockRunNames());
        }
      }
    }
    if (topologies.contains(Topology.SINGLE)) {
      plans.addAll(singlePlans(settings, seed, only));
      plans.addAll(familyPlans(settings, seed, only, shortSuite));
    }
    if (topologies.contains(Topology.SENTINEL)) {
      for (Fault f : Fault.SENTINEL) {
        for (int acks : new int[] {0, 1}) {
          String name = sentinelRunName(f, acks);
          boolean selected = only == null || only.isEmpty()
              ? !shortSuite || f == Fault.FAILOVER_HOLE
              : only.contains(f.id) || only.contains(name);
          if (!selected) {
            continue;
          }
          Duration length = sentinelSettings.runLength();
          long runSeed = seed * 1_000_003L + name.hashCode();
          List<Step> steps = Step.schedule(f, length, sentinelSettings, new Random(runSeed));
          plans.add(new TortureRun.Plan(name, f, steps, length, runSeed, Topology.SENTINEL, acks, sentinelSettings));
        }
      }
    }
    if (topologies.contains(Topology.CLUSTER)) {
      for (Fault f : Fault.CLUSTER) {
        for (int acks : f == Fault.KILL_PRIMARY ? new int[] {0, 1} : new int[] {0}) {
          String name = clusterRunName(f, acks);
          boolean selected = only == null || only.isEmpty()
              ? !shortSuite || name.equals(clusterRunName(Fault.KILL_PRIMARY, 0))
              : only.contains(f.id) || only.contains(name);
          if (selected) {
            Duration length = clusterSettings.runLength();
            long runSeed = seed * 1_000_003L + name.hashCode();
            List<Step> steps = Step.schedule(f, length, clusterSettings, new Random(runSeed));
            plans.add(new TortureRun.Plan(name, f, steps, length, runSeed, Topology.CLUSTER, acks, clusterSettings));
          }
        }
      }
    }
    if (topologies.contains(Topology.REDLOCK)) {
      for (Fault f : Fault.REDLOCK) {
        String name = redlockRunName(f);
        boolean selected = only == null || only.isEmpty()
            ? !shortSuite || f == Fault.RESTART_MASTER
            : only.contains(f.id) || only.contains(name);
        if (selected) {
          Duration length = redlockSettings.runLength();
          long runSeed = seed * 1_000_003L + name.hashCode();
          List<Step> steps = Step.schedule(f, length, redlockSettings, new Random(runSeed));
          plans.add(new TortureRun.Plan(name, f, steps, length, runSeed, Topology.REDLOCK, 0, redlockSettings));
        }
      }
    }
    if (plans.isEmpty()) {
      throw new IllegalArgumentException("no run of topology " + topologies.stream().map(t -> t.id).toList()
          + " is among " + only + " (the Sentinel topology's runs are failover and failover-hole, the Cluster"
          + " topology's kill-primary and migrate-slot, the Redlock"
          + " topology's partition-master, pause-master, restart-master, clock-step-master and restart-master-nodelay,"
          + " the lock family's " + familyRunNames() + ", the single"
          + " server's the others; --topology all runs every topology)");
    }
    return plans;
  }

  static String clusterRunName(Fault f, int replicaAcks) {
    return "cluster-" + f.id + (replicaAcks > 0 ? "-acks" : "");
  }

  private static List<String> clusterRunNames() {
    return List.of(clusterRunName(Fault.KILL_PRIMARY, 0), clusterRunName(Fault.KILL_PRIMARY, 1),
        clusterRunName(Fault.MIGRATE_SLOT, 0));
  }

  static String redlockRunName(Fault f) {
    return "redlock-" + f.id;
  }

  private static List<String> redlockRunNames() {
    return Fault.REDLOCK.stream().map(TortureMain::redlockRunName).toList();
  }

  static String sentinelRunName(Fault f, int replicaAcks) {
    return "sentinel-" + f.id + (replicaAcks > 0 ? "-acks" : "");
  }

  private static List<String> sentinelRunNames() {
    List<String> names = new ArrayList<>();
    for (Fault f : Fault.SENTINEL) {
      names.add(sentinelRunName(f, 0));
      names.add(sentinelRunName(f, 1));
    }
    return names;
  }

  /** The lock family's workloads, each with runs of its own on the single server. */
  static final List<Workload> FAMILY = List.of(Workload.READ_WRITE, Workload.SEMAPHORE);
  /** The faults of the lock family's runs in a full suite; {@link #FAMILY_SHORT} in a short one. */
  static final List<Fault> FAMILY_FAULTS = List.of(Fault.NONE, Fault.PAUSE_HOLDER, Fault.KILL_HOLDER,
      Fault.RESTART_REDIS);
  /**
   * The one fault of each lock family workload in a short suite: a paused holder, the case fencing
   * exists for (the paused reader, writer or permit holder comes back after its lease ran out).
   */
  static final Fault FAMILY_SHORT = Fault.PAUSE_HOLDER;

  private static List<String> familyRunNames() {
    List<String> names = new ArrayList<>();
    for (Workload w : FAMILY) {
      FAMILY_FAULTS.forEach(f -> names.add(w.runName(f)));
    }
    return names;
  }

  /**
   * The lock family's single-server runs ({@code rw-...}, {@code sem-...}): {@link #FAMILY_FAULTS}
   * for each workload, or {@link #FAMILY_SHORT} alone in a short suite; with {@code only}, the runs
   * it names, or every run of a workload it names ({@code rw}, {@code sem}).
   */
  private static List<TortureRun.Plan> familyPlans(TortureSettings settings, long seed, List<String> only,
      boolean shortSuite) {
    List<TortureRun.Plan> plans = new ArrayList<>();
    for (Workload w : FAMILY) {
      TortureSettings s = settings.forWorkload(w);
      for (Fault f : FAMILY_FAULTS) {
        String name = w.runName(f);
        boolean selected = only == null || only.isEmpty() ? !shortSuite || f == FAMILY_SHORT
            : only.contains(name) || only.contains(w.id);
        if (selected) {
          long runSeed = seed * 1_000_003L + name.hashCode();
          List<Step> steps = Step.schedule(f, s.runLength(), s, new Random(runSeed));
          plans.add(new TortureRun.Plan(name, f, steps, s.runLength(), runSeed, Topology.SINGLE, 0, s, w));
        }
      }
    }
    return plans;
  }

  private static List<TortureRun.Plan> singlePlans(TortureSettings settings, long seed, List<String> only) {
    List<TortureRun.Plan> plans = new ArrayList<>();
    List<Fault> order = new ArrayList<>(List.of(Fault.NONE, Fault.ABANDON_HOLDER));
    order.addAll(Fault.SINGLE);
    order.add(Fault.COMBINED);
    order.add(Fault.BLACKHOLE_RESUME);
    for (Fault f : order) {
      boolean byDefault = f != Fault.BLACKHOLE_RESUME;
      if ((only == null || only.isEmpty()) && !byDefault) {
        continue;
      }
      if (only != null && !only.isEmpty() && !only.contains(f.id)) {
        continue;
      }
      int copies = f == Fault.COMBINED ? settings.combinedRuns() : 1;
      for (int i = 1; i <= copies; i++) {
        String name = f.id + (i > 1 ? "-" + i : "");
        Duration length = f == Fault.COMBINED ? settings.combinedLength() : settings.runLength();
        long runSeed = seed * 1_000_003L + name.hashCode();
        List<Step> steps = Step.schedule(f, length, settings, new Random(runSeed));
        plans.add(new TortureRun.Plan(name, f, steps, length, runSeed));
      }
    }
    return plans;
  }
}

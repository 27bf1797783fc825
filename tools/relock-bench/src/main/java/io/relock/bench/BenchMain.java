package io.relock.bench;

import io.relock.bench.BenchTarget.Topology;
import io.relock.spi.RedisUri;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ./relock bench}: runs the scenarios and writes the results, the chart and the summary line. */
@Command(name = "relock bench", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Benchmarks relock side by side with Redisson, Spring Integration's RedisLockRegistry, the"
        + " SET NX recipe and the Redis-bound limit, against one Redis (REDIS_URL, or a redis-server it starts),"
        + " or a Sentinel group, Redis Cluster or Redlock masters it starts (--topology). Writes JSON and a PNG chart"
        + " and ends with one 'bench: ...' line.")
public final class BenchMain implements Callable<Integer> {

  @Option(names = "--short", description = "A run of about a minute and a quarter: 8 threads only, shorter phases,"
      + " no contended-1jvm scenario, held locks for 4 s instead of 60 s.")
  boolean shortRun;

  @Option(names = "--compare", description = "Instead of the Redis locks' run: relock, Redisson and the recipe"
      + " against ZooKeeper (Curator InterProcessMutex), etcd's lock API (jetcd) and PostgreSQL (advisory locks, the"
      + " articles' SELECT ... FOR UPDATE and version-column recipes), with the servers started for the run (etcd: the"
      + " machine's etcd binary, left out where there is none; PostgreSQL: POSTGRES_URL or embedded). Scenarios:"
      + " uncontended, contended across processes, a holder killed. About 5 minutes (--short: about 2).")
  boolean compare;

  @Option(names = "--family", description = "Instead of the Redis locks' run: the lock family, relock's read-write"
      + " lock and semaphore against Redisson's RReadWriteLock and RPermitExpirableSemaphore, 4 processes x 5"
      + " threads on one name: rw-read-heavy (90%% reads), rw-write-heavy (10%% reads), semaphore-5 (5 permits),"
      + " each checked for a writer beside anyone or more holders than permits. About a minute (--short: less).")
  boolean family;

  @Option(names = "--client", description = "Instead of the Redis locks' run: what relock's client costs in one process,"
      + " on Lettuce and on Jedis, nothing contended: a multi-lock of two locks in one call beside the same locks one"
      + " by one, one lock on one thread, 8 threads on a lock each (time, client CPU and operations per second),"
      + " and one lock on one thread with and without Micrometer Observations (RelockObservations), in turns."
      + " About four minutes (--short: about one).")
  boolean client;

  @Option(names = "--redis-cpu", description = "Instead of the Redis locks' run: what one uncontended lock and unlock"
      + " costs Redis, relock beside the recipe, from Redis's own counters (INFO cpu and commandstats), one thread"
      + " in this process, alternating windows.")
  boolean redisCpu;

  @Option(names = "--jfr-summary", paramLabel = "FILE", split = ",", description = "Instead of a run: where the"
      + " CPU went in JFR recordings of bench workers (RELOCK_BENCH_WORKER_OPTS, see tools/relock-bench/README.md): the share"
      + " of execution samples in each layer (relock's engine, Lettuce, Netty, the JDK...) and the methods most often"
      + " on top; with --write-docs, as Markdown.")
  List<Path> jfrSummary;

  @Option(names = "--render-docs", paramLabel = "FILE", split = ",", description = "Instead of a run: render"
      + " docs/benchmarks.md again from the data a --write-docs run saved beside its results (bench-docs*.json), each"
      + " file into its part of the page, e.g. after a change to a template (src/main/resources/io/relock/bench/docs);"
      + " the charts stay as they are.")
  List<Path> renderDocs;

  @Option(names = "--cold", description = "Instead of the Redis locks' run: how soon a fresh JVM holds its first lock,"
      + " relock beside Redisson, in fresh JVMs taking turns (4 rounds; 2 with --short).")
  boolean cold;

  @Option(names = "--forced-unlock", description = "Instead of the Redis locks' run: how soon a holder hears that"
      + " another client force-unlocked its lock, on one Redis, Sentinel, Cluster and Redlock (30 rounds each; 8 with"
      + " --short).")
  boolean forcedUnlock;

  @Option(names = "--family-rows", split = ",", paramLabel = "ROW",
      description = "The lock family rows to run (implies --family; default: rw-read-heavy,rw-write-heavy,semaphore-5):"
          + " rw-read-heavy, rw-write-heavy, rw-<N> (N%% reads), semaphore-<N> (N permits).")
  List<String> familyRows;

  @Option(names = "--write-docs", description = "Also write docs/benchmarks.md and docs/benchmarks.png; with"
      + " --topology sentinel, cluster or redlock, only that topology's section of docs/benchmarks.md (all: each"
      + " part from its own pass); with --compare or --family, only that run's section. What it renders is saved"
      + " beside the results, for --render-docs.")
  boolean writeDocs;

  @Option(names = "--impl", split = ",", paramLabel = "ID",
      description = "Implementations to run (default: all the topology supports): relock, relock+acks (Sentinel and"
          + " cluster only), redisson (not Redlock), redisson-redlock (Redlock only), spring-spin, spring-pubsub (one"
          + " Redis only), recipe (not Redlock), limit (one Redis or Sentinel).")
  List<String> impls;

  @Option(names = "--topology", paramLabel = "NAME", defaultValue = "single",
      description = "What Redis to run against: single (default: REDIS_URL or one redis-server), sentinel (a"
          + " primary, 1 replica and 3 sentinels the bench starts), cluster (3 primaries the bench starts; 1 replica"
          + " each when relock+acks runs), redlock (independent masters the bench starts, once per --redlock-masters"
          + " size), or all (the four one after another). All but single leave out the held scenario.")
  String topology;

  @Option(names = "--redlock-masters", split = ",", paramLabel = "N",
      description = "Sizes of the Redlock groups --topology redlock (or all) runs on, one pass each: odd, at least 3"
          + " (default: 3,5).")
  List<Integer> redlockMasters;

  @Option(names = "--scenario", split = ",", paramLabel = "NAME",
      description = "Scenarios to run: uncontended, contended-1jvm, contended-processes (also fairness), held,"
          + " holder-killed (default: all but holder-killed; with --short all but contended-1jvm and holder-killed;"
          + " with --compare uncontended, contended-processes and holder-killed).")
  List<String> scenarios;

  @Option(names = "--settle", paramLabel = "SECONDS",
      description = "How long a configuration's windows may be taken again while its JIT compiles"
          + " (default 15, with --short 3). Longer compares steady states, past the five-minute budget.")
  Integer settleSeconds;

  @Option(names = "--out", paramLabel = "DIR", description = "Where results go (default tools/relock-bench/target/bench).")
  Path out;

  @Option(names = "--docs-dir", paramLabel = "DIR", defaultValue = "docs",
      description = "Where --write-docs writes (default ${DEFAULT-VALUE}).")
  Path docsDir;

  private static final List<String> SCENARIOS = List.of("uncontended", "contended-1jvm", "contended-processes", "held",
      Results.HOLDER_KILLED);
  private static final List<String> COMPARE_SCENARIOS = List.of("uncontended", "contended-processes",
      Results.HOLDER_KILLED);

  /** How this run was started, for the chart and the docs. */
  private final List<String> commandLine = new ArrayList<>(List.of("./relock", "bench"));

  public static void main(String[] args) {
    quietLogging();
    pinDriver();
    System.setProperty("java.awt.headless", "true");
    BenchMain bench = new BenchMain();
    bench.commandLine.addAll(Arrays.asList(args));
    int code = new CommandLine(bench).execute(args);
    System.exit(code);
  }

  /**
   * relock clients that find their driver on the class path use Lettuce (Jedis is there too, for
   * {@link ClientCost}, which names its drivers); a {@code -Drelock.driver} given still wins.
   */
  static void pinDriver() {
    if (System.getProperty("relock.driver") == null) {
      System.setProperty("relock.driver", "lettuce");
    }
  }

  /** Libraries log at warn and above only, to standard error; must run before any logger exists. */
  static void quietLogging() {
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
  }

  @Override
  public Integer call() throws Exception {
    PrintStream log = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, StandardCharsets.UTF_8);
    boolean familyRun = family || (familyRows != null && !familyRows.isEmpty());
    if (familyRun && compare) {
      throw new CommandLine.ParameterException(new CommandLine(this), "--family and --compare are runs of their own:"
          + " choose one");
    }
    BenchSettings settings = familyRun ? BenchSettings.family(shortRun) : compare ? BenchSettings.compare(shortRun)
        : shortRun ? BenchSettings.shortRun() : BenchSettings.full();
    if (settleSeconds != null) {
      if (settleSeconds < 0 || settleSeconds > 600) {
        throw new CommandLine.ParameterException(new CommandLine(this),
            "--settle must be between 0 and 600 seconds, not " + settleSeconds);
      }
      settings = settings.withSettleLimit(Duration.ofSeconds(settleSeconds));
    }
    List<Deployment> deployments;
    try {
      deployments = Deployment.plan(topology, redlockMasters);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(new CommandLine(this), e.getMessage());
    }
    List<Topology> topologies = deployments.stream().map(Deployment::topology).distinct().toList();
    // Several passes get a header each and the summary lines together at the end.
    boolean every = deployments.size() > 1;
    List<Implementation> explicit = null;
    if (impls != null && !impls.isEmpty()) {
      explicit = new ArrayList<>();
      for (String id : impls) {
        try {
          explicit.add(Implementation.byId(id.trim()));
        } catch (IllegalArgumentException e) {
          throw new CommandLine.ParameterException(new CommandLine(this), e.getMessage());
        }
      }
    }
    List<String> runScenarios = scenarios != null && !scenarios.isEmpty() ? scenarios
        : compare ? COMPARE_SCENARIOS
        : SCENARIOS.stream().filter(s -> !s.equals(Results.HOLDER_KILLED) && !(shortRun && s.equals("contended-1jvm")))
            .toList();
    for (String s : runScenarios) {
      if (!SCENARIOS.contains(s)) {
        throw new CommandLine.ParameterException(new CommandLine(this), "unknown scenario '" + s + "'; known: " + SCENARIOS);
      }
    }
    String redisUrl = System.getenv("REDIS_URL");
    if (client) {
      if (familyRun || compare) {
        throw new CommandLine.ParameterException(new CommandLine(this), "--client is a run of its own: not with"
            + " --family or --compare");
      }
      try (BenchRedis redis = BenchRedis.open(redisUrl)) {
        log.println("relock bench --client: " + Machine.describe(redis).oneLine());
        new ClientCost(shortRun).run(redis.target().uri(), log);
      }
      return 0;
    }
    if (renderDocs != null) {
      for (Path file : renderDocs) {
        DocsWriter.Rendered rendered = DocsWriter.render(DocsWriter.Rendered.read(file), docsDir);
        log.println("docs: " + (rendered.part() == DocsWriter.Part.PAGE ? "" : "the " + rendered.part().id
            + " section of ") + docsDir.resolve("benchmarks.md") + ", from " + file);
      }
      return 0;
    }
    if (jfrSummary != null) {
      if (writeDocs) {
        DocsWriter.Rendered rendered = DocsWriter.writeProfile(JfrSummary.profiles(jfrSummary, 12),
            "./relock bench --jfr-summary " + jfrSummary.stream().map(f -> f.getFileName().toString())
                .collect(java.util.stream.Collectors.joining(",")) + " --write-docs", docsDir);
        log.println("docs: the client profile section of " + docsDir.resolve("benchmarks.md") + "; its data: "
            + saveDocsData(rendered, outDir(), "-profile"));
      } else {
        JfrSummary.print(jfrSummary, 12, System.out);
      }
      return 0;
    }
    if (cold) {
      try (BenchRedis redis = BenchRedis.open(redisUrl)) {
        log.println("relock bench --cold: " + Machine.describe(redis).oneLine());
        Path coldLogs = outDir().resolve("cold");
        java.nio.file.Files.createDirectories(coldLogs);
        new ColdStart(shortRun).run(redis, coldLogs, log);
      }
      return 0;
    }
    if (forcedUnlock) {
      new ForcedUnlockNotice(shortRun).run(log);
      return 0;
    }
    if (redisCpu) {
      try (BenchRedis redis = BenchRedis.open(redisUrl)) {
        log.println("relock bench --redis-cpu: " + Machine.describe(redis).oneLine());
        new RedisCost(shortRun).run(redis, log);
      }
      return 0;
    }
    if (familyRun) {
      return runFamily(explicit, settings, redisUrl, log);
    }
    if (compare) {
      return runCompare(explicit, runScenarios, settings, redisUrl, log);
    }
    if (explicit != null) {
      for (Implementation i : explicit) {
        if (i.comparison()) {
          throw new CommandLine.ParameterException(new CommandLine(this), i.id() + " runs with --compare, which starts"
              + " its server");
        }
      }
    }
    if (!topologies.contains(Topology.SINGLE)) {
      if (redisUrl != null && !redisUrl.isBlank()) {
        throw new CommandLine.ParameterException(new CommandLine(this), "REDIS_URL names one Redis; --topology "
            + topology + " runs against servers the bench starts itself: unset REDIS_URL");
      }
      if (scenarios != null && runScenarios.contains("held")) {
        throw new CommandLine.ParameterException(new CommandLine(this),
            "the held scenario runs on one Redis only (--topology single or all)");
      }
    }
    // Per pass, what runs there; an implementation named that cannot run there is an error,
    // unless several topologies run (then it runs where it can).
    Map<Deployment, List<Implementation>> plan = new LinkedHashMap<>();
    for (Deployment d : deployments) {
      Topology t = d.topology();
      List<Implementation> here = new ArrayList<>();
      for (Implementation i : explicit != null ? explicit
          : Arrays.stream(Implementation.values()).filter(i -> !i.comparison()).toList()) {
        if (i.runsOn(t) && (explicit != null || t != Topology.CLUSTER || !i.needsReplicas())) {
          here.add(i);
        } else if (explicit != null && topologies.size() == 1) {
          throw new CommandLine.ParameterException(new CommandLine(this), i.id() + " does not run on --topology "
              + t.id() + "; it runs on: " + Arrays.stream(Topology.values()).filter(i::runsOn).map(Topology::id).toList());
        }
      }
      plan.put(d, here);
    }
    Path outDir = outDir();

    List<String> summaries = new ArrayList<>();
    // The passes of each topology with a section of its own in docs/benchmarks.md.
    Map<Topology, List<Results>> sectionPasses = new LinkedHashMap<>();
    for (Map.Entry<Deployment, List<Implementation>> e : plan.entrySet()) {
      Deployment d = e.getKey();
      List<Implementation> chosen = e.getValue();
      List<String> here = d.topology() == Topology.SINGLE ? runScenarios
          : runScenarios.stream().filter(x -> !x.equals("held")).toList();
      if (every) {
        log.println();
        log.println("== topology " + d.id() + ": " + chosen.stream().map(Implementation::id).toList()
            + (here.size() < runScenarios.size() ? " (the held scenario runs on one Redis only)" : ""));
      }
      if (chosen.isEmpty() || here.isEmpty()) {
        log.println("nothing to run on topology " + d.id());
        continue;
      }
      Results results = runOn(d, chosen, here, settings, redisUrl, outDir, log);
      summaries.add(results.summaryLine());
      if (d.topology() != Topology.SINGLE) {
        sectionPasses.computeIfAbsent(d.topology(), t -> new ArrayList<>()).add(results);
      }
    }
    if (writeDocs) {
      // A topology's section holds every pass of it (Redlock: each size), so it is written once they all ran.
      for (Map.Entry<Topology, List<Results>> e : sectionPasses.entrySet()) {
        DocsWriter.Rendered rendered = DocsWriter.writeSection(e.getKey(), e.getValue(), String.join(" ", commandLine),
            docsDir);
        log.println("docs: the " + e.getKey().id() + " section of " + docsDir.resolve("benchmarks.md") + "; its data: "
            + saveDocsData(rendered, outDir, "-" + e.getKey().id()));
      }
    }
    if (every) {
      log.println();
      summaries.forEach(log::println);
    }
    return 0;
  }

  /** Saves what a part of docs/benchmarks.md was rendered from, for --render-docs; returns where. */
  private static Path saveDocsData(DocsWriter.Rendered rendered, Path outDir, String suffix) throws java.io.IOException {
    Path file = outDir.resolve("bench-docs" + suffix + ".json");
    rendered.save(file);
    return file;
  }

  private Path outDir() throws java.io.IOException {
    Path dir = out != null ? out
        : Files.isDirectory(Path.of("tools", "relock-bench")) ? Path.of("tools", "relock-bench", "target", "bench")
        : Path.of("bench-results");
    Files.createDirectories(dir);
    return dir;
  }

  /**
   * The {@code --compare} run: Redis (REDIS_URL or a redis-server started here) and the other lock
   * servers the chosen implementations need, started for the run; results in {@code
   * bench-results-compare.json} and {@code .png}, and with {@code --write-docs} the comparison's
   * section of docs/benchmarks.md.
   */
  private int runCompare(List<Implementation> explicit, List<String> runScenarios, BenchSettings settings,
      String redisUrl, PrintStream log) throws Exception {
    if (!topology.trim().equalsIgnoreCase("single")) {
      throw new CommandLine.ParameterException(new CommandLine(this), "--compare runs on one Redis, not --topology "
          + topology);
    }
    if (runScenarios.contains("held")) {
      throw new CommandLine.ParameterException(new CommandLine(this), "--compare has no held scenario (only relock"
          + " and Redisson have a watchdog to measure)");
    }
    List<Implementation> chosen = explicit != null ? explicit : Implementation.COMPARED;
    for (Implementation i : chosen) {
      if (!i.waits() || !i.runsOn(Topology.SINGLE)) {
        throw new CommandLine.ParameterException(new CommandLine(this), i.id() + " cannot run in --compare");
      }
    }
    Path outDir = outDir();
    Path logDir = outDir.resolve("compare");
    Files.createDirectories(logDir);
    long began = System.nanoTime();
    CpuAccount cpuBefore = CpuAccount.now();
    Results results;
    long detached;
    try (BenchRedis redis = BenchRedis.open(redisUrl)) {
      Machine machine = Machine.describe(redis);
      log.println("relock bench --compare (" + settings.mode() + ", relock " + machine.relockCommit() + "): "
          + machine.oneLine());
      log.printf(Locale.ROOT, "  load average before: %s%n", Machine.loadAverage());
      java.util.Set<Implementation.Server> needed = chosen.stream().map(Implementation::server)
          .collect(java.util.stream.Collectors.toCollection(() -> java.util.EnumSet.noneOf(Implementation.Server.class)));
      try (LockServers servers = LockServers.start(needed, logDir, log)) {
        Bench bench = new Bench(redis, settings, chosen, logDir, log, servers);
        List<Row> rows = new ArrayList<>();
        List<TakeoverRow> takeovers = new ArrayList<>();
        log.println("scenarios " + runScenarios + ", each implementation in turn, in worker JVMs of its own");
        bench.loadScenarios(runScenarios.contains("uncontended"), runScenarios.contains("contended-1jvm"),
            runScenarios.contains("contended-processes"), runScenarios.contains(Results.HOLDER_KILLED), rows, takeovers);
        java.util.Map<Implementation.Server, String> skipped = new java.util.EnumMap<>(Implementation.Server.class);
        for (Implementation.Server server : needed) {
          if (servers.skipped(server) != null) {
            skipped.put(server, servers.skipped(server));
          }
        }
        servers.close();
        detached = servers.detachedTicks();
        results = new Results(settings, machine, rows, List.of(), takeovers, (System.nanoTime() - began) / 1e9,
            Machine.loadAverage(), Deployment.of(Topology.SINGLE), new Results.Comparison(servers.descriptions(), skipped));
      }
    }
    CpuAccount cpuAfter = CpuAccount.now();
    results.othersCpuShare = cpuBefore == null || cpuAfter == null ? Double.NaN
        : cpuAfter.othersShareSince(cpuBefore, detached);
    report(results, outDir, "-compare", log);
    return 0;
  }

  /**
   * The {@code --family} run: the lock family's rows on one Redis (REDIS_URL or a redis-server
   * started here), relock and Redisson in turn; results in {@code bench-results-family.json} and
   * {@code .png}, and with {@code --write-docs} the lock family's section of docs/benchmarks.md.
   * Exits with 1 when a row failed its hold check.
   */
  private int runFamily(List<Implementation> explicit, BenchSettings settings, String redisUrl, PrintStream log)
      throws Exception {
    if (!topology.trim().equalsIgnoreCase("single")) {
      throw new CommandLine.ParameterException(new CommandLine(this), "--family runs on one Redis, not --topology "
          + topology);
    }
    if (scenarios != null && !scenarios.isEmpty()) {
      throw new CommandLine.ParameterException(new CommandLine(this), "--family runs its own rows: choose them with"
          + " --family-rows, not --scenario");
    }
    List<Workload> workloads;
    try {
      workloads = Workload.parseAll(familyRows != null && !familyRows.isEmpty() ? familyRows : Workload.FAMILY_ROWS);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(new CommandLine(this), e.getMessage());
    }
    List<Implementation> chosen = explicit != null ? explicit : Implementation.FAMILY;
    for (Implementation i : chosen) {
      if (!i.hasFamily()) {
        throw new CommandLine.ParameterException(new CommandLine(this), i.id() + " has no read-write lock or semaphore"
            + " in the bench; --family runs: " + Implementation.FAMILY.stream().map(Implementation::id).toList());
      }
    }
    Path outDir = outDir();
    Path logDir = outDir.resolve("family");
    Files.createDirectories(logDir);
    long began = System.nanoTime();
    CpuAccount cpuBefore = CpuAccount.now();
    Results results;
    try (BenchRedis redis = BenchRedis.open(redisUrl)) {
      Machine machine = Machine.describe(redis);
      log.println("relock bench --family (" + settings.mode() + ", relock " + machine.relockCommit() + "): "
          + machine.oneLine());
      log.printf(Locale.ROOT, "  load average before: %s%n", Machine.loadAverage());
      log.println("rows " + workloads.stream().map(w -> w.id() + " (" + w.describe() + ")").toList() + ", "
          + settings.processes() + " x " + settings.mostProcessThreads() + " threads, each implementation in turn, in"
          + " worker JVMs of its own");
      Bench bench = new Bench(redis, settings, chosen, logDir, log);
      List<Row> rows = new ArrayList<>();
      List<Results.Failure> failures = new ArrayList<>();
      bench.familyRows(workloads, rows, failures);
      results = new Results(settings, machine, rows, List.of(), List.of(), (System.nanoTime() - began) / 1e9,
          Machine.loadAverage(), Deployment.of(Topology.SINGLE), null, new Results.Family(workloads, failures));
    }
    CpuAccount cpuAfter = CpuAccount.now();
    results.othersCpuShare = cpuBefore == null || cpuAfter == null ? Double.NaN : cpuAfter.othersShareSince(cpuBefore);
    report(results, outDir, "-family", log);
    if (!results.family.failures().isEmpty()) {
      log.println("FAILED: " + results.family.failures().size() + " row(s) broke the lock's rule; see the table");
      return 1;
    }
    return 0;
  }

  /** Starts (or connects to) Redis as {@code deployment} says, runs the scenarios there, reports. */
  private Results runOn(Deployment deployment, List<Implementation> chosen, List<String> runScenarios,
      BenchSettings settings, String redisUrl, Path outDir, PrintStream log) throws Exception {
    Topology topology = deployment.topology();
    boolean single = topology == Topology.SINGLE;
    // One Redis: the files and worker logs where they always were; other topologies beside them.
    Path logDir = single ? outDir : outDir.resolve(deployment.id());
    Files.createDirectories(logDir);
    String suffix = single ? "" : "-" + deployment.id();
    long began = System.nanoTime();
    CpuAccount cpuBefore = CpuAccount.now();
    Results results;
    try (BenchRedis redis = switch (topology) {
      case SINGLE -> BenchRedis.open(redisUrl);
      case SENTINEL -> BenchRedis.startSentinel();
      case CLUSTER -> BenchRedis.startCluster(chosen.stream().anyMatch(Implementation::needsReplicas) ? 1 : 0);
      case REDLOCK -> BenchRedis.startRedlock(deployment.masters());
    }) {
      Machine machine = Machine.describe(redis);
      log.println("relock bench (" + settings.mode() + ", relock " + machine.relockCommit() + "): " + machine.oneLine());
      if (!single) {
        log.println("  topology " + deployment.id() + ": workers connect to " + RedisUri.redact(redis.target().spec())
            + "; calls counted on the primaries " + RedisUri.redact(redis.primaryUris().toString())
            + (topology == Topology.REDLOCK ? " and summed over them" : ""));
      }
      log.printf(Locale.ROOT, "  load average before: %s%n", Machine.loadAverage());
      if (shortRun) {
        log.printf(Locale.ROOT, "  short run: %s threads only uncontended, %d windows of %.1f s, shorter warm-ups (JVMs"
                + " often still compiling: rougher ratios than a full run's)%s%s%n",
            settings.uncontendedThreads().stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(", ")),
            settings.windows(), settings.window().toMillis() / 1000.0,
            runScenarios.contains("contended-1jvm") ? "" : ", scenario 2 (contended in one JVM) left out",
            runScenarios.contains("held") ? String.format(Locale.ROOT, "; %,d locks held for %d s under a %d s lease"
                + " (the full run: 30 s under 30 s, then 100,000 locks)", settings.heldLocks(), settings.holdFor().toSeconds(),
                settings.heldLease().toSeconds()) : "");
      }
      Bench bench = new Bench(redis, settings, chosen, logDir, log);
      List<Row> rows = new ArrayList<>();
      List<HeldRow> held = new ArrayList<>();
      boolean uncontended = runScenarios.contains("uncontended");
      boolean contendedInJvm = runScenarios.contains("contended-1jvm");
      boolean acrossProcesses = runScenarios.contains("contended-processes");
      boolean holderKilled = runScenarios.contains(Results.HOLDER_KILLED);
      List<TakeoverRow> takeovers = new ArrayList<>();
      Runnable load = () -> {
        if (uncontended || contendedInJvm || acrossProcesses || holderKilled) {
          log.println("scenarios 1, 2, 3 and 5 (" + String.join(", ", runScenarios.stream().filter(x -> !x.equals("held"))
              .toList()) + "), each implementation in turn, in worker JVMs of its own");
          bench.loadScenarios(uncontended, contendedInJvm, acrossProcesses, holderKilled, rows, takeovers);
        }
      };
      if (runScenarios.contains("held")) {
        log.println("scenario 4: held locks, after the other scenarios, each implementation in turn with nothing else"
            + " running" + (redis.started() ? ", on a redis-server of its own" : "") + String.format(Locale.ROOT,
            ": %,d locks", settings.heldLocks()) + (settings.moreHeldLocks() > 0 ? String.format(Locale.ROOT,
            ", then %,d", settings.moreHeldLocks()) : ""));
        held.addAll(bench.heldLocks(load));
      } else {
        load.run();
      }
      results = new Results(settings, machine, rows, held, takeovers, (System.nanoTime() - began) / 1e9,
          Machine.loadAverage(), deployment, null);
    }
    // After Redis and every worker have exited, so their CPU counts as the bench's own.
    CpuAccount cpuAfter = CpuAccount.now();
    results.othersCpuShare = cpuBefore == null || cpuAfter == null ? Double.NaN : cpuAfter.othersShareSince(cpuBefore);
    report(results, outDir, suffix, log);
    return results;
  }

  private void report(Results results, Path outDir, String suffix, PrintStream log) throws Exception {
    log.println();
    for (Table t : results.tables()) {
      log.println(t.toText());
    }
    if (results.comparison != null) {
      log.println("what each gives");
      for (Implementation i : results.rows.stream().map(r -> r.impl).distinct().toList()) {
        LockFacts f = LockFacts.of(i);
        log.printf(Locale.ROOT, "  %-20s fencing: %s; a dead holder's lock is freed when: %s; waiting: %s; on disk"
            + " before granted: %s%n", i.id(), f.fencing(), f.onDeath(), f.waiting(), f.durable());
      }
    } else if (results.topology == Topology.SINGLE) {
      log.println("relock against its targets");
      for (Results.Target t : results.targets()) {
        log.printf(Locale.ROOT, "  %-80s %-8s %10s  %s%n", t.what(), t.threshold(), Results.num(t.value(), 2), t.verdict());
      }
    } else {
      log.println("(relock's targets are judged on one Redis, --topology single)");
    }
    Path json = outDir.resolve("bench-results" + suffix + ".json");
    // Written after the CPU account, which the JSON includes.
    Files.writeString(json, BenchJson.pretty(results.toJson()), StandardCharsets.UTF_8);
    Path chart = outDir.resolve("bench-results" + suffix + ".png");
    String command = String.join(" ", commandLine);
    BenchChart.write(BenchChart.panelsFor(results), List.of(
        command + "   (" + results.settings.mode() + " run, " + String.format(Locale.ROOT, "%.0f s", results.wallSeconds)
            + ", other processes used " + results.othersCpuText() + " of the CPU; each bar the median of "
            + results.settings.windows() + " windows of " + results.settings.window().toMillis() / 1000.0 + " s)",
        results.machine.oneLine(), results.summaryLine()), chart);
    log.println();
    log.println("results: " + json + "  chart: " + chart);
    if (writeDocs && results.family != null) {
      DocsWriter.Rendered rendered = DocsWriter.writeFamily(results, command, chart, docsDir);
      log.println("docs: the lock family section of " + docsDir.resolve("benchmarks.md") + " and "
          + docsDir.resolve(DocsWriter.FAMILY_CHART) + "; its data: " + saveDocsData(rendered, outDir, suffix));
    } else if (writeDocs && results.comparison != null) {
      DocsWriter.Rendered rendered = DocsWriter.writeComparison(results, command, chart, docsDir);
      log.println("docs: the comparison section of " + docsDir.resolve("benchmarks.md") + " and "
          + docsDir.resolve(DocsWriter.COMPARISON_CHART) + "; its data: " + saveDocsData(rendered, outDir, suffix));
    } else if (writeDocs && results.topology == Topology.SINGLE) {
      DocsWriter.Rendered rendered = DocsWriter.write(results, command, chart, docsDir);
      log.println("docs: " + docsDir.resolve("benchmarks.md") + " and " + docsDir.resolve("benchmarks.png")
          + "; its data: " + saveDocsData(rendered, outDir, suffix));
    }
    log.printf(Locale.ROOT, "took %.0f s; other processes used %s of the machine's CPU meanwhile;"
        + " load average before %s, after %s%n", results.wallSeconds, results.othersCpuText(),
        results.machine.loadBefore(), results.loadAfter);
    if (results.machineWasBusy()) {
      log.println("WARNING: other processes took more than " + Math.round(Results.BUSY_SHARE * 100)
          + "% of the machine's CPU during the run; figures are not comparable with a quiet run");
    }
    log.println(results.summaryLine());
  }
}

package io.relock.bench;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ./relock bench}: runs the scenarios and writes the results, the chart and the summary line. */
@Command(name = "relock bench", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Benchmarks relock side by side with Redisson, Spring Integration's RedisLockRegistry, the"
        + " SET NX recipe and the Redis-bound limit, against one Redis (REDIS_URL, or a redis-server it starts)."
        + " Writes JSON and a PNG chart and ends with one 'bench: ...' line.")
public final class BenchMain implements Callable<Integer> {

  @Option(names = "--short", description = "A run of about a minute and a quarter: 8 threads only, shorter phases,"
      + " no contended-1jvm scenario, held locks for 4 s instead of 60 s.")
  boolean shortRun;

  @Option(names = "--write-docs", description = "Also write docs/benchmarks.md and docs/benchmarks.png.")
  boolean writeDocs;

  @Option(names = "--impl", split = ",", paramLabel = "ID",
      description = "Implementations to run (default all): relock, redisson, spring-spin, spring-pubsub, recipe, limit.")
  List<String> impls;

  @Option(names = "--scenario", split = ",", paramLabel = "NAME",
      description = "Scenarios to run: uncontended, contended-1jvm, contended-processes (also fairness), held"
          + " (default: all; with --short all but contended-1jvm).")
  List<String> scenarios;

  @Option(names = "--settle", paramLabel = "SECONDS",
      description = "How long a fresh JVM's first window may be taken again while its JIT compiles"
          + " (default 15, with --short 3). Longer compares steady states, past the five-minute budget.")
  Integer settleSeconds;

  @Option(names = "--out", paramLabel = "DIR", description = "Where results go (default relock-bench/target/bench).")
  Path out;

  @Option(names = "--docs-dir", paramLabel = "DIR", defaultValue = "docs",
      description = "Where --write-docs writes (default ${DEFAULT-VALUE}).")
  Path docsDir;

  private static final List<String> SCENARIOS = List.of("uncontended", "contended-1jvm", "contended-processes", "held");

  /** How this run was started, for the chart and the docs. */
  private final List<String> commandLine = new ArrayList<>(List.of("./relock", "bench"));

  public static void main(String[] args) {
    quietLogging();
    System.setProperty("java.awt.headless", "true");
    BenchMain bench = new BenchMain();
    bench.commandLine.addAll(Arrays.asList(args));
    int code = new CommandLine(bench).execute(args);
    System.exit(code);
  }

  /** Libraries log at warn and above only, to standard error; must run before any logger exists. */
  static void quietLogging() {
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
  }

  @Override
  public Integer call() throws Exception {
    PrintStream log = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, StandardCharsets.UTF_8);
    BenchSettings settings = shortRun ? BenchSettings.shortRun() : BenchSettings.full();
    if (settleSeconds != null) {
      if (settleSeconds < 0 || settleSeconds > 600) {
        throw new CommandLine.ParameterException(new CommandLine(this),
            "--settle must be between 0 and 600 seconds, not " + settleSeconds);
      }
      settings = settings.withSettleLimit(Duration.ofSeconds(settleSeconds));
    }
    List<Implementation> chosen = new ArrayList<>();
    if (impls == null || impls.isEmpty()) {
      chosen.addAll(Arrays.asList(Implementation.values()));
    } else {
      for (String id : impls) {
        try {
          chosen.add(Implementation.byId(id.trim()));
        } catch (IllegalArgumentException e) {
          throw new CommandLine.ParameterException(new CommandLine(this), e.getMessage());
        }
      }
    }
    List<String> runScenarios = scenarios != null && !scenarios.isEmpty() ? scenarios
        : shortRun ? SCENARIOS.stream().filter(s -> !s.equals("contended-1jvm")).toList() : SCENARIOS;
    for (String s : runScenarios) {
      if (!SCENARIOS.contains(s)) {
        throw new CommandLine.ParameterException(new CommandLine(this), "unknown scenario '" + s + "'; known: " + SCENARIOS);
      }
    }
    Path outDir = out != null ? out
        : Files.isDirectory(Path.of("relock-bench")) ? Path.of("relock-bench", "target", "bench") : Path.of("bench-results");
    Files.createDirectories(outDir);

    long began = System.nanoTime();
    CpuAccount cpuBefore = CpuAccount.now();
    Results results;
    try (BenchRedis redis = BenchRedis.open(System.getenv("REDIS_URL"))) {
      Machine machine = Machine.describe(redis);
      log.println("relock bench (" + settings.mode() + ", relock " + machine.relockCommit() + "): " + machine.oneLine());
      log.printf(Locale.ROOT, "  load average before: %s%n", Machine.loadAverage());
      if (shortRun) {
        log.printf(Locale.ROOT, "  short run: %s threads only, %.1f s windows, shorter warm-ups (JVMs"
                + " often still compiling: rougher ratios than a full run's), scenario 2 (contended in one JVM) left out;"
                + " %,d locks held for %d s under a %d s lease (the full run: 60 s under 30 s)%n",
            settings.uncontendedThreads().stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(", ")), settings.measure().toMillis() / 1000.0, settings.heldLocks(),
            settings.holdFor().toSeconds(), settings.heldLease().toSeconds());
      }
      Bench bench = new Bench(redis, settings, chosen, outDir, log);
      List<Row> rows = new ArrayList<>();
      List<HeldRow> held = new ArrayList<>();
      boolean uncontended = runScenarios.contains("uncontended");
      boolean contendedInJvm = runScenarios.contains("contended-1jvm");
      boolean acrossProcesses = runScenarios.contains("contended-processes");
      if (uncontended || contendedInJvm || acrossProcesses) {
        log.println("scenarios 1, 2, 3 and 5 (" + String.join(", ", runScenarios.stream().filter(x -> !x.equals("held")).toList())
            + "), each implementation in turn, in worker JVMs of its own");
        bench.loadScenarios(uncontended, contendedInJvm, acrossProcesses, rows);
      }
      if (runScenarios.contains("held")) {
        log.println("scenario 4: held locks");
        held.addAll(bench.heldLocks());
      }
      results = new Results(settings, machine, rows, held, (System.nanoTime() - began) / 1e9, Machine.loadAverage());
    }
    // After Redis and every worker have exited, so their CPU counts as the bench's own.
    CpuAccount cpuAfter = CpuAccount.now();
    results.othersCpuShare = cpuBefore == null || cpuAfter == null ? Double.NaN : cpuAfter.othersShareSince(cpuBefore);
    report(results, outDir, log);
    return 0;
  }

  private void report(Results results, Path outDir, PrintStream log) throws Exception {
    log.println();
    for (Table t : results.tables()) {
      log.println(t.toText());
    }
    log.println("relock against its targets");
    for (Results.Target t : results.targets()) {
      log.printf(Locale.ROOT, "  %-80s %-8s %10s  %s%n", t.what(), t.threshold(), Results.num(t.value(), 2), t.verdict());
    }
    Path json = outDir.resolve("bench-results.json");
    // Written after the CPU account, which the JSON includes.
    Files.writeString(json, Json.writePretty(results.toJson()), StandardCharsets.UTF_8);
    Path chart = outDir.resolve("bench-results.png");
    String command = String.join(" ", commandLine);
    ChartRenderer.write(ChartRenderer.panelsFor(results), List.of(
        command + "   (" + results.settings.mode() + " run, " + String.format(Locale.ROOT, "%.0f s", results.wallSeconds)
            + ", other processes used " + results.othersCpuText() + " of the CPU)",
        results.machine.oneLine(), results.summaryLine()), chart);
    log.println();
    log.println("results: " + json + "  chart: " + chart);
    if (writeDocs) {
      DocsWriter.write(results, command, chart, docsDir);
      log.println("docs: " + docsDir.resolve("benchmarks.md") + " and " + docsDir.resolve("benchmarks.png"));
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

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
@Command(name = "relock torture", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Jepsen-style safety suite. Worker JVMs take relock locks and update a fenced counter on a",
        "separate Redis while a seeded nemesis pauses and kills lock holders, cuts, blackholes and",
        "delays their connections, and restarts or pauses the lock Redis. A checker then reads the",
        "histories. Runs: none (no fault), each fault alone, and combined. Always starts its own",
        "redis-servers (REDIS_URL is ignored: the suite must be able to restart and pause them).",
        "Exits 1 on any fencing violation, unreported loss, stuck lock or lost update, or any",
        "overlap in the fault-free run. The last line reads:",
        "torture: runs=<n> unfenced_overlaps=<n> fenced_violations=<n> unreported_losses=<n> stuck_locks=<n> lost_updates=<n>"})
public final class TortureMain implements Callable<Integer> {

  @Option(names = "--seed", paramLabel = "N",
      description = "Seed of the fault schedules (default: random, printed). Reproduces the schedule, not the interleavings.")
  Long seed;

  @Option(names = "--short", description = "The CI version: 2 workers x 2 threads, about 2 minutes.")
  boolean shortRun;

  @Option(names = "--runs", split = ",", paramLabel = "RUN",
      description = "Runs to do (default all): none, abandon-holder, pause-holder, kill-holder, restart-redis, pause-redis, "
          + "cut-holder, blackhole-holder, delay, combined; also blackhole-resume (not in the default set).")
  List<String> runs;

  @Option(names = "--run-seconds", paramLabel = "S",
      description = "Override how long the nemesis acts in each run (combined runs get 1.5 times as long).")
  Integer runSeconds;

  @Option(names = "--out", paramLabel = "DIR",
      description = "Where histories and reports go (default relock-torture/target/torture).")
  Path out;

  @Option(names = "--write-docs", description = "Also write docs/safety.md from this run.")
  boolean writeDocs;

  @Option(names = "--docs-dir", paramLabel = "DIR", defaultValue = "docs",
      description = "Where --write-docs writes (default ${DEFAULT-VALUE}).")
  Path docsDir;

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
    if (runSeconds != null) {
      settings = settings.withRunLength(Duration.ofSeconds(runSeconds), Duration.ofMillis(runSeconds * 1500L));
    }
    Path outDir = out != null ? out
        : Files.isDirectory(Path.of("relock-torture")) ? Path.of("relock-torture", "target", "torture") : Path.of("torture-results");
    List<TortureRun.Plan> plans = plans(settings, theSeed, runs);
    console.printf(Locale.ROOT, "torture: seed %d (reproduce the schedules with --seed %d), %d runs, %d workers x %d threads,"
        + " locks %s, lease %d ms, histories in %s%n", theSeed, theSeed, plans.size(), settings.processes(),
        settings.threads(), settings.locks(), settings.lease().toMillis(), outDir.toAbsolutePath());
    TortureSuite suite = new TortureSuite(settings, outDir, console);
    List<RunResult> results = suite.run(plans);
    List<String> table = SummaryTable.markdown(results);
    console.println();
    table.forEach(console::println);
    console.println();
    boolean failed = false;
    for (RunResult r : results) {
      for (String f : r.failures()) {
        console.println("FAIL " + r.run() + ": " + f + "   (details: " + outDir.resolve(r.run()).resolve("report.txt") + ")");
        failed = true;
      }
    }
    String summary = SummaryTable.summaryLine(results);
    if (writeDocs) {
      Path doc = SafetyDoc.write(docsDir, results, settings, theSeed, command(), suite.elapsed(), summary);
      console.println("wrote " + doc);
    }
    console.println(summary);
    return failed ? 1 : 0;
  }

  private String command() {
    return ("./relock torture " + String.join(" ", arguments.stream().filter(a -> !a.startsWith("--write-docs")
        && !a.startsWith("--docs-dir") && !a.startsWith("--out")).toList())).trim();
  }

  /** The runs of a suite, each with its own schedule drawn from the seed and the run's name. */
  static List<TortureRun.Plan> plans(TortureSettings settings, long seed, List<String> only) {
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
    if (only != null) {
      for (String id : only) {
        Fault.byId(id);  // rejects unknown names with the list of known ones
      }
    }
    return plans;
  }
}

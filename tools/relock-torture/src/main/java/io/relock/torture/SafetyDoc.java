package io.relock.torture;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.samskivert.mustache.Mustache;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes {@code docs/safety.md}: the template {@code safety.md.mustache} (all the prose) filled in
 * with a {@link Model} of the run: the command, the machine, the settings, the table, and per
 * topology and kind of lock the sums of its runs. Numbers come from the run, never from the
 * template.
 */
final class SafetyDoc {

  private SafetyDoc() {}

  /** Everything the page says that comes from the run. */
  record Model(String command, long seed, String date, String elapsed, String commit, String machine,
      List<Settings> settings, List<String> table, String summary, List<RunFaults> faults, List<String> examples,
      SentinelRuns sentinel, ClusterRuns cluster, RedlockRuns redlock, List<FamilyRuns> family,
      List<FaultLine> faultList, int longHoldOneIn) {}

  /**
   * The settings of one topology's runs (one of the four flags set; {@code replicated} for
   * Sentinel and Cluster, whose sentences share their second half). Times in ms unless named.
   */
  record Settings(boolean single, boolean sentinel, boolean cluster, boolean replicated, boolean redlock,
      int processes, int threads, String locks, long lease, long commandTimeout, long recheck, long acquireWait,
      long holdMin, long holdMax, int longHoldOneIn, long longHoldMin, long longHoldMax, long runSeconds,
      long combinedSeconds, int combinedRuns, long stuckBound, long stuckLimit, long ackTimeout, int primaries,
      int masters, long perNodeTimeout, long restartDelay) {}

  /** A run's fault and the faults its nemesis injected. */
  record RunFaults(String run, String description, List<String> done) {}

  /** A fault the suite can inject. */
  record FaultLine(String id, String description) {}

  /** Overlapping pairs of the runs of one fault. */
  record ByFault(long pairs, String fault) {}

  /** The Sentinel runs, with and without replicaAcks; null fields where no run had that setting. */
  record SentinelRuns(List<String> runs, int count, long failovers, long holes, String average, long maxMillis,
      SentinelOff off, SentinelOn on, Totals totals, String cost) {}

  record SentinelOff(long erased, boolean oneErased, long told, long noticed, long atClose, long untold,
      boolean someUntold, long unreachable, long overlapped, long releases, boolean oneRelease, long pairs,
      List<ByFault> byFault, long refused) {}

  record SentinelOn(String acks, long granted, long erased, long acquireErrors, long ackRefusals, boolean offRuns,
      long offAcquireErrors, long pairs, List<ByFault> byFault, long offPairs) {}

  /** What every topology's section ends with. */
  record Totals(long violations, long unreported, long stuck, long lostUpdates) {}

  record ClusterRuns(List<String> runs, int count, long failovers, String average, long maxMillis, long migrations,
      long pairs, List<ByFault> byFault, long unexplained, long refused, long acquireErrors, long ackRefusals,
      Totals totals) {}

  /** The Redlock runs; {@code delayed}, {@code control} and {@code clock} null where no run had those faults. */
  record RedlockRuns(List<String> runs, int count, long partitions, long pauses, long restarts, long controlRestarts,
      long clockSteps, long pairs, List<ByFault> byFault, long unexplained, long refused, long acquireErrors,
      Delayed delayed, Erasures control, Erasures clock, long leftovers, long stuck, Totals totals) {}

  record Delayed(long erased, boolean oneErased, long told, long unreachable, boolean someUnreachable, long overlapped,
      long beforeTold) {}

  record Erasures(long erased, long overlapped, long beforeTold, long told, long refused, long violations) {}

  /** The runs of one kind of lock of the family. */
  record FamilyRuns(boolean readWrite, int permits, List<String> runs, long holds, int count, long faults, long pairs,
      List<ByFault> byFault, long unexplained, long refused, long violations, long lost, long unreported,
      long measured, long stuck, long writes, long lostUpdates) {}

  private static final Mustache.Compiler TEMPLATES = Mustache.compiler().escapeHTML(false).strictSections(true);

  static Path write(Path docsDir, List<RunResult> results, TortureSettings settings, TortureSettings sentinelSettings,
      TortureSettings clusterSettings, TortureSettings redlockSettings, long seed, String command, Duration elapsed,
      String summary) {
    Model model = model(results, settings, sentinelSettings, clusterSettings, redlockSettings, seed, command, elapsed,
        summary, LocalDate.now(ZoneOffset.UTC).toString(), machine(), commit());
    @SuppressWarnings("unchecked")
    Map<String, Object> data = new ObjectMapper().convertValue(model, Map.class);
    String text = TEMPLATES.compile(template()).execute(data);
    try {
      Files.createDirectories(docsDir);
      Path doc = docsDir.resolve("safety.md");
      Files.writeString(doc, text, StandardCharsets.UTF_8);
      return doc;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + docsDir.resolve("safety.md"), e);
    }
  }

  static Model model(List<RunResult> results, TortureSettings settings, TortureSettings sentinelSettings,
      TortureSettings clusterSettings, TortureSettings redlockSettings, long seed, String command, Duration elapsed,
      String summary, String date, String machine, String commit) {
    boolean single = results.stream().anyMatch(r -> r.topology() == Topology.SINGLE);
    boolean sentinel = results.stream().anyMatch(r -> r.topology() == Topology.SENTINEL);
    boolean cluster = results.stream().anyMatch(r -> r.topology() == Topology.CLUSTER);
    boolean redlock = results.stream().anyMatch(r -> r.topology() == Topology.REDLOCK);
    List<Settings> parts = new ArrayList<>();
    if (single || (!sentinel && !cluster && !redlock)) {
      parts.add(settings(Topology.SINGLE, settings));
    }
    if (sentinel) {
      parts.add(settings(Topology.SENTINEL, sentinelSettings));
    }
    if (cluster) {
      parts.add(settings(Topology.CLUSTER, clusterSettings));
    }
    if (redlock) {
      parts.add(settings(Topology.REDLOCK, redlockSettings));
    }
    List<String> examples = new ArrayList<>();
    for (RunResult r : results) {
      r.examples().stream().limit(2).forEach(e -> examples.add(r.run() + ": " + e));
    }
    return new Model(command, seed, date, String.format(Locale.ROOT, "%.1f", elapsed.toMillis() / 60000.0), commit,
        machine, parts, SummaryTable.markdown(results), summary,
        results.stream().map(r -> new RunFaults(r.run(), r.fault().description, r.faultsDone())).toList(), examples,
        sentinel(results), cluster(results), redlock(results), family(results),
        Arrays.stream(Fault.values()).filter(f -> f != Fault.BLACKHOLE_RESUME)
            .map(f -> new FaultLine(f.id, f.description)).toList(), settings.longHoldOneIn());
  }

  private static Settings settings(Topology topology, TortureSettings s) {
    return new Settings(topology == Topology.SINGLE, topology == Topology.SENTINEL, topology == Topology.CLUSTER,
        topology == Topology.SENTINEL || topology == Topology.CLUSTER, topology == Topology.REDLOCK, s.processes(),
        s.threads(), s.locks().toString(), s.lease().toMillis(), s.commandTimeout().toMillis(),
        s.recheckInterval().toMillis(), s.acquireWait().toMillis(), s.holdMin().toMillis(), s.holdMax().toMillis(),
        s.longHoldOneIn(), s.longHoldMin().toMillis(), s.longHoldMax().toMillis(), s.runLength().toSeconds(),
        s.combinedLength().toSeconds(), s.combinedRuns(), s.stuckBound().toMillis(),
        s.lease().plus(s.stuckBound()).toMillis(), TortureSettings.REPLICA_ACK_TIMEOUT.toMillis(),
        Cluster.CLUSTER_PRIMARIES, Cluster.REDLOCK_MASTERS,
        s.commandTimeout().toMillis() / 4, s.redlockRestartDelay().toMillis());
  }

  /** "Redlock, measured": every number from the Redlock runs of this suite; null without any. */
  static RedlockRuns redlock(List<RunResult> results) {
    List<RunResult> all = results.stream().filter(r -> r.topology() == Topology.REDLOCK).toList();
    if (all.isEmpty()) {
      return null;
    }
    List<RunResult> delayed = all.stream().filter(r -> r.fault() == Fault.RESTART_MASTER).toList();
    List<RunResult> control = all.stream().filter(r -> r.fault() == Fault.RESTART_MASTER_NODELAY).toList();
    List<RunResult> clock = all.stream().filter(r -> r.fault() == Fault.CLOCK_STEP_MASTER).toList();
    long erased = sum(delayed, r -> r.redlock().erased());
    return new RedlockRuns(names(all), all.size(), sum(all, r -> r.redlock().partitions()),
        sum(all, r -> r.redlock().pauses()),
        sum(all, r -> r.redlock().restarts()), sum(all, r -> r.redlock().controlRestarts()),
        sum(all, r -> r.redlock().clockSteps()), sum(all, r -> r.overlaps().pairs()), byFault(all),
        sum(all, r -> r.overlaps().unexplained()), sum(all, r -> r.fencing().staleRefused()),
        sum(all, r -> r.redlock().acquireErrors()),
        sum(delayed, r -> r.redlock().restarts()) == 0 ? null : new Delayed(erased, erased == 1,
            sum(delayed, r -> r.redlock().erasedTold()), sum(delayed, r -> r.redlock().erasedUnreachable()),
            sum(delayed, r -> r.redlock().erasedUnreachable()) > 0, sum(delayed, r -> r.redlock().erasedOverlapped()),
            sum(delayed, r -> r.redlock().overlappedBeforeTold())),
        control.isEmpty() ? null : erasures(control), clock.isEmpty() ? null : erasures(clock),
        sum(all, r -> r.stuck().leftovers()), sum(all, r -> r.stuck().stuck()), totals(all));
  }

  private static Erasures erasures(List<RunResult> runs) {
    return new Erasures(sum(runs, r -> r.redlock().erased()), sum(runs, r -> r.redlock().erasedOverlapped()),
        sum(runs, r -> r.redlock().overlappedBeforeTold()), sum(runs, r -> r.redlock().erasedTold()),
        sum(runs, r -> r.fencing().staleRefused()), sum(runs, r -> r.fencing().violations()));
  }

  /** "The lock family, measured": every number from the read-write and semaphore runs. */
  static List<FamilyRuns> family(List<RunResult> results) {
    List<FamilyRuns> out = new ArrayList<>();
    for (Workload w : TortureMain.FAMILY) {
      List<RunResult> all = results.stream().filter(r -> r.workload() == w).toList();
      if (!all.isEmpty()) {
        out.add(new FamilyRuns(w == Workload.READ_WRITE, Workload.PERMITS, names(all), sum(all, RunResult::holds),
            all.size(), sum(all, r -> r.faultsDone().size()), sum(all, r -> r.overlaps().pairs()), byFault(all),
            sum(all, r -> r.overlaps().unexplained()), sum(all, r -> r.fencing().staleRefused()),
            sum(all, r -> r.fencing().violations()), sum(all, r -> r.losses().lost()),
            sum(all, r -> r.losses().unreported()), sum(all, r -> r.stuck().measured()),
            sum(all, r -> r.stuck().stuck()),
            sum(all, r -> r.updates().accepted()), sum(all, r -> r.updates().lost())));
      }
    }
    return out;
  }

  /** "Redis Cluster, measured": every number from the Cluster runs of this suite; null without any. */
  static ClusterRuns cluster(List<RunResult> results) {
    List<RunResult> all = results.stream().filter(r -> r.topology() == Topology.CLUSTER).toList();
    if (all.isEmpty()) {
      return null;
    }
    long failovers = sum(all, r -> r.failover().failovers());
    return new ClusterRuns(names(all), all.size(), failovers,
        average(failovers, sum(all, r -> r.failover().totalFailoverMillis())),
        all.stream().mapToLong(r -> r.failover().maxFailoverMillis()).max().orElse(0),
        sum(all, SummaryTable::migrations),
        sum(all, r -> r.overlaps().pairs()), byFault(all), sum(all, r -> r.overlaps().unexplained()),
        sum(all, r -> r.fencing().staleRefused()), sum(all, r -> r.failover().acquireErrors()),
        sum(all, r -> r.failover().ackRefusals()), totals(all));
  }

  /** "Sentinel failover, measured": every number from the Sentinel runs of this suite; null without any. */
  static SentinelRuns sentinel(List<RunResult> results) {
    List<RunResult> all = results.stream().filter(r -> r.topology() == Topology.SENTINEL).toList();
    if (all.isEmpty()) {
      return null;
    }
    List<RunResult> off = all.stream().filter(r -> r.replicaAcks() == 0).toList();
    List<RunResult> on = all.stream().filter(r -> r.replicaAcks() > 0).toList();
    long failovers = sum(all, r -> r.failover().failovers());
    SentinelOff withoutAcks = null;
    if (!off.isEmpty()) {
      long erased = sum(off, r -> r.failover().erased());
      long releases = sum(off, r -> r.stuck().erasedReleases());
      withoutAcks = new SentinelOff(erased, erased == 1, sum(off, r -> r.failover().erasedTold()),
          sum(off, r -> r.failover().erasedNoticed()), sum(off, r -> r.failover().erasedAtClose()),
          erased - sum(off, r -> r.failover().erasedTold()), erased != sum(off, r -> r.failover().erasedTold()),
          sum(off, r -> r.failover().erasedUnreachable()),
          sum(off, r -> r.failover().erasedOverlapped()), releases, releases == 1, sum(off, r -> r.overlaps().pairs()),
          byFault(off), sum(off, r -> r.fencing().staleRefused()));
    }
    SentinelOn withAcks = on.isEmpty() ? null : new SentinelOn(SummaryTable.acks(on.get(0).replicaAcks()),
        sum(on, r -> r.failover().grantedInHole()), sum(on, r -> r.failover().erased()),
        sum(on, r -> r.failover().acquireErrors()), sum(on, r -> r.failover().ackRefusals()), !off.isEmpty(),
        sum(off, r -> r.failover().acquireErrors()), sum(on, r -> r.overlaps().pairs()), byFault(on),
        sum(off, r -> r.overlaps().pairs()));
    return new SentinelRuns(names(all), all.size(), failovers, sum(all, r -> r.failover().holes()),
        average(failovers, sum(all, r -> r.failover().totalFailoverMillis())),
        all.stream().mapToLong(r -> r.failover().maxFailoverMillis()).max().orElse(0), withoutAcks, withAcks,
        totals(all), SummaryTable.ackCost(all));
  }

  /** The mean time from a kill to the new primary, "1.5 s on average", or "-" without failovers. */
  private static String average(long failovers, long totalMillis) {
    return failovers == 0 ? "-" : String.format(Locale.ROOT, "%.1f s on average", totalMillis / 1000.0 / failovers);
  }

  private static Totals totals(List<RunResult> runs) {
    return new Totals(sum(runs, r -> r.fencing().violations()), sum(runs, r -> r.losses().unreported()),
        sum(runs, r -> r.stuck().stuck()), sum(runs, r -> r.updates().lost()));
  }

  private static List<String> names(List<RunResult> runs) {
    return runs.stream().map(RunResult::run).toList();
  }

  /** Overlapping pairs per fault of the runs, in the order the faults first ran. */
  private static List<ByFault> byFault(List<RunResult> runs) {
    return runs.stream().map(RunResult::fault).distinct().map(f -> new ByFault(sum(runs.stream()
        .filter(r -> r.fault() == f).toList(), r -> r.overlaps().pairs()), f.id)).toList();
  }

  private static long sum(List<RunResult> runs, java.util.function.ToLongFunction<RunResult> f) {
    return runs.stream().mapToLong(f).sum();
  }

  private static Reader template() {
    InputStream in = SafetyDoc.class.getResourceAsStream("safety.md.mustache");
    if (in == null) {
      throw new IllegalStateException("resource safety.md.mustache is missing");
    }
    return new InputStreamReader(in, StandardCharsets.UTF_8);
  }

  private static String machine() {
    String cpu = "unknown CPU";
    try {
      cpu = Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
          .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElse(cpu);
    } catch (IOException | RuntimeException e) {
      // Not Linux, or no /proc: the rest of the line still says enough.
    }
    String redis = io.relock.testkit.RedisServer.binary().toString();
    return String.format(Locale.ROOT, "%d cores (%s), %s %s, Java %s, redis-server %s",
        Runtime.getRuntime().availableProcessors(), cpu, System.getProperty("os.name"),
        System.getProperty("os.arch"), System.getProperty("java.version"), redisVersion(redis));
  }

  private static String redisVersion(String binary) {
    try {
      Process p = new ProcessBuilder(binary, "--version").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      p.waitFor();
      int v = out.indexOf("v=");
      return v < 0 ? binary : out.substring(v + 2, out.indexOf(' ', v));
    } catch (IOException e) {
      return binary;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return binary;
    }
  }

  /** The commit the run was built from, and whether relock's own modules had local changes. */
  private static String commit() {
    String head = git("rev-parse", "--short", "HEAD");
    if (head.isEmpty()) {
      return "(commit unknown)";
    }
    String dirty = git("status", "--porcelain", "--", "relock-core", "relock-lettuce", "relock-testkit");
    return "at commit " + head + (dirty.isEmpty() ? "" : " with local changes to relock-core, -lettuce or -testkit");
  }

  private static String git(String... args) {
    List<String> command = new ArrayList<>(List.of("git"));
    command.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      return p.waitFor() == 0 ? out : "";
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }
}

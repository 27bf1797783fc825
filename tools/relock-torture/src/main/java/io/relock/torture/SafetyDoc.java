package io.relock.torture;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Writes {@code docs/safety.md}: the prose of {@code safety-template.md} with the measured table,
 * the command, the machine and the summary line filled in. Numbers come from the run, never from
 * the template.
 */
final class SafetyDoc {

  private SafetyDoc() {}

  static Path write(Path docsDir, List<RunResult> results, TortureSettings settings, TortureSettings sentinelSettings,
      TortureSettings clusterSettings, TortureSettings redlockSettings, long seed, String command, Duration elapsed,
      String summary) {
    boolean single = results.stream().anyMatch(r -> r.topology() == Topology.SINGLE);
    boolean sentinel = results.stream().anyMatch(r -> r.topology() == Topology.SENTINEL);
    boolean cluster = results.stream().anyMatch(r -> r.topology() == Topology.CLUSTER);
    boolean redlock = results.stream().anyMatch(r -> r.topology() == Topology.REDLOCK);
    List<String> settingsParts = new ArrayList<>();
    if (single || (!sentinel && !cluster && !redlock)) {
      settingsParts.add(settings(settings));
    }
    if (sentinel) {
      settingsParts.add(sentinelSettings(sentinelSettings));
    }
    if (cluster) {
      settingsParts.add(clusterSettings(clusterSettings));
    }
    if (redlock) {
      settingsParts.add(redlockSettings(redlockSettings));
    }
    String settingsText = String.join(" ", settingsParts);
    String text = template()
        .replace("{{COMMAND}}", command)
        .replace("{{SEED}}", Long.toString(seed))
        .replace("{{DATE}}", LocalDate.now(ZoneOffset.UTC).toString())
        .replace("{{MACHINE}}", machine())
        .replace("{{ELAPSED}}", String.format(Locale.ROOT, "%.1f minutes", elapsed.toMillis() / 60000.0))
        .replace("{{SETTINGS}}", settingsText)
        .replace("{{SENTINEL}}", sentinel(results))
        .replace("{{CLUSTER}}", cluster(results))
        .replace("{{REDLOCK}}", redlock(results))
        .replace("{{FAMILY}}", family(results))
        .replace("{{TABLE}}", String.join("\n", SummaryTable.markdown(results)))
        .replace("{{FAULTS}}", faults(results))
        .replace("{{EXAMPLES}}", examples(results))
        .replace("{{SUMMARY}}", summary)
        .replace("{{FAULT_LIST}}", faultList())
        .replace("{{LONG_HOLD_ONE_IN}}", Integer.toString(settings.longHoldOneIn()))
        .replace("{{COMMIT}}", commit());
    try {
      Files.createDirectories(docsDir);
      Path doc = docsDir.resolve("safety.md");
      Files.writeString(doc, text, StandardCharsets.UTF_8);
      return doc;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + docsDir.resolve("safety.md"), e);
    }
  }

  private static String template() {
    try (InputStream in = SafetyDoc.class.getResourceAsStream("safety-template.md")) {
      if (in == null) {
        throw new IllegalStateException("resource safety-template.md is missing");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read safety-template.md", e);
    }
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

  private static String settings(TortureSettings s) {
    return String.format(Locale.ROOT,
        "%d worker processes x %d threads, locks %s, lease %d ms (watchdog-renewed; one hold in four uses a"
            + " fixed lease of the same length), command timeout %d ms, recheck interval %d ms, acquire wait %d ms,"
            + " %d-%d ms between a critical section's read and write (one watchdog-renewed hold in %d: %d-%d ms),"
            + " %d s per single-fault run, %d s per combined run (%d). Stuck-lock limit: lease + %d ms = %d ms.",
        s.processes(), s.threads(), s.locks(), s.lease().toMillis(), s.commandTimeout().toMillis(),
        s.recheckInterval().toMillis(), s.acquireWait().toMillis(), s.holdMin().toMillis(), s.holdMax().toMillis(),
        s.longHoldOneIn(), s.lease().toMillis(), s.longHoldMax().toMillis(), s.runLength().toSeconds(), s.combinedLength().toSeconds(), s.combinedRuns(), s.stuckBound().toMillis(),
        s.lease().plus(s.stuckBound()).toMillis());
  }

  private static String sentinelSettings(TortureSettings s) {
    return replicatedSettings("Sentinel runs: a primary, one replica and three sentinels (quorum 2, down-after 1 s; the"
        + " workers find the primary through the sentinels)", "", s);
  }

  private static String clusterSettings(TortureSettings s) {
    return replicatedSettings("Cluster runs: a Redis Cluster of " + Cluster.CLUSTER_PRIMARIES + " primaries with one"
        + " replica each (cluster-node-timeout 1 s; the workers use relock's cluster(...) with the primaries as"
        + " seeds)", " (spread over the primaries' slots)", s);
  }

  /** The settings of the runs on a replicated topology, after {@code what} they run on. */
  private static String replicatedSettings(String what, String aboutLocks, TortureSettings s) {
    return String.format(Locale.ROOT,
        "%s, %d worker processes x %d threads, locks %s%s, lease %d ms (longer than a failover, so that what"
            + " reached the replica survives one), one watchdog-renewed hold in %d held %d-%d ms, other settings as"
            + " above, %d s per run, relock's replicaAcks off or 1 replica within %d ms.",
        what, s.processes(), s.threads(), s.locks(), aboutLocks, s.lease().toMillis(), s.longHoldOneIn(),
        s.longHoldMin().toMillis(), s.longHoldMax().toMillis(), s.runLength().toSeconds(),
        TortureSettings.REPLICA_ACK_TIMEOUT.toMillis());
  }

  private static String redlockSettings(TortureSettings s) {
    return String.format(Locale.ROOT,
        "Redlock runs: %d independent masters, each worker reaching each master through a proxy of its own,"
            + " %d worker processes x %d threads, locks %s, lease %d ms (per-node timeout %d ms, a quarter of the"
            + " command timeout), redlockRestartDelay %d ms, one watchdog-renewed hold in %d held %d-%d ms, other"
            + " settings as above, %d s per run.",
        Cluster.REDLOCK_MASTERS, s.processes(), s.threads(), s.locks(), s.lease().toMillis(),
        s.commandTimeout().toMillis() / 4, s.redlockRestartDelay().toMillis(), s.longHoldOneIn(),
        s.longHoldMin().toMillis(), s.longHoldMax().toMillis(), s.runLength().toSeconds());
  }

  /** The paragraphs of "Redlock, measured": every number from the Redlock runs of this suite. */
  static String redlock(List<RunResult> results) {
    List<RunResult> all = results.stream().filter(r -> r.topology() == Topology.REDLOCK).toList();
    if (all.isEmpty()) {
      return "This run did not include the Redlock topology (`./relock torture --topology redlock`, or `all`),"
          + " so it has no Redlock numbers.";
    }
    List<RunResult> delayed = all.stream().filter(r -> r.fault() == Fault.RESTART_MASTER).toList();
    List<RunResult> control = all.stream().filter(r -> r.fault() == Fault.RESTART_MASTER_NODELAY).toList();
    List<RunResult> clock = all.stream().filter(r -> r.fault() == Fault.CLOCK_STEP_MASTER).toList();
    List<String> out = new ArrayList<>();
    out.add(String.format(Locale.ROOT, "%d Redlock runs (%s): the nemesis cut a master off from every worker %d"
            + " times, paused one %d times, restarted one without its data %d times (%d of them in the control,"
            + " without the delayed restart) and stepped one's clock forward %d times. These runs had %d overlapping pairs of holds (%s), %d of them"
            + " unexplained, and the fenced counter refused %d stale operations. %d acquisitions failed with"
            + " `RelockException` (fewer than a majority of the masters could take part in time).",
        all.size(), String.join(", ", all.stream().map(r -> "`" + r.run() + "`").toList()),
        sum(all, r -> r.redlock().partitions()), sum(all, r -> r.redlock().pauses()),
        sum(all, r -> r.redlock().restarts()), sum(all, r -> r.redlock().controlRestarts()),
        sum(all, r -> r.redlock().clockSteps()), sum(all, r -> r.overlaps().pairs()), byFault(all), sum(all, r -> r.overlaps().unexplained()),
        sum(all, r -> r.fencing().staleRefused()), sum(all, r -> r.redlock().acquireErrors())));
    if (sum(delayed, r -> r.redlock().restarts()) > 0) {
      out.add(String.format(Locale.ROOT, "**With the delayed restart** the restarts erased %d %s (left on one master"
              + " of three). %d of their holders were told (`onLost`, `isValid()` false or `LockLostException`)%s;"
              + " %d were overlapped by a later holder, %d of them before the erased holder knew its lease was lost.",
          sum(delayed, r -> r.redlock().erased()), sum(delayed, r -> r.redlock().erased()) == 1 ? "hold" : "holds",
          sum(delayed, r -> r.redlock().erasedTold()),
          sum(delayed, r -> r.redlock().erasedUnreachable()) == 0 ? ""
              : String.format(Locale.ROOT, "; %d called `close()` while the masters could not be reached and got"
                  + " `RelockException`", sum(delayed, r -> r.redlock().erasedUnreachable())),
          sum(delayed, r -> r.redlock().erasedOverlapped()), sum(delayed, r -> r.redlock().overlappedBeforeTold())));
    }
    if (!control.isEmpty()) {
      out.add(String.format(Locale.ROOT, "**Without it** (`restart-master-nodelay`, the control) the restarts erased"
              + " %d holds; %d were overlapped by a later holder, %d of them before the erased holder knew, which is"
              + " what the delayed restart prevents. The fenced counter refused %d stale operations there.",
          sum(control, r -> r.redlock().erased()), sum(control, r -> r.redlock().erasedOverlapped()),
          sum(control, r -> r.redlock().overlappedBeforeTold()), sum(control, r -> r.fencing().staleRefused())));
    }
    if (!clock.isEmpty()) {
      out.add(String.format(Locale.ROOT, "**A clock step** (`clock-step-master`: a master's wall clock jumped ahead by"
              + " twice the lease, so its keys expired at once) erased %d holds. relock cannot notice a step: the"
              + " master keeps its data and its marker. %d of the erased holds were overlapped by a later holder, %d of"
              + " them before the erased holder knew; %d holders were told in the end. The fenced counter refused %d"
              + " stale operations in these runs, with %d fenced violations: against a clock step, fencing is what"
              + " keeps the resource safe, as Redlock's critics say.",
          sum(clock, r -> r.redlock().erased()), sum(clock, r -> r.redlock().erasedOverlapped()),
          sum(clock, r -> r.redlock().overlappedBeforeTold()), sum(clock, r -> r.redlock().erasedTold()),
          sum(clock, r -> r.fencing().staleRefused()), sum(clock, r -> r.fencing().violations())));
    }
    out.add(String.format(Locale.ROOT, "After the workers stopped, %d lock keys were left on a master (a release or"
            + " give-back a master missed); stuck locks, counting those held by a majority or not gone within the"
            + " lease plus the bound: %d.", sum(all, r -> r.stuck().leftovers()), sum(all, r -> r.stuck().stuck())));
    out.add(String.format(Locale.ROOT, "Across the Redlock runs: %d fenced violations, %d unreported losses,"
            + " %d stuck locks, %d lost updates.", sum(all, r -> r.fencing().violations()),
        sum(all, r -> r.losses().unreported()), sum(all, r -> r.stuck().stuck()), sum(all, r -> r.updates().lost())));
    return String.join("\n\n", out);
  }

  /** The paragraphs of "The lock family, measured": every number from the read-write and semaphore runs. */
  static String family(List<RunResult> results) {
    List<String> out = new ArrayList<>();
    for (Workload w : TortureMain.FAMILY) {
      List<RunResult> all = results.stream().filter(r -> r.workload() == w).toList();
      if (all.isEmpty()) {
        continue;
      }
      boolean permits = w == Workload.SEMAPHORE;
      out.add(String.format(Locale.ROOT, "**%s** (%s): %d holds in %d runs, %d faults injected. %d %s (%s), %d of"
              + " them unexplained; the store refused %d stale operations; %d fenced violations, %d lost holds (%d"
              + " unreported), %d dead holders measured (%d stuck)%s.",
          w == Workload.READ_WRITE ? "Read-write lock" : "Semaphore of " + Workload.PERMITS + " permits",
          String.join(", ", all.stream().map(r -> "`" + r.run() + "`").toList()), sum(all, RunResult::holds),
          all.size(), sum(all, r -> r.faultsDone().size()), sum(all, r -> r.overlaps().pairs()),
          permits ? "grants while " + Workload.PERMITS + " others still acted" : "overlapping pairs of holds with a writer",
          byFault(all), sum(all, r -> r.overlaps().unexplained()), sum(all, r -> r.fencing().staleRefused()),
          sum(all, r -> r.fencing().violations()), sum(all, r -> r.losses().lost()),
          sum(all, r -> r.losses().unreported()), sum(all, r -> r.stuck().measured()), sum(all, r -> r.stuck().stuck()),
          permits ? "" : String.format(Locale.ROOT, ", %d fenced writes, %d lost updates",
              sum(all, r -> r.updates().accepted()), sum(all, r -> r.updates().lost()))));
    }
    if (out.isEmpty()) {
      return "This run did not include the lock family's runs (`./relock torture --runs rw,sem`), so it has no"
          + " read-write lock or semaphore numbers.";
    }
    return String.join("\n\n", out);
  }

  /** The paragraphs of "Redis Cluster, measured": every number from the Cluster runs of this suite. */
  static String cluster(List<RunResult> results) {
    List<RunResult> all = results.stream().filter(r -> r.topology() == Topology.CLUSTER).toList();
    if (all.isEmpty()) {
      return "This run did not include the Cluster topology (`./relock torture --topology cluster`, or `all`),"
          + " so it has no Cluster numbers.";
    }
    List<String> out = new ArrayList<>();
    long failovers = sum(all, r -> r.failover().failovers());
    out.add(String.format(Locale.ROOT, "%d Cluster runs (%s): the nemesis killed the primary of a held lock's slot"
            + " %d times (its replica took over %s after the kill, longest %d ms) and migrated a held lock's slot to"
            + " another primary %d times. These runs had %d overlapping pairs of holds (%s), %d of them unexplained"
            + " (a migration explains none), and the fenced counter refused %d stale operations. %d acquisitions"
            + " failed with `RelockException` (%d of them for want of a replica's acknowledgement, the others while"
            + " the slot had no primary).",
        all.size(), String.join(", ", all.stream().map(r -> "`" + r.run() + "`").toList()), failovers,
        failovers == 0 ? "-" : String.format(Locale.ROOT, "%.1f s on average",
            sum(all, r -> r.failover().totalFailoverMillis()) / 1000.0 / failovers),
        all.stream().mapToLong(r -> r.failover().maxFailoverMillis()).max().orElse(0), sum(all, SummaryTable::migrations),
        sum(all, r -> r.overlaps().pairs()), byFault(all), sum(all, r -> r.overlaps().unexplained()),
        sum(all, r -> r.fencing().staleRefused()), sum(all, r -> r.failover().acquireErrors()),
        sum(all, r -> r.failover().ackRefusals())));
    out.add(String.format(Locale.ROOT, "Across the Cluster runs: %d fenced violations, %d unreported losses,"
            + " %d stuck locks, %d lost updates.", sum(all, r -> r.fencing().violations()),
        sum(all, r -> r.losses().unreported()), sum(all, r -> r.stuck().stuck()), sum(all, r -> r.updates().lost())));
    return String.join("\n\n", out);
  }

  /** The paragraphs of "Sentinel failover, measured": every number from the Sentinel runs of this suite. */
  static String sentinel(List<RunResult> results) {
    List<RunResult> all = results.stream().filter(r -> r.topology() == Topology.SENTINEL).toList();
    if (all.isEmpty()) {
      return "This run did not include the Sentinel topology (`./relock torture --topology sentinel`, or `all`),"
          + " so it has no failover numbers.";
    }
    List<RunResult> off = all.stream().filter(r -> r.replicaAcks() == 0).toList();
    List<RunResult> on = all.stream().filter(r -> r.replicaAcks() > 0).toList();
    List<String> out = new ArrayList<>();
    long failovers = sum(all, r -> r.failover().failovers());
    long totalMillis = sum(all, r -> r.failover().totalFailoverMillis());
    out.add(String.format(Locale.ROOT, "%d Sentinel runs (%s): the nemesis killed the primary %d times, %d of them"
            + " right after cutting replication. The sentinels agreed on the promoted replica %s after the kill"
            + " (longest %d ms).", all.size(), String.join(", ", all.stream().map(r -> "`" + r.run() + "`").toList()),
        failovers, sum(all, r -> r.failover().holes()),
        failovers == 0 ? "-" : String.format(Locale.ROOT, "%.1f s on average", totalMillis / 1000.0 / failovers),
        all.stream().mapToLong(r -> r.failover().maxFailoverMillis()).max().orElse(0)));
    if (!off.isEmpty()) {
      long erased = sum(off, r -> r.failover().erased());
      long unreachable = sum(off, r -> r.failover().erasedUnreachable());
      long untold = erased - sum(off, r -> r.failover().erasedTold());
      out.add(String.format(Locale.ROOT, "**Without replicaAcks** the hole erased %d %s: granted by the old primary"
              + " after replication was cut, still held when it died, unknown to the promoted replica. %d of their"
              + " holders were told (%d saw `onLost` run, %d got `LockLostException` from `close()`)%s. %d of the"
              + " erased holds overlapped a later holder's. The hole also erased %d %s: the old primary ran it after"
              + " replication was cut, so the promoted replica still had the lock for its holder, held for nobody"
              + " until its lease ran out there (relock does not repeat a release after a failover). In all, these"
              + " runs had %d overlapping pairs of holds (%s) and the fenced counter refused %d stale operations.",
          erased, erased == 1 ? "hold" : "holds", sum(off, r -> r.failover().erasedTold()),
          sum(off, r -> r.failover().erasedNoticed()), sum(off, r -> r.failover().erasedAtClose()),
          untold == 0 ? "" : String.format(Locale.ROOT, "; of the %d not told, %d called `close()` while no primary"
              + " answered and got `RelockException`, with nobody granted the lock meanwhile", untold, unreachable),
          sum(off, r -> r.failover().erasedOverlapped()), sum(off, r -> r.stuck().erasedReleases()),
          sum(off, r -> r.stuck().erasedReleases()) == 1 ? "release" : "releases",
          sum(off, r -> r.overlaps().pairs()), byFault(off),
          sum(off, r -> r.fencing().staleRefused())));
    }
    if (!on.isEmpty()) {
      out.add(String.format(Locale.ROOT, "**With replicaAcks %s** %d holds were granted while replication was cut"
              + " (%d erased). %d acquisitions failed with `RelockException`, %d of them because no replica"
              + " acknowledged them in time (relock released those), the others because no primary answered"
              + " (%s). These runs had %d overlapping pairs of holds (%s)%s.",
          SummaryTable.acks(on.get(0).replicaAcks()), sum(on, r -> r.failover().grantedInHole()),
          sum(on, r -> r.failover().erased()), sum(on, r -> r.failover().acquireErrors()),
          sum(on, r -> r.failover().ackRefusals()),
          off.isEmpty() ? "no run without replicaAcks to compare"
              : sum(off, r -> r.failover().acquireErrors()) + " failed so in the runs without replicaAcks",
          sum(on, r -> r.overlaps().pairs()), byFault(on),
          off.isEmpty() ? "" : ", against " + sum(off, r -> r.overlaps().pairs()) + " without"));
    }
    out.add(String.format(Locale.ROOT, "Across the Sentinel runs: %d fenced violations, %d unreported losses,"
            + " %d stuck locks, %d lost updates.", sum(all, r -> r.fencing().violations()),
        sum(all, r -> r.losses().unreported()), sum(all, r -> r.stuck().stuck()), sum(all, r -> r.updates().lost())));
    String cost = SummaryTable.ackCost(all);
    if (cost != null) {
      out.add("What replicaAcks costs, measured after each Sentinel run's workers stopped (one client takes and"
          + " releases a lock nobody else uses, in turns with and without replicaAcks): " + cost + ".");
    }
    return String.join("\n\n", out);
  }

  /** Overlapping pairs per fault of the runs, "n in failover-hole runs, m in failover runs". */
  private static String byFault(List<RunResult> runs) {
    List<String> parts = new ArrayList<>();
    for (Fault f : runs.stream().map(RunResult::fault).distinct().toList()) {
      parts.add(sum(runs.stream().filter(r -> r.fault() == f).toList(), r -> r.overlaps().pairs()) + " in " + f.id
          + " runs");
    }
    return String.join(", ", parts);
  }

  private static long sum(List<RunResult> runs, java.util.function.ToLongFunction<RunResult> f) {
    return runs.stream().mapToLong(f).sum();
  }

  private static String faultList() {
    List<String> lines = new ArrayList<>();
    for (Fault f : Fault.values()) {
      if (f != Fault.BLACKHOLE_RESUME) {
        lines.add("- `" + f.id + "`: " + f.description);
      }
    }
    lines.add("- how `clock-step-master` steps one server's clock: every server runs on this machine's one clock, so"
        + " the run builds a small preload library (`clockstep.c`, with the machine's C compiler; the run is skipped"
        + " where there is none) that adds an offset, read from a file the nemesis writes, to the master's"
        + " `gettimeofday()`, the clock Redis expires keys by. libfaketime cannot be preloaded into a redis-server"
        + " built with jemalloc.");
    return String.join("\n", lines);
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

  private static String faults(List<RunResult> results) {
    List<String> lines = new ArrayList<>();
    for (RunResult r : results) {
      lines.add("- **" + r.run() + "** (" + r.fault().description + "): "
          + (r.faultsDone().isEmpty() ? "no faults" : String.join("; ", r.faultsDone())));
    }
    return String.join("\n", lines);
  }

  private static String examples(List<RunResult> results) {
    List<String> lines = new ArrayList<>();
    for (RunResult r : results) {
      List<String> ex = r.examples();
      for (int i = 0; i < Math.min(2, ex.size()); i++) {
        lines.add("- " + r.run() + ": " + ex.get(i));
      }
    }
    return lines.isEmpty() ? "- (nothing to show)" : String.join("\n", lines);
  }
}

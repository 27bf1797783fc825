package io.relock.torture;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Runs the plans one after another and prints a progress line after each. */
final class TortureSuite {
  private final TortureSettings settings;
  private final Path outDir;
  private final PrintStream console;
  private Duration elapsed = Duration.ZERO;

  TortureSuite(TortureSettings settings, Path outDir, PrintStream console) {
    this.settings = settings;
    this.outDir = outDir;
    this.console = console;
  }

  List<RunResult> run(List<TortureRun.Plan> plans) {
    List<RunResult> results = new ArrayList<>();
    long suiteStart = System.nanoTime();
    int n = 0;
    for (TortureRun.Plan plan : plans) {
      n++;
      console.printf(Locale.ROOT, "run %d/%d %s: %d steps scheduled ...%n", n, plans.size(), plan.name(),
          plan.steps().size());
      long start = System.nanoTime();
      RunResult r = TortureRun.execute(plan, settings, outDir);
      results.add(r);
      console.println("  " + progress(r, Duration.ofNanos(System.nanoTime() - start)));
    }
    elapsed = Duration.ofNanos(System.nanoTime() - suiteStart);
    return results;
  }

  Duration elapsed() {
    return elapsed;
  }

  static String progress(RunResult r, Duration took) {
    LossCheck.Result l = r.losses();
    UpdateCheck.Result u = r.updates();
    return String.format(Locale.ROOT,
        "%s: %d faults, %d holds, %d overlaps (%d unexplained), %d stale ops refused, %d fenced violations, %d/%d lost holds told,"
            + " %d unreported, %d dead holders (max regrant %s), %d stuck, %d/%d fenced writes lost (write-only fence %d,"
            + " no fence %d) -> %s [%.1f s]",
        r.run(), r.faultsDone().size(), r.holds(), r.overlaps().pairs(), r.overlaps().unexplained(),
        r.fencing().staleRefused(),
        r.fencing().violations(), l.lost() - l.unreported(), l.lost(), l.unreported(), r.stuck().measured(),
        r.stuck().measured() == 0 ? "-" : r.stuck().maxMillis() + " ms", r.stuck().stuck(), u.lost(), u.accepted(),
        u.writeOnlyLost(), u.unfencedLost(), r.failures().isEmpty() ? "ok" : "FAIL " + r.failures(),
        took.toMillis() / 1000.0).replace(" overlaps (", r.workload() == Workload.SEMAPHORE
            ? " grants beyond the " + Workload.PERMITS + " permits (" : " overlaps (") + sentinelProgress(r)
        + redlockProgress(r);
  }

  private static String redlockProgress(RunResult r) {
    if (r.topology() != Topology.REDLOCK) {
      return "";
    }
    RedlockCheck.Result x = r.redlock();
    return String.format(Locale.ROOT, "%n    redlock: %d masters cut off, %d paused, %d restarted%s, %d holds erased"
            + " (%d told, %d overlapped, %d before the holder knew), %d acquisitions failed (RelockException),"
            + " %d keys left after the workers stopped",
        x.partitions(), x.pauses(), x.restarts(), x.controlRestarts() > 0 ? " without the delayed restart" : "",
        x.erased(), x.erasedTold(), x.erasedOverlapped(), x.overlappedBeforeTold(), x.acquireErrors(),
        r.stuck().leftovers());
  }

  private static String sentinelProgress(RunResult r) {
    if (r.topology() == Topology.CLUSTER) {
      FailoverCheck.Result f = r.failover();
      return String.format(Locale.ROOT, "%n    cluster, replicaAcks %s: %d primaries killed (longest takeover %d ms),"
              + " %d slots migrated, %d acquisitions failed (RelockException; %d for want of a replica's ack),"
              + " %d timed out", SummaryTable.acks(r.replicaAcks()), f.failovers(), f.maxFailoverMillis(),
          SummaryTable.migrations(r), f.acquireErrors(), f.ackRefusals(), f.acquireTimeouts());
    }
    if (r.topology() != Topology.SENTINEL) {
      return "";
    }
    FailoverCheck.Result f = r.failover();
    String s = String.format(Locale.ROOT, "%n    replicaAcks %s: %d failovers (%d holes, longest %d ms), %d holds erased"
            + " (%d told, %d overlapped), %d releases erased (the lock held for nobody until its lease ran out),"
            + " %d acquisitions failed (RelockException; %d for want of a replica's ack), %d timed out",
        SummaryTable.acks(r.replicaAcks()), f.failovers(), f.holes(), f.maxFailoverMillis(), f.erased(), f.erasedTold(),
        f.erasedOverlapped(), r.stuck().erasedReleases(), f.acquireErrors(), f.ackRefusals(), f.acquireTimeouts());
    AckCost.Result c = r.ackCost();
    if (c != null) {
      s += String.format(Locale.ROOT, "; uncontended acquire median %.2f ms, %.2f ms with replicaAcks %d",
          c.medianOffMicros() / 1000.0, c.medianOnMicros() / 1000.0, c.replicaAcks());
    }
    return s;
  }
}

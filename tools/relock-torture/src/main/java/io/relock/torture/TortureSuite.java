package io.relock.torture;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Runs the plans and prints a progress line after each, in the plans' order. With {@code lanes}
 * above 1, that many runs go on side by side, each with servers, workers and a nemesis of its own
 * (nothing is shared between runs: ports are free ones, directories the runs' own); the longest
 * runs start first, so that the lanes end together. A run's two lines are printed together once
 * it and every run before it in the plans' order are done, so the output reads as in a sequential
 * suite.
 */
final class TortureSuite {
  private final TortureSettings settings;
  private final Path outDir;
  private final PrintStream console;
  private final int lanes;
  private Duration elapsed = Duration.ZERO;

  TortureSuite(TortureSettings settings, Path outDir, PrintStream console) {
    this(settings, outDir, console, 1);
  }

  TortureSuite(TortureSettings settings, Path outDir, PrintStream console, int lanes) {
    if (lanes < 1) {
      throw new IllegalArgumentException("lanes must be at least 1: " + lanes);
    }
    this.settings = settings;
    this.outDir = outDir;
    this.console = console;
    this.lanes = lanes;
  }

  List<RunResult> run(List<TortureRun.Plan> plans) {
    long suiteStart = System.nanoTime();
    List<RunResult> results = lanes == 1 || plans.size() < 2 ? sequential(plans) : sideBySide(plans);
    elapsed = Duration.ofNanos(System.nanoTime() - suiteStart);
    return results;
  }

  private List<RunResult> sequential(List<TortureRun.Plan> plans) {
    List<RunResult> results = new ArrayList<>();
    int n = 0;
    for (TortureRun.Plan plan : plans) {
      n++;
      console.print(header(n, plans.size(), plan));
      long start = System.nanoTime();
      RunResult r = TortureRun.execute(plan, settings, outDir);
      results.add(r);
      console.println("  " + progress(r, Duration.ofNanos(System.nanoTime() - start)));
    }
    return results;
  }

  /** A run's result and how long it took. */
  private record Done(RunResult result, Duration took) {}

  private List<RunResult> sideBySide(List<TortureRun.Plan> plans) {
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < plans.size(); i++) {
      order.add(i);
    }
    // Longest first (stable: equal estimates keep the plans' order).
    order.sort(Comparator.comparingLong((Integer i) -> -expectedMillis(plans.get(i))));
    ExecutorService pool = Executors.newFixedThreadPool(lanes, r -> {
      Thread t = new Thread(r, "torture-lane");
      t.setDaemon(true);
      return t;
    });
    List<Future<Done>> futures = new ArrayList<>(java.util.Collections.nCopies(plans.size(), null));
    try {
      for (int i : order) {
        TortureRun.Plan plan = plans.get(i);
        futures.set(i, pool.submit(() -> {
          long start = System.nanoTime();
          RunResult r = TortureRun.execute(plan, settings, outDir);
          return new Done(r, Duration.ofNanos(System.nanoTime() - start));
        }));
      }
      List<RunResult> results = new ArrayList<>();
      for (int i = 0; i < plans.size(); i++) {
        Done d = futures.get(i).get();
        console.print(header(i + 1, plans.size(), plans.get(i)));
        console.println("  " + progress(d.result(), d.took()));
        results.add(d.result());
      }
      return results;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException(e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * About how long a run takes, to start the longest first: its length plus what starting and
   * stopping its topology took on two cores (about 3 s for one server, 9 for a Sentinel group, 7
   * for a Cluster or the Redlock masters).
   */
  static long expectedMillis(TortureRun.Plan plan) {
    long overhead = switch (plan.topology()) {
      case SENTINEL -> 9000;
      case CLUSTER, REDLOCK -> 7000;
      default -> 3000;
    };
    return plan.length().toMillis() + overhead;
  }

  private static String header(int n, int of, TortureRun.Plan plan) {
    return String.format(Locale.ROOT, "run %d/%d %s: %d steps scheduled ...%n", n, of, plan.name(),
        plan.steps().size());
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

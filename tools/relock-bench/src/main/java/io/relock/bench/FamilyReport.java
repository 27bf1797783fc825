package io.relock.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * What a {@code --family} run reports: its table, issue 12's targets (for every row, relock at
 * least 3 x Redisson's acquisitions/s, a p99 wait at most a third of Redisson's, at most 3 Redis
 * calls per contended acquisition), its summary line and its chart panels (the "Lock family"
 * section of docs/benchmarks.md is {@code family.md.mustache}, filled in by {@link
 * DocsModel#family}). A row that failed its hold check has no figures: the table says so in their
 * place, and its targets are not measured.
 */
final class FamilyReport {

  /** relock's acquisitions/s over Redisson's, at least. */
  static final double THROUGHPUT_RATIO = 3;
  /** relock's p99 wait over Redisson's, at most. */
  static final double P99_RATIO = 1.0 / 3;
  /** relock's Redis calls per contended acquisition (its release included), at most. */
  static final double CALLS = 3;

  private FamilyReport() {}

  static final List<String> COLUMNS = List.of("implementation", "row", "what each acquisition takes",
      "procs x threads", "acq/s", "acq/s range", "vs relock", "p50 ms", "p99 ms", "p99 range", "max ms", "calls/acq",
      "all cmds/acq", "client CPU us/acq", "reads %", "most at once", "hold check", "JIT %", "errors");

  /** The rows of the run's workloads, in the order they ran, then each failed row in its place. */
  static Table table(Results r) {
    Table t = new Table("7. Lock family across " + r.settings.processes() + " processes: read-write locks and a"
        + " semaphore on one name (hold check: no writer beside anyone, no more holders than permits)", COLUMNS);
    for (Workload w : r.family.workloads()) {
      for (Row row : r.rows) {
        if (row.workload.equals(w)) {
          t.add(cells(r, row).toArray(new String[0]));
        }
      }
      for (Results.Failure f : r.family.failures()) {
        if (f.workload().equals(w)) {
          List<String> cells = new ArrayList<>(java.util.Collections.nCopies(COLUMNS.size(), "-"));
          cells.set(0, f.impl().id());
          cells.set(1, w.id());
          cells.set(2, w.describe());
          cells.set(3, f.processes() + " x " + f.threads());
          cells.set(COLUMNS.indexOf("hold check"), "FAILED: " + f.reason());
          t.add(cells.toArray(new String[0]));
        }
      }
    }
    return t;
  }

  private static List<String> cells(Results r, Row row) {
    return List.of(row.impl.id(), row.workload.id(), row.workload.describe(),
        row.processes + " x " + row.threadsPerProcess, Results.num(row.perSecond(), 0),
        row.spread(Row.Window::perSecond).rangeText(0), Results.num(r.ratioToRelock(row), 2),
        Results.num(row.millis(50), 3), Results.num(row.millis(99), 3), row.spread(w -> w.millis(99)).rangeText(2),
        Results.num(row.maxMillis(), 1), Results.num(row.callsPerAcquisition(), 2),
        Results.num(row.allCommandsPerAcquisition(), 1), Results.num(row.clientCpuMicrosPerAcquisition(), 1),
        Results.num(100 * row.readShare(), 1), mostAtOnce(row), row.checked == null ? "-" : "ok",
        Results.num(100 * row.jitShare(), 0), String.valueOf(row.errors()));
  }

  /** The most holds seen at once: readers of a read-write lock, holders of a semaphore. */
  static String mostAtOnce(Row row) {
    if (row.checked == null) {
      return "-";
    }
    return row.workload.kind() == Workload.Kind.SEMAPHORE
        ? row.checked.mostHolders() + " of " + row.workload.permits() + " holders"
        : row.checked.mostReaders() + (row.checked.mostReaders() == 1 ? " reader" : " readers");
  }

  private static Optional<Row> find(Results r, Workload w, Implementation impl) {
    return r.rows.stream().filter(x -> x.workload.equals(w) && x.impl == impl).findFirst();
  }

  private static double ratio(Optional<Row> top, Optional<Row> bottom, java.util.function.ToDoubleFunction<Row> figure) {
    if (top.isEmpty() || bottom.isEmpty()) {
      return Double.NaN;
    }
    double under = figure.applyAsDouble(bottom.get());
    return under == 0 ? Double.NaN : figure.applyAsDouble(top.get()) / under;
  }

  /** relock's median acquisitions/s over Redisson's in {@code w}'s row. */
  static double throughputRatio(Results r, Workload w) {
    return ratio(find(r, w, Implementation.RELOCK), find(r, w, Implementation.REDISSON), Row::perSecond);
  }

  /** relock's median p99 wait over Redisson's in {@code w}'s row. */
  static double p99Ratio(Results r, Workload w) {
    return ratio(find(r, w, Implementation.RELOCK), find(r, w, Implementation.REDISSON), x -> x.millis(99));
  }

  /** Issue 12's targets, three per row, then one for the hold check of the whole run. */
  static List<Results.Target> targets(Results r) {
    List<Results.Target> t = new ArrayList<>();
    String config = r.settings.processes() + " x " + r.settings.mostProcessThreads();
    for (Workload w : r.family.workloads()) {
      String c = w.id() + " (" + w.describe() + "), " + config + ": ";
      t.add(new Results.Target(c + "relock / Redisson acquisitions/s", ">= 3", throughputRatio(r, w),
          v -> v >= THROUGHPUT_RATIO));
      t.add(new Results.Target(c + "relock p99 wait / Redisson p99 wait", "<= 0.33", p99Ratio(r, w),
          v -> v <= P99_RATIO));
      t.add(new Results.Target(c + "relock Redis calls per acquisition", "<= 3",
          find(r, w, Implementation.RELOCK).map(Row::callsPerAcquisition).orElse(Double.NaN), v -> v <= CALLS));
    }
    t.add(new Results.Target("hold check: rows whose holds broke the lock's rule (any implementation)", "0",
        r.family.failures().size(), v -> v == 0));
    return t;
  }

  /**
   * {@code bench: family <row>_vs_redisson=<x> p99_<row>_vs_redisson=<x> <row>_calls_per_acquisition=<x> ...
   * hold_check_failures=<n>}, ratios of medians, the row names with '_' for '-'.
   */
  static String summaryLine(Results r) {
    StringBuilder line = new StringBuilder("bench: family");
    for (Workload w : r.family.workloads()) {
      String id = w.id().replace('-', '_');
      line.append(' ').append(id).append("_vs_redisson=").append(fmt(throughputRatio(r, w)))
          .append(" p99_").append(id).append("_vs_redisson=").append(fmt(p99Ratio(r, w)))
          .append(' ').append(id).append("_calls_per_acquisition=")
          .append(fmt(find(r, w, Implementation.RELOCK).map(Row::callsPerAcquisition).orElse(Double.NaN)));
    }
    return line.append(" hold_check_failures=").append(r.family.failures().size()).toString();
  }

  private static String fmt(double v) {
    return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%.2f", v);
  }

  /** The chart: acquisitions/s, p99 and calls per acquisition, one group per row. */
  static List<BenchChart.Panel> panels(Results r) {
    List<String> groups = r.family.workloads().stream().map(Workload::id).toList();
    List<BenchChart.Panel> panels = new ArrayList<>();
    panels.add(panel(r, "Lock family: acquisitions/s (higher is better)", groups, Row::perSecond, "#,###", false));
    panels.add(panel(r, "Lock family: p99 wait, ms, log scale (lower is better)", groups, x -> x.millis(99),
        "#,##0.##", true));
    panels.add(panel(r, "Lock family: Redis calls per acquisition (lower is better)", groups,
        Row::callsPerAcquisition, "0.##", false));
    return panels.stream().filter(p -> !p.values().isEmpty()).toList();
  }

  private static BenchChart.Panel panel(Results r, String title, List<String> groups,
      java.util.function.ToDoubleFunction<Row> figure, String pattern, boolean log) {
    Map<Implementation, double[]> values = new LinkedHashMap<>();
    for (Implementation impl : Implementation.FAMILY) {
      double[] v = new double[groups.size()];
      boolean any = false;
      for (int i = 0; i < groups.size(); i++) {
        Optional<Row> row = find(r, r.family.workloads().get(i), impl);
        v[i] = row.map(figure::applyAsDouble).orElse(Double.NaN);
        any |= row.isPresent();
      }
      if (any) {
        values.put(impl, v);
      }
    }
    return new BenchChart.Panel(title, groups, values, pattern, log);
  }
}

package io.relock.demo.load;

import java.util.List;
import java.util.Locale;

/** The human-readable result table of a demo run. */
public final class ReportTable {

  private ReportTable() {}

  /**
   * The table, one row per strategy, with a header and a rule. {@code lock wait %}: the share of
   * the purchases' time spent waiting for the lock, from the services' observations (relock only).
   */
  public static String render(List<StrategyReport> reports) {
    String format = "%-10s | %8s | %5s | %8s | %12s | %11s | %12s | %6s | %7s | %7s | %7s | %11s | %13s%n";
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT, format, "strategy", "requests", "sold", "oversold", "lost updates", "lock errors",
            "other errors", "req/s", "p50 ms", "p99 ms", "max ms", "lock wait %", "leftover keys"));
    out.append("-".repeat(out.length() - 1)).append('\n');
    for (StrategyReport r : reports) {
      LoadRun run = r.run();
      out.append(
          String.format(
              Locale.ROOT,
              format,
              r.strategy(),
              run.requests(),
              r.sale().sold(),
              r.sale().oversold(),
              r.sale().lostUpdates(),
              run.lockErrors(),
              run.errors() - run.lockErrors(),
              String.format(Locale.ROOT, "%.0f", run.requestsPerSecond()),
              String.format(Locale.ROOT, "%.1f", run.latencyMillis(50)),
              String.format(Locale.ROOT, "%.1f", run.latencyMillis(99)),
              String.format(Locale.ROOT, "%.1f", run.maxLatencyMillis()),
              Double.isNaN(r.lockWaitShare()) ? "-" : String.format(Locale.ROOT, "%.0f", 100 * r.lockWaitShare()),
              r.leftoverKeys().size()));
    }
    return out.toString();
  }
}

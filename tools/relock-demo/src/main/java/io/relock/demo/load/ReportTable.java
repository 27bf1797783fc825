package io.relock.demo.load;

import java.util.List;
import java.util.Locale;

/**
 * The human-readable result tables of a demo run: what was sold and what went wrong, then what the
 * buyers saw.
 */
public final class ReportTable {

  private ReportTable() {}

  /**
   * The two tables, one row per strategy each, with headers and rules. The first: sales, errors,
   * lock keys left behind, and for the production strategy the orders in the database ({@code -}
   * for the lock strategies, whose orders are the store's list). The second: throughput, latency
   * (of all buyers, and the p99 of those told "sold out"), how long until the first buyer was told
   * "sold out", and {@code lock wait %}, the share of the
   * purchases' time spent waiting for the lock, from the services' observations (relock only).
   */
  public static String render(List<StrategyReport> reports) {
    return sales(reports) + "\n" + buyers(reports);
  }

  private static String sales(List<StrategyReport> reports) {
    String format = "%-10s | %8s | %5s | %8s | %12s | %11s | %12s | %13s | %9s | %10s | %11s%n";
    StringBuilder out = header(format, "strategy", "requests", "sold", "oversold", "lost updates", "lock errors",
        "other errors", "leftover keys", "persisted", "duplicates", "lost orders");
    for (StrategyReport r : reports) {
      LoadRun run = r.run();
      out.append(String.format(Locale.ROOT, format, r.strategy(), run.requests(), r.sale().sold(), r.sale().oversold(),
          r.sale().lostUpdates(), run.lockErrors(), run.errors() - run.lockErrors(), r.leftoverKeys().size(),
          r.production().map(p -> Long.toString(p.persisted())).orElse("-"),
          r.production().map(p -> Long.toString(p.duplicates())).orElse("-"),
          r.production().map(p -> Long.toString(p.lost())).orElse("-")));
    }
    return out.toString();
  }

  private static String buyers(List<StrategyReport> reports) {
    String format = "%-10s | %7s | %9s | %9s | %9s | %16s | %12s | %11s%n";
    StringBuilder out = header(format, "strategy", "req/s", "p50 ms", "p99 ms", "max ms", "sold-out p99 ms",
        "sold out ms", "lock wait %");
    for (StrategyReport r : reports) {
      LoadRun run = r.run();
      out.append(String.format(Locale.ROOT, format, r.strategy(),
          String.format(Locale.ROOT, "%.0f", run.requestsPerSecond()),
          String.format(Locale.ROOT, "%.1f", run.latencyMillis(50)),
          String.format(Locale.ROOT, "%.1f", run.latencyMillis(99)),
          String.format(Locale.ROOT, "%.1f", run.maxLatencyMillis()),
          Double.isNaN(run.soldOutLatencyMillis(99)) ? "-"
              : String.format(Locale.ROOT, "%.1f", run.soldOutLatencyMillis(99)),
          Double.isNaN(run.soldOutMillis()) ? "-" : String.format(Locale.ROOT, "%.0f", run.soldOutMillis()),
          Double.isNaN(r.lockWaitShare()) ? "-" : String.format(Locale.ROOT, "%.0f", 100 * r.lockWaitShare())));
    }
    return out.toString();
  }

  private static StringBuilder header(String format, Object... names) {
    StringBuilder out = new StringBuilder(String.format(Locale.ROOT, format, names));
    out.append("-".repeat(out.length() - 1)).append('\n');
    return out;
  }
}

package io.relock.demo.load;

import java.util.List;

/**
 * One strategy's result: what the driver saw and what the store holds afterwards.
 *
 * @param run the driver's view: outcomes, latencies, wall time
 * @param sale the item after the run; its {@code sold} (orders recorded) is the truth, whatever the
 *     answers said
 * @param leftoverKeys lock keys left behind (see {@link DemoKeys})
 */
public record StrategyReport(LoadRun run, SaleState sale, List<String> leftoverKeys) {

  public StrategyReport {
    leftoverKeys = List.copyOf(leftoverKeys);
  }

  public String strategy() {
    return run.strategy();
  }

  /**
   * The machine-readable summary line: {@code strategy=<name> requests=<n> sold=<n> oversold=<n>
   * errors=<n> rps=<n> p99_ms=<n> leftover_keys=<n>}. Numbers are whole; rps and p99 are rounded.
   */
  public String summaryLine() {
    return "strategy=" + strategy()
        + " requests=" + run.requests()
        + " sold=" + sale.sold()
        + " oversold=" + sale.oversold()
        + " errors=" + run.errors()
        + " rps=" + Math.round(run.requestsPerSecond())
        + " p99_ms=" + Math.round(run.latencyMillis(99))
        + " leftover_keys=" + leftoverKeys.size();
  }

  /**
   * Whether the answers and the store disagree on the number of sales: more orders than
   * 200-answers would mean a write whose answer was lost; fewer, a sale claimed but not recorded.
   */
  public boolean answersDisagreeWithStore() {
    return sale.sold() != run.count(Outcome.SOLD);
  }
}

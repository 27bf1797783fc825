package io.relock.demo.load;

import java.util.List;
import java.util.Optional;

/**
 * One strategy's result: what the driver saw and what the store holds afterwards.
 *
 * @param run the driver's view: outcomes, latencies, wall time
 * @param sale the item after the run; its {@code sold} (orders recorded) is the truth, whatever the
 *     answers said
 * @param leftoverKeys lock keys left behind (see {@link DemoKeys})
 * @param timings the services' observed totals over the run (see {@link #lockWaitShare()})
 * @param production for the production strategy, its queue's and database's figures; empty for
 *     the lock strategies, whose orders are in the store itself
 */
public record StrategyReport(LoadRun run, SaleState sale, List<String> leftoverKeys, SeckillClient.Timings timings,
    Optional<ProductionFigures> production) {

  public StrategyReport {
    leftoverKeys = List.copyOf(leftoverKeys);
  }

  /** A lock strategy's report. */
  public StrategyReport(LoadRun run, SaleState sale, List<String> leftoverKeys, SeckillClient.Timings timings) {
    this(run, sale, leftoverKeys, timings, Optional.empty());
  }

  /**
   * The share of the purchases' time (from the services' {@code demo.purchase} observations) spent
   * waiting for the item's lock ({@code relock.lock.wait} observations); NaN without waits.
   */
  public double lockWaitShare() {
    return timings.lockWaits() == 0 || timings.purchaseNanos() <= 0 ? Double.NaN
        : (double) timings.lockWaitNanos() / timings.purchaseNanos();
  }

  public String strategy() {
    return run.strategy();
  }

  /**
   * The machine-readable summary line: {@code strategy=<name> requests=<n> sold=<n> oversold=<n>
   * errors=<n> rps=<n> p99_ms=<n> leftover_keys=<n>}, and for a strategy whose purchases waited
   * for a lock, {@code lock_wait_share=<0..1>} (see {@link #lockWaitShare()}); for the production
   * strategy, {@code persisted=<n> duplicates=<n> lost=<n> sold_out_ms=<n> fenced_writes=<n>
   * redelivered=<n>} (orders in the database, units stored twice, taken units without an order,
   * milliseconds until the first buyer was told "sold out" or -1, batches the database refused by
   * their fencing token, entries claimed from a dead or frozen writer). Numbers are whole; rps and
   * p99 are rounded, the share has two decimals.
   */
  public String summaryLine() {
    return "strategy=" + strategy()
        + " requests=" + run.requests()
        + " sold=" + sale.sold()
        + " oversold=" + sale.oversold()
        + " errors=" + run.errors()
        + " rps=" + Math.round(run.requestsPerSecond())
        + " p99_ms=" + Math.round(run.latencyMillis(99))
        + " leftover_keys=" + leftoverKeys.size()
        + (Double.isNaN(lockWaitShare()) ? "" : String.format(java.util.Locale.ROOT, " lock_wait_share=%.2f", lockWaitShare()))
        + production.map(p -> " persisted=" + p.persisted()
            + " duplicates=" + p.duplicates()
            + " lost=" + p.lost()
            + " sold_out_ms=" + (Double.isNaN(run.soldOutMillis()) ? -1 : Math.round(run.soldOutMillis()))
            + " fenced_writes=" + p.writers().fencedBatches()
            + " redelivered=" + p.writers().claimed()).orElse("");
  }

  /**
   * Whether the answers and the store disagree on the number of sales: more orders than
   * 200-answers would mean a write whose answer was lost; fewer, a sale claimed but not recorded.
   */
  public boolean answersDisagreeWithStore() {
    return sale.sold() != run.count(Outcome.SOLD);
  }
}

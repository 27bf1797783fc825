package io.relock.demo.load;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;

/** What the load driver saw of one strategy's run: outcomes, latencies, wall time. */
public final class LoadRun {

  private final String strategy;
  private final Map<Outcome, Integer> counts;
  private final long[] sortedLatencyNanos;
  private final long elapsedNanos;
  private final long soldOutNanos;
  private final long[] sortedSoldOutLatencyNanos;

  LoadRun(String strategy, Map<Outcome, Integer> counts, long[] latencyNanos, long elapsedNanos) {
    this(strategy, counts, latencyNanos, elapsedNanos, -1, new long[0]);
  }

  /**
   * @param soldOutNanos when the first buyer was told "sold out", from the run's start; negative if
   *     none was
   * @param soldOutLatencyNanos the latencies of the requests answered "sold out"
   */
  LoadRun(String strategy, Map<Outcome, Integer> counts, long[] latencyNanos, long elapsedNanos, long soldOutNanos,
      long[] soldOutLatencyNanos) {
    this.strategy = strategy;
    this.counts = new EnumMap<>(Outcome.class);
    this.counts.putAll(counts);
    this.sortedLatencyNanos = latencyNanos.clone();
    Arrays.sort(sortedLatencyNanos);
    this.elapsedNanos = elapsedNanos;
    this.soldOutNanos = soldOutNanos;
    this.sortedSoldOutLatencyNanos = soldOutLatencyNanos.clone();
    Arrays.sort(sortedSoldOutLatencyNanos);
  }

  /**
   * The latency of the buyers answered "sold out" at {@code percentile} (nearest rank), in
   * milliseconds; NaN if none was.
   */
  public double soldOutLatencyMillis(double percentile) {
    return sortedSoldOutLatencyNanos.length == 0 ? Double.NaN : percentile(sortedSoldOutLatencyNanos, percentile);
  }

  /**
   * How long the sale lasted for the buyers: milliseconds from the run's start until the first
   * answer "sold out" arrived; NaN if no buyer was told so.
   */
  public double soldOutMillis() {
    return soldOutNanos < 0 ? Double.NaN : soldOutNanos / 1e6;
  }

  public String strategy() {
    return strategy;
  }

  /** Requests sent. */
  public int requests() {
    return sortedLatencyNanos.length;
  }

  public int count(Outcome outcome) {
    return counts.getOrDefault(outcome, 0);
  }

  /** Requests answered with a lock error (lock busy, or a refused stale token). */
  public int lockErrors() {
    return count(Outcome.LOCK_BUSY) + count(Outcome.STALE_TOKEN);
  }

  /** Requests that ended in any error, lock errors included. */
  public int errors() {
    int errors = 0;
    for (Outcome outcome : Outcome.values()) {
      if (outcome.isError()) {
        errors += count(outcome);
      }
    }
    return errors;
  }

  public double elapsedSeconds() {
    return elapsedNanos / 1e9;
  }

  /** Requests per second over the run's wall time. */
  public double requestsPerSecond() {
    return elapsedNanos == 0 ? 0 : requests() / elapsedSeconds();
  }

  /** The latency at {@code percentile} (0 to 100, nearest rank), in milliseconds. */
  public double latencyMillis(double percentile) {
    if (sortedLatencyNanos.length == 0) {
      return 0;
    }
    return percentile(sortedLatencyNanos, percentile);
  }

  private static double percentile(long[] sorted, double percentile) {
    int rank = (int) Math.ceil(percentile / 100.0 * sorted.length);
    int index = Math.min(sorted.length - 1, Math.max(0, rank - 1));
    return sorted[index] / 1e6;
  }

  public double maxLatencyMillis() {
    return sortedLatencyNanos.length == 0 ? 0 : sortedLatencyNanos[sortedLatencyNanos.length - 1] / 1e6;
  }
}

package io.relock.bench;

import java.util.List;
import java.util.Locale;

/**
 * The longest single command Redis ran in a window, read from its {@code SLOWLOG}. Redis runs
 * nothing else while one command runs (a Lua script included), so that command's run time is the
 * worst stall every other client of that Redis saw: what the watchdog's renewal batches must keep
 * short. Only commands slower than {@link #THRESHOLD_MICROS} are logged, so a window with none of
 * them has no slowest command and a worst stall of 0 (meaning: under the threshold).
 *
 * @param windowSeconds how long the slowlog recorded
 * @param worstMicros the slowest command's run time in microseconds; 0 if none passed the threshold;
 *     NaN if not measured
 * @param slowCommands how many commands passed the threshold (at most {@link #MAX_ENTRIES}: the log
 *     keeps no more); -1 if not measured
 * @param slowestCommand the slowest command's name in lower case (e.g. {@code evalsha}); null if none
 *     passed the threshold or not measured
 * @param medianMicros the median run time of the commands over the threshold; 0 if none, NaN if
 *     not measured
 * @param p99Micros their 99th percentile: on a small virtual machine a command now and then runs
 *     two to five times its usual time whatever it does, so the worst stall moves a lot from run
 *     to run and these say more about the usual one
 * @param notMeasuredBecause why there is no figure (e.g. {@code CONFIG} refused on a {@code REDIS_URL}
 *     server); null when measured
 */
record StallSample(double windowSeconds, double worstMicros, int slowCommands, String slowestCommand,
    double medianMicros, double p99Micros, String notMeasuredBecause) {

  /** Commands over this run time, in microseconds, are logged. */
  static final int THRESHOLD_MICROS = 100;
  /** The slowlog's length during the window, and how many entries are read back. */
  static final int MAX_ENTRIES = 1024;

  /** No figure: Redis refused to set up or read its slowlog. */
  static StallSample notMeasured(double windowSeconds, String because) {
    return new StallSample(windowSeconds, Double.NaN, -1, null, Double.NaN, Double.NaN, because);
  }

  /**
   * From the reply to {@code SLOWLOG GET}: entries of {@code [id, unix time, duration in
   * microseconds, [command, args...], ...]} (later fields vary with the Redis version and are not
   * read). Entries of any other shape are skipped rather than failing the run.
   */
  static StallSample fromSlowlog(List<?> entries, double windowSeconds) {
    long worst = 0;
    String slowest = null;
    int count = 0;
    List<Long> durations = new java.util.ArrayList<>();
    for (Object entry : entries) {
      if (!(entry instanceof List<?> fields) || fields.size() < 4 || !(fields.get(2) instanceof Number duration)) {
        continue;
      }
      String command = fields.get(3) instanceof List<?> args && !args.isEmpty()
          ? String.valueOf(args.get(0)).toLowerCase(Locale.ROOT) : "?";
      if (RedisInfo.isHarness(command)) {
        continue; // the bench's own INFO and SLOWLOG calls
      }
      count++;
      durations.add(duration.longValue());
      if (slowest == null || duration.longValue() > worst) {
        worst = duration.longValue();
        slowest = command;
      }
    }
    durations.sort(null);
    double median = durations.isEmpty() ? 0 : durations.get(durations.size() / 2);
    double p99 = durations.isEmpty() ? 0 : durations.get(Math.min(durations.size() - 1, durations.size() * 99 / 100));
    return new StallSample(windowSeconds, worst, count, slowest, median, p99, null);
  }

  boolean measured() {
    return notMeasuredBecause == null;
  }

  /** The worst stall in milliseconds; NaN if not measured. */
  double worstMillis() {
    return worstMicros / 1000;
  }

  /** For tables: milliseconds with 2 decimals, "< 0.10" when no command passed the threshold, "-" if not measured. */
  String worstMillisText() {
    if (!measured()) {
      return "-";
    }
    return slowCommands == 0 ? String.format(Locale.ROOT, "< %.2f", THRESHOLD_MICROS / 1000.0)
        : Results.num(worstMillis(), 2);
  }

  /** For the progress log. */
  String describe() {
    if (!measured()) {
      return "worst Redis stall not measured (" + notMeasuredBecause + ")";
    }
    if (slowCommands == 0) {
      return String.format(Locale.ROOT, "worst Redis stall under %d us (none slower in %.1f s)", THRESHOLD_MICROS,
          windowSeconds);
    }
    return String.format(Locale.ROOT, "worst Redis stall %.2f ms (%s; %d command%s over %d us in %.1f s: median %.2f,"
        + " p99 %.2f ms)", worstMillis(), slowestCommand, slowCommands, slowCommands == 1 ? "" : "s", THRESHOLD_MICROS,
        windowSeconds, medianMicros / 1000, p99Micros / 1000);
  }
}

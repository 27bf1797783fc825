package io.relock.bench;

import io.relock.LockLease;
import io.relock.Relock;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The {@code --forced-unlock} run: how soon a holder hears that another client freed its lock with
 * {@code forceUnlock()} (as {@code relock unlock --force} does), on each topology. One client holds
 * a lock with the default lease (30 s, renewed every 10 s, so a renewal alone would find the loss
 * 0 to 10 s later); a second client force-unlocks it; the figure is the time from the forced
 * unlock's call to the holder's {@code onLost} listener, over a number of rounds per topology.
 */
final class ForcedUnlockNotice {
  /** A loss noticed later than this is one the notice missed (a renewal found it instead). */
  static final Duration TARGET = Duration.ofSeconds(1);
  private static final Duration GIVE_UP = Duration.ofSeconds(15);

  private final int rounds;

  ForcedUnlockNotice(boolean shortRun) {
    this.rounds = shortRun ? 8 : 30;
  }

  /** Measures every topology in turn, each on servers started for it; prints a table and a line. */
  void run(PrintStream log) throws Exception {
    List<String[]> rows = new ArrayList<>();
    StringBuilder line = new StringBuilder("bench: forced-unlock");
    measure("single", () -> BenchRedis.open(null), rows, line, log);
    measure("sentinel", BenchRedis::startSentinel, rows, line, log);
    measure("cluster", () -> BenchRedis.startCluster(0), rows, line, log);
    measure("redlock", () -> BenchRedis.startRedlock(3), rows, line, log);
    Table table = new Table("a forced unlock: from forceUnlock() called to the holder's onLost, default lease 30 s"
        + " (median of " + rounds + " rounds per topology; ms)", List.of("topology", "median", "p90", "max",
        "within " + TARGET.toMillis() + " ms"));
    rows.forEach(table::add);
    log.println(table.toText());
    log.println(line);
  }

  private void measure(String name, Supplier<BenchRedis> start, List<String[]> rows, StringBuilder line,
      PrintStream log) throws Exception {
    log.println("forced unlock on " + name + ": starting servers");
    try (BenchRedis redis = start.get();
        Relock holder = RelockLocks.builderFor(redis.target()).build();
        Relock operator = RelockLocks.builderFor(redis.target()).build()) {
      log.println("relock bench --forced-unlock on " + name + ": " + Machine.describe(redis).oneLine());
      double[] ms = new double[rounds];
      for (int i = 0; i < rounds; i++) {
        String lock = "forced-" + i;
        LockLease lease = holder.lock(lock).acquire(Duration.ZERO);
        CompletableFuture<Long> lost = new CompletableFuture<>();
        lease.onLost(() -> lost.complete(System.nanoTime()));
        long called = System.nanoTime();
        if (!operator.lock(lock).forceUnlock()) {
          throw new IllegalStateException("forceUnlock found " + lock + " free on " + name);
        }
        try {
          ms[i] = (lost.get(GIVE_UP.toMillis(), TimeUnit.MILLISECONDS) - called) / 1e6;
        } catch (TimeoutException e) {
          ms[i] = Double.POSITIVE_INFINITY;
        }
        try {
          lease.close();
        } catch (io.relock.LockLostException expected) {
          // the loss, reported once more at close
        }
      }
      java.util.Arrays.sort(ms);
      long within = java.util.Arrays.stream(ms).filter(m -> m <= TARGET.toMillis()).count();
      double median = ms[ms.length / 2];
      double p90 = ms[(int) Math.ceil(ms.length * 0.9) - 1];
      double max = ms[ms.length - 1];
      rows.add(new String[] {name, fmt(median), fmt(p90), fmt(max), within + " of " + rounds});
      line.append(String.format(Locale.ROOT, " %s_median_ms=%.1f %s_max_ms=%.1f %s_within=%d/%d", name, median, name, max,
          name, within, rounds));
    }
  }

  private static String fmt(double ms) {
    return Double.isInfinite(ms) ? "> " + GIVE_UP.toMillis() : String.format(Locale.ROOT, "%,.1f", ms);
  }
}

package io.relock.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/** Rows for tests: every acquisition took 1 ms, in one-second windows. */
final class BenchRows {

  private BenchRows() {}

  /**
   * {@code acquisitions} spread evenly over {@code processes}, with {@code evalsha} client calls in
   * all, in one window.
   */
  static Row row(String scenario, Implementation impl, int processes, int threads, long acquisitions, long evalsha) {
    return new Row(scenario, impl, processes, threads, List.of(window(processes, acquisitions, evalsha, 1)),
        CallSplit.none(), 1, 0, "");
  }

  /**
   * One window per entry of {@code acquisitionsPerWindow}, each with 2 {@code evalsha} calls per
   * acquisition and acquisitions that took {@code millis} ms.
   */
  static Row windows(String scenario, Implementation impl, int processes, int threads, double millis,
      long... acquisitionsPerWindow) {
    List<Row.Window> windows = new ArrayList<>();
    for (long a : acquisitionsPerWindow) {
      windows.add(window(processes, a, 2 * a, millis));
    }
    return new Row(scenario, impl, processes, threads, windows, CallSplit.none(), 1, 0, "");
  }

  static Row.Window window(int processes, long acquisitions, long evalsha, double millis) {
    LatencyHistogram h = new LatencyHistogram();
    for (long i = 0; i < acquisitions; i++) {
      h.record((long) (millis * 1_000_000));
    }
    return new Row.Window(1.0, h, Collections.nCopies(processes, acquisitions / processes), new long[] {acquisitions},
        new RedisInfo.Delta(Map.of("evalsha", evalsha), 0.1), 0.5, Double.NaN, 0, 0, 0.5);
  }

  /**
   * A lock family row of {@code workload}: {@link #windows}'s figures, with a hold check that saw
   * {@code reads} reads among {@code acquisitions} holds and no violation.
   */
  static Row family(Workload workload, Implementation impl, double millis, long reads, long... acquisitionsPerWindow) {
    Row r = windows(workload.id(), impl, 4, 5, millis, acquisitionsPerWindow);
    long all = java.util.Arrays.stream(acquisitionsPerWindow).sum();
    return new Row(r.scenario, r.impl, r.processes, r.threadsPerProcess, r.windows, r.split, r.warmupSeconds,
        r.stragglers, r.firstError, workload, new LoadPhase.Checked(reads, all - reads, 0, "", 3, workload.permits(), 0));
  }
}

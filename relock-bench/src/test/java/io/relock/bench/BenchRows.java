package io.relock.bench;

import java.util.Collections;
import java.util.Map;

/** Rows for tests: every acquisition took 1 ms, in a one-second window. */
final class BenchRows {

  private BenchRows() {}

  /** {@code acquisitions} spread evenly over {@code processes}, with {@code evalsha} client calls in all. */
  static Row row(String scenario, Implementation impl, int processes, int threads, long acquisitions, long evalsha) {
    LatencyHistogram h = new LatencyHistogram();
    for (long i = 0; i < acquisitions; i++) {
      h.record(1_000_000);
    }
    return new Row(scenario, impl, processes, threads, 1.0, h, Collections.nCopies(processes, acquisitions / processes),
        new long[] {acquisitions}, new RedisInfo.Delta(Map.of("evalsha", evalsha), 0.1), 0.5, 0, "", 0,
        CallSplit.none(), 0, 1);
  }
}

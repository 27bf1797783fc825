package io.relock.demo.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StrategyReportTest {

  @Test
  void summaryLine_hasTheDocumentedKeysInOrder() {
    long ms = 1_000_000L;
    LoadRun run =
        new LoadRun(
            "seed-setnx",
            Map.of(Outcome.SOLD, 3, Outcome.SOLD_OUT, 1, Outcome.LOCK_BUSY, 1, Outcome.FAILED, 1),
            new long[] {5 * ms, 1 * ms, 2 * ms, 3 * ms, 4 * ms, 100 * ms},
            2_000_000_000L);
    StrategyReport report = new StrategyReport(run, new SaleState(0, 2, 3, 1), List.of("relock-demo:setnx-lock:item:x"));

    assertThat(report.summaryLine())
        .isEqualTo(
            "strategy=seed-setnx requests=6 sold=3 oversold=1 errors=2 rps=3 p99_ms=100 leftover_keys=1");
    assertThat(run.lockErrors()).isEqualTo(1);
    assertThat(run.latencyMillis(50)).isEqualTo(3.0);
  }
}

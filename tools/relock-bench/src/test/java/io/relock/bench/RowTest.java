package io.relock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RowTest {

  @Test
  void figures_areTheMedianWindows_notOneWindowNorThePooledTotal() {
    Row r = BenchRows.windows(Results.UNCONTENDED, Implementation.RELOCK, 1, 8, 1.0, 100, 900, 300);
    assertThat(r.perSecond()).isEqualTo(300);
    assertThat(r.spread(Row.Window::perSecond)).isEqualTo(new Spread(100, 300, 900));
    assertThat(r.acquisitions()).isEqualTo(1300);
    assertThat(r.callsPerAcquisition()).isEqualTo(2.0);
  }

  @Test
  void theLongestWait_isTheLongestOfAnyWindow_andStarvation_inAnyWindowCounts() {
    Row.Window calm = BenchRows.window(2, 100, 200, 1.0);
    Row.Window slow = BenchRows.window(2, 100, 200, 40.0);
    Row.Window starved = new Row.Window(1.0, calm.latencies(), List.of(100L, 0L), new long[] {100, 0},
        calm.redis(), 0.5, Double.NaN, 0, 0.2, 0.5);
    Row r = new Row(Results.CONTENDED_PROCESSES, Implementation.RELOCK, 2, 1, List.of(calm, slow, starved),
        CallSplit.none(), 3, 0, "");
    assertThat(r.maxMillis()).isEqualTo(40.0);
    assertThat(r.millis(99)).isEqualTo(1.0);
    assertThat(r.minProcessShare()).isZero();
    assertThat(r.processFairness()).isEqualTo(1.0);
    assertThat(r.jitShare()).isEqualTo(0.2);
    assertThat(r.perProcess()).containsExactly(200L, 100L);
  }

  @Test
  void json_keepsTheRowFigures_andAddsEveryWindow_andTheSpread() {
    Map<String, Object> json = BenchJson.readObject(BenchJson.line(
        BenchRows.windows(Results.CONTENDED_PROCESSES, Implementation.RELOCK, 4, 2, 1.0, 400, 800, 600).toJson()));
    // Whole figures are written without a fraction, so they come back as whole numbers.
    assertThat(json).containsEntry("acquisitions_per_s", 600L).containsEntry("windows_counted", 3L)
        .containsEntry("calls_per_acquisition", 2L).containsEntry("acquisitions", 1800L)
        .containsEntry("per_process", List.of(450L, 450L, 450L, 450L));
    assertThat((Map<?, ?>) ((Map<?, ?>) json.get("spread_over_windows")).get("acquisitions_per_s"))
        .isEqualTo(Map.of("min", 400L, "median", 600L, "max", 800L));
    assertThat((List<?>) json.get("windows")).hasSize(3);
    assertThat(((List<?>) json.get("windows")).stream().map(w -> ((Map<?, ?>) w).get("acquisitions")).toList())
        .isEqualTo(List.of(400L, 800L, 600L));
  }
}

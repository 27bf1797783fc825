package io.relock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class BenchTest {

  private static Row.Window compiling(double jitShare) {
    return window(jitShare, 10);
  }

  private static Row.Window window(double jitShare, long acquisitions) {
    Row.Window w = BenchRows.window(1, acquisitions, 20, 1.0);
    return new Row.Window(w.seconds(), w.latencies(), w.perProcess(), w.perThread(), w.redis(), 0.5, Double.NaN, 0,
        jitShare, 0.5);
  }

  @Test
  void aWindowIsSettled_whenTheJitWasQuiet_andSomethingWasAcquired() {
    assertThat(Bench.settled(window(0.05, 10))).isTrue();
    assertThat(Bench.settled(window(0.06, 10))).isFalse();
    // A client still connecting: idle threads, quiet JIT, nothing acquired.
    assertThat(Bench.settled(window(0, 0))).isFalse();
  }

  @Test
  void counted_areTheLastSettledWindows_notNecessarilyInARow() {
    List<Row.Window> measured = List.of(compiling(0.3), compiling(0.01), compiling(0.4), compiling(0.02),
        compiling(0.03), compiling(0.2));
    assertThat(Bench.settledCount(measured)).isEqualTo(3);
    assertThat(Bench.counted(measured, 3)).containsExactly(1, 3, 4);
    assertThat(Bench.counted(measured, 2)).containsExactly(3, 4);
  }

  @Test
  void counted_fallsBackToTheLastWindows_whenTooFewSettled() {
    List<Row.Window> measured = List.of(compiling(0.01), compiling(0.3), compiling(0.4), compiling(0.5));
    assertThat(Bench.counted(measured, 3)).containsExactly(1, 2, 3);
    assertThat(Bench.counted(List.of(compiling(0.9)), 3)).containsExactly(0);
  }
}

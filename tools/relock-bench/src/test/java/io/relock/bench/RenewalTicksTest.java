package io.relock.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class RenewalTicksTest {
  private static final long MS = 1_000_000;
  private static final long TICK = 1000 * MS;

  /** Readings every 100 ms of a counter that {@code at} moves by {@code by}. */
  private static RenewalTicks read(int readings, long[][] bumps) {
    long[] at = new long[readings];
    long[] calls = new long[readings];
    long count = 0;
    for (int i = 0; i < readings; i++) {
      at[i] = i * 100 * MS;
      for (long[] b : bumps) {
        if (b[0] == i) {
          count += b[1];
        }
      }
      calls[i] = count;
    }
    return RenewalTicks.of(at, calls, TICK, 2);
  }

  @Test
  void bursts_areCountedWhole_whateverTheWindowsPhase() {
    // 2.5 ticks: a burst cut by the window's start (at reading 1), two whole ones, a PING or two.
    RenewalTicks t = read(26, new long[][] {{1, 40}, {9, 1}, {11, 60}, {12, 40}, {19, 1}, {21, 100}, {25, 1}});
    assertThat(t.bursts()).isEqualTo(2);
    assertThat(t.callsPerTick()).isEqualTo(100.0);
    assertThat(t.calls()).isEqualTo(243);
  }

  @Test
  void aBurstCutByTheWindowsEnd_isNotCounted() {
    RenewalTicks t = read(21, new long[][] {{5, 100}, {19, 70}, {20, 30}});
    assertThat(t.bursts()).isEqualTo(1);
    assertThat(t.callsPerTick()).isEqualTo(100.0);
  }

  @Test
  void callsSpreadOverTheTick_areCountedOverTheWindowsLength() {
    long[][] steady = new long[20][];
    for (int i = 0; i < 20; i++) {
      steady[i] = new long[] {i + 1, 10};
    }
    RenewalTicks t = read(21, steady);
    assertThat(t.bursts()).isZero();
    assertThat(t.callsPerTick()).isCloseTo(100.0, within(0.01));
  }
}

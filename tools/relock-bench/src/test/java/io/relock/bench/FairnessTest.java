package io.relock.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class FairnessTest {

  @Test
  void jainIndex_isOneWhenEven_andOneOverNWhenOneTakesAll() {
    assertThat(Fairness.jainIndex(List.of(5L, 5L, 5L, 5L))).isEqualTo(1.0);
    assertThat(Fairness.jainIndex(List.of(20L, 0L, 0L, 0L))).isEqualTo(0.25);
    assertThat(Fairness.jainIndex(List.of(1L, 3L))).isCloseTo(16.0 / 20, within(1e-12));
    assertThat(Fairness.jainIndex(List.of())).isEqualTo(1.0);
  }

  @Test
  void minShare_isTheLeastServedRelativeToTheMean() {
    assertThat(Fairness.minShare(List.of(10L, 30L))).isEqualTo(0.5);
    assertThat(Fairness.minShare(List.of(0L, 30L))).isZero();
    assertThat(Fairness.minShare(List.of(0L, 0L))).isEqualTo(1.0);
  }
}

package io.relock.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class LoadPhaseTest {

  @Test
  void windowOf_countsAnAcquisitionInTheWindowItReturnedIn() {
    long[] edges = {100, 200, 300, 400};
    assertThat(LoadPhase.windowOf(99, edges)).isEqualTo(-1);
    assertThat(LoadPhase.windowOf(100, edges)).isZero();
    assertThat(LoadPhase.windowOf(199, edges)).isZero();
    assertThat(LoadPhase.windowOf(200, edges)).isEqualTo(1);
    assertThat(LoadPhase.windowOf(399, edges)).isEqualTo(2);
    assertThat(LoadPhase.windowOf(400, edges)).isEqualTo(3);
  }

  @Test
  void plan_needsOneWindowAtLeast_andEdgesInOrder() {
    LoadPhase.Plan plan = new LoadPhase.Plan(List.of("a"), 1000, List.of(1500L, 2500L, 3000L));
    assertThat(plan.windows()).isEqualTo(2);
    assertThat(plan.windowSeconds(1)).isEqualTo(0.5);
    assertThatThrownBy(() -> new LoadPhase.Plan(List.of("a"), 1000, List.of(1500L)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new LoadPhase.Plan(List.of("a"), 1000, List.of(1500L, 1500L)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new LoadPhase.Plan(List.of("a"), 2000, List.of(1500L, 2500L)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}

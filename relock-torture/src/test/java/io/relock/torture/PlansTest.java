package io.relock.torture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Which runs a suite does for each topology, and what the Sentinel runs are given. */
class PlansTest {
  private static final TortureSettings SHORT = TortureSettings.shortRun();
  private static final TortureSettings FULL = TortureSettings.full();

  private static List<String> names(List<TortureRun.Plan> plans) {
    return plans.stream().map(TortureRun.Plan::name).toList();
  }

  @Test
  void singleTopology_isTodaysSuite() {
    List<TortureRun.Plan> plans = TortureMain.plans(FULL, FULL.forSentinel(false), 1, null, Topology.parse("single"),
        false);

    assertThat(names(plans)).isEqualTo(names(TortureMain.plans(FULL, 1, null)));
    assertThat(names(plans)).first().isEqualTo("none");
    assertThat(plans).allMatch(p -> p.topology() == Topology.SINGLE && p.replicaAcks() == 0);
  }

  @Test
  void sentinelTopology_failsOverWithAndWithoutTheHole_eachWithReplicaAcksOffAndOn() {
    List<TortureRun.Plan> plans = TortureMain.plans(FULL, FULL.forSentinel(false), 1, null, Topology.parse("sentinel"),
        false);

    assertThat(names(plans)).containsExactly("sentinel-failover", "sentinel-failover-acks", "sentinel-failover-hole",
        "sentinel-failover-hole-acks");
    assertThat(plans).extracting(TortureRun.Plan::replicaAcks).containsExactly(0, 1, 0, 1);
    assertThat(plans).allSatisfy(p -> {
      assertThat(p.topology()).isEqualTo(Topology.SENTINEL);
      assertThat(p.steps()).isNotEmpty().allMatch(s -> s.fault() == p.fault());
      assertThat(p.settings().lease()).as("longer than a failover").isGreaterThanOrEqualTo(java.time.Duration.ofSeconds(8));
      assertThat(TortureSettings.REPLICA_ACK_TIMEOUT).isLessThan(p.settings().commandTimeout());
    });
  }

  @Test
  void shortSuite_coversTheSentinelHoleOnce_withReplicaAcksOffAndOn() {
    List<TortureRun.Plan> plans = TortureMain.plans(SHORT, SHORT.forSentinel(true), 1, null, Topology.parse("all"),
        true);

    assertThat(names(plans)).endsWith("sentinel-failover-hole", "sentinel-failover-hole-acks")
        .contains("none", "combined").doesNotContain("sentinel-failover");
  }

  @Test
  void runsOption_picksByFaultOrByRunName_andRejectsWhatNoTopologyHas() {
    assertThat(names(TortureMain.plans(SHORT, SHORT.forSentinel(true), 1, List.of("failover"),
        Topology.parse("sentinel"), true))).containsExactly("sentinel-failover", "sentinel-failover-acks");
    assertThat(names(TortureMain.plans(SHORT, SHORT.forSentinel(true), 1, List.of("none", "sentinel-failover-hole-acks"),
        Topology.parse("all"), true))).containsExactly("none", "sentinel-failover-hole-acks");

    assertThatThrownBy(() -> TortureMain.plans(SHORT, SHORT.forSentinel(true), 1, List.of("pause-holder"),
        Topology.parse("sentinel"), true)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no run");
    assertThatThrownBy(() -> TortureMain.plans(SHORT, SHORT.forSentinel(true), 1, List.of("nonsense"),
        Topology.parse("all"), true)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown run");
    assertThatThrownBy(() -> Topology.parse("cluster")).isInstanceOf(IllegalArgumentException.class);
  }
}

package io.relock.torture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Which runs a suite does for each topology, and what the Sentinel and Redlock runs are given. */
class PlansTest {
  private static final TortureSettings SHORT = TortureSettings.shortRun();
  private static final TortureSettings FULL = TortureSettings.full();

  private static List<TortureRun.Plan> plansOf(TortureSettings s, boolean shortSuite, long seed, List<String> only,
      List<Topology> topologies, boolean shortFlag) {
    return TortureMain.plans(s, s.forSentinel(shortSuite), s.forCluster(shortSuite), s.forRedlock(shortSuite), seed,
        only, topologies, shortFlag);
  }

  private static List<String> names(List<TortureRun.Plan> plans) {
    return plans.stream().map(TortureRun.Plan::name).toList();
  }

  @Test
  void singleTopology_isTodaysSuite() {
    List<TortureRun.Plan> plans = plansOf(FULL, false, 1, null, Topology.parse("single"),
        false);

    assertThat(names(plans)).isEqualTo(names(TortureMain.plans(FULL, 1, null)));
    assertThat(names(plans)).first().isEqualTo("none");
    assertThat(plans).allMatch(p -> p.topology() == Topology.SINGLE && p.replicaAcks() == 0);
  }

  @Test
  void sentinelTopology_failsOverWithAndWithoutTheHole_eachWithReplicaAcksOffAndOn() {
    List<TortureRun.Plan> plans = plansOf(FULL, false, 1, null, Topology.parse("sentinel"),
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
    List<TortureRun.Plan> plans = plansOf(SHORT, true, 1, null, Topology.parse("all"),
        true);

    assertThat(names(plans)).endsWith("sentinel-failover-hole", "sentinel-failover-hole-acks", "cluster-kill-primary",
        "redlock-restart-master")
        .contains("none", "combined").doesNotContain("sentinel-failover");
  }

  @Test
  void runsOption_picksByFaultOrByRunName_andRejectsWhatNoTopologyHas() {
    assertThat(names(plansOf(SHORT, true, 1, List.of("failover"),
        Topology.parse("sentinel"), true))).containsExactly("sentinel-failover", "sentinel-failover-acks");
    assertThat(names(plansOf(SHORT, true, 1, List.of("none", "sentinel-failover-hole-acks"),
        Topology.parse("all"), true))).containsExactly("none", "sentinel-failover-hole-acks");

    assertThatThrownBy(() -> plansOf(SHORT, true, 1, List.of("pause-holder"),
        Topology.parse("sentinel"), true)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no run");
    assertThatThrownBy(() -> plansOf(SHORT, true, 1, List.of("nonsense"),
        Topology.parse("all"), true)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown run");
    assertThatThrownBy(() -> Topology.parse("mesh")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'mesh'");
  }

  @Test
  void redlockTopology_oneRunPerFaultOnAMaster_controlLast() {
    List<TortureRun.Plan> plans = plansOf(FULL, false, 1, null, Topology.parse("redlock"), false);

    assertThat(names(plans)).containsExactly("redlock-partition-master", "redlock-pause-master",
        "redlock-restart-master", "redlock-clock-step-master", "redlock-restart-master-nodelay");
    assertThat(plans).allSatisfy(p -> {
      assertThat(p.topology()).isEqualTo(Topology.REDLOCK);
      assertThat(p.replicaAcks()).isZero();
      assertThat(p.steps()).isNotEmpty().allMatch(s -> s.fault() == p.fault());
      TortureSettings s = p.settings();
      assertThat(s.redlockRestartDelay()).as("relock refuses a lease longer than the delay")
          .isGreaterThanOrEqualTo(s.lease());
      assertThat(s.redlockRestartDelay()).as("several restarts, and their ends, fit in a run")
          .isLessThan(s.runLength().dividedBy(3));
      assertThat(s.longHoldMax()).as("an erased hold goes on after the restart").isGreaterThan(s.lease());
    });
  }

  @Test
  void redlockSteps_hitAMasterPastThePerNodeTimeout_andRestartsWaitOutTheDelay() {
    List<TortureRun.Plan> plans = plansOf(FULL, false, 7, null, Topology.parse("redlock"), false);
    java.time.Duration perNodeTimeout = FULL.commandTimeout().dividedBy(4);

    for (TortureRun.Plan p : plans) {
      for (Step s : p.steps()) {
        switch (s.fault()) {
          case PAUSE_MASTER, PARTITION_MASTER -> assertThat(s.length()).isGreaterThan(perNodeTimeout);
          case RESTART_MASTER, RESTART_MASTER_NODELAY, CLOCK_STEP_MASTER -> assertThat(s.gapBefore())
              .as("the previous restart's delay is over")
              .isGreaterThan(p.settings().redlockRestartDelay());
          default -> throw new AssertionError("not a Redlock fault: " + s);
        }
      }
    }
  }

  @Test
  void allTopologies_includeRedlock_andTheShortSuiteHasOneRedlockRun() {
    assertThat(Topology.parse("all")).contains(Topology.REDLOCK);
    assertThat(Topology.parse("redlock")).containsExactly(Topology.REDLOCK);

    List<TortureRun.Plan> plans = plansOf(SHORT, true, 1, null, Topology.parse("all"), true);
    List<TortureRun.Plan> redlock = plans.stream().filter(p -> p.topology() == Topology.REDLOCK).toList();
    assertThat(names(redlock)).containsExactly("redlock-restart-master");
    assertThat(redlock.get(0).length()).as("CI: the run itself, plus start and stop, under 40 s")
        .isLessThanOrEqualTo(java.time.Duration.ofSeconds(20));
    assertThat(names(plans)).last().isEqualTo("redlock-restart-master");
  }

  @Test
  void runsOption_picksRedlockRunsByFaultOrName() {
    assertThat(names(plansOf(SHORT, true, 1, List.of("restart-master-nodelay"), Topology.parse("all"), true)))
        .containsExactly("redlock-restart-master-nodelay");
    assertThat(names(plansOf(SHORT, true, 1, List.of("none", "redlock-pause-master"), Topology.parse("all"), true)))
        .containsExactly("none", "redlock-pause-master");
    assertThatThrownBy(() -> plansOf(SHORT, true, 1, List.of("pause-master"), Topology.parse("single"), true))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no run");
  }

  @Test
  void clusterTopology_killsPrimariesWithAndWithoutReplicaAcks_andMigratesSlots() {
    List<TortureRun.Plan> plans = plansOf(FULL, false, 1, null, Topology.parse("cluster"), false);

    assertThat(names(plans)).containsExactly("cluster-kill-primary", "cluster-kill-primary-acks",
        "cluster-migrate-slot");
    assertThat(plans).allMatch(p -> p.topology() == Topology.CLUSTER);
    assertThat(plans.stream().map(TortureRun.Plan::replicaAcks).toList()).containsExactly(0, 1, 0);
    for (TortureRun.Plan p : plans) {
      assertThat(p.steps()).isNotEmpty().allMatch(s -> s.fault() == p.fault());
      assertThat(p.settings().lease()).as("longer than a failover").isGreaterThan(java.time.Duration.ofSeconds(5));
    }
    assertThat(names(plansOf(SHORT, true, 1, List.of("migrate-slot"), Topology.parse("all"), true)))
        .containsExactly("cluster-migrate-slot");
    assertThat(names(plansOf(SHORT, true, 1, List.of("cluster-kill-primary-acks"), Topology.parse("all"), true)))
        .containsExactly("cluster-kill-primary-acks");
    assertThatThrownBy(() -> plansOf(SHORT, true, 1, List.of("kill-primary"), Topology.parse("redlock"), true))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no run");
  }

  @Test
  void shortSuite_hasOneClusterRun() {
    List<TortureRun.Plan> cluster = plansOf(SHORT, true, 1, null, Topology.parse("all"), true).stream()
        .filter(p -> p.topology() == Topology.CLUSTER).toList();

    assertThat(names(cluster)).containsExactly("cluster-kill-primary");
    assertThat(cluster.get(0).length()).isLessThanOrEqualTo(java.time.Duration.ofSeconds(16));
  }
}

package io.relock.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.bench.BenchTarget.Topology;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeploymentTest {

  private static List<String> ids(String topology, List<Integer> masters) {
    return Deployment.plan(topology, masters).stream().map(Deployment::id).toList();
  }

  @Test
  void redlock_runsOnThreeThenFiveMasters_unlessToldOtherwise() {
    assertThat(ids("redlock", null)).containsExactly("redlock-3", "redlock-5");
    assertThat(ids(" Redlock ", List.of(5))).containsExactly("redlock-5");
    assertThat(ids("redlock", List.of(7, 3))).containsExactly("redlock-7", "redlock-3");
    assertThat(Deployment.plan("redlock", List.of(5)).get(0)).isEqualTo(new Deployment(Topology.REDLOCK, 5));
  }

  @Test
  void all_endsWithRedlockAtEachSize() {
    assertThat(ids("all", null)).containsExactly("single", "sentinel", "cluster", "redlock-3", "redlock-5");
    assertThat(ids("all", List.of(3))).containsExactly("single", "sentinel", "cluster", "redlock-3");
    assertThat(ids("cluster", null)).containsExactly("cluster");
  }

  @Test
  void groupSizes_mustBeOddFromThree_givenOnce_andOnlyWhereRedlockRuns() {
    assertThatThrownBy(() -> Deployment.plan("redlock", List.of(4))).hasMessageContaining("odd number of masters, at least 3, not 4");
    assertThatThrownBy(() -> Deployment.plan("redlock", List.of(1))).hasMessageContaining("not 1");
    assertThatThrownBy(() -> Deployment.plan("redlock", List.of(3, 3))).hasMessageContaining("names 3 twice");
    assertThatThrownBy(() -> Deployment.plan("redlock", List.of())).hasMessageContaining("no group size");
    assertThatThrownBy(() -> Deployment.plan("sentinel", List.of(3))).hasMessageContaining("--redlock-masters applies to");
    assertThatThrownBy(() -> Deployment.plan("raft", null)).hasMessageContaining("unknown topology 'raft'");
    assertThatThrownBy(() -> new Deployment(Topology.CLUSTER, 3)).hasMessageContaining("only Redlock");
  }

  @Test
  void names_sayHowManyMasters() {
    assertThat(Deployment.redlock(5).describe()).isEqualTo("redlock, 5 masters (calls summed over them)");
    assertThat(Deployment.of(Topology.SENTINEL).id()).isEqualTo("sentinel");
    assertThat(Deployment.of(Topology.SENTINEL).describe()).isEqualTo("sentinel");
  }
}

package io.relock.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.bench.BenchTarget.Topology;
import java.util.List;
import org.junit.jupiter.api.Test;

class BenchTargetTest {

  @Test
  void single_travelsAsTheUriItself() {
    BenchTarget t = BenchTarget.parse("redis://:secret@10.0.0.1:6380/2");
    assertThat(t.topology()).isEqualTo(Topology.SINGLE);
    assertThat(t.uri()).isEqualTo("redis://:secret@10.0.0.1:6380/2");
    assertThat(BenchTarget.single(t.uri()).spec()).isEqualTo(t.spec());
    assertThat(t).hasToString("redis://:***@10.0.0.1:6380/2");
    assertThatThrownBy(t::masterName).hasMessageContaining("10.0.0.1").hasMessageNotContaining("secret");
  }

  @Test
  void sentinel_travelsInLettucesForm_andGivesBackTheSentinelsAndTheMasterName() {
    BenchTarget t = BenchTarget.sentinel("mymaster", List.of("redis://127.0.0.1:26379", "redis://127.0.0.1:26380"));
    assertThat(t.spec()).isEqualTo("redis-sentinel://127.0.0.1:26379,127.0.0.1:26380#mymaster");
    BenchTarget back = BenchTarget.parse(t.spec());
    assertThat(back).isEqualTo(t);
    assertThat(back.masterName()).isEqualTo("mymaster");
    assertThat(back.nodeUris()).containsExactly("redis://127.0.0.1:26379", "redis://127.0.0.1:26380");
    assertThat(back.uri()).isEqualTo(t.spec());
  }

  @Test
  void cluster_travelsAsItsSeeds() {
    BenchTarget t = BenchTarget.cluster(List.of("redis://127.0.0.1:7000", "redis://127.0.0.1:7001"));
    BenchTarget back = BenchTarget.parse(t.spec());
    assertThat(back.topology()).isEqualTo(Topology.CLUSTER);
    assertThat(back.nodeUris()).containsExactly("redis://127.0.0.1:7000", "redis://127.0.0.1:7001");
    assertThatThrownBy(back::uri).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void redlock_travelsAsItsMasters() {
    BenchTarget t = BenchTarget.redlock(List.of("redis://127.0.0.1:7000", "redis://127.0.0.1:7001", "redis://127.0.0.1:7002"));
    assertThat(t.spec()).isEqualTo("redlock://127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002");
    BenchTarget back = BenchTarget.parse(t.spec());
    assertThat(back).isEqualTo(t);
    assertThat(back.topology()).isEqualTo(Topology.REDLOCK);
    assertThat(back.nodeUris()).containsExactly("redis://127.0.0.1:7000", "redis://127.0.0.1:7001", "redis://127.0.0.1:7002");
    assertThatThrownBy(back::uri).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> BenchTarget.redlock(List.of("redis://:s3cret@127.0.0.1:7000")))
        .hasMessageContaining("no credentials").hasMessageNotContaining("s3cret");
  }

  @Test
  void topologies_byName() {
    assertThat(Topology.byId(" Sentinel ")).isEqualTo(Topology.SENTINEL);
    assertThat(Topology.byId("redlock")).isEqualTo(Topology.REDLOCK);
    assertThatThrownBy(() -> Topology.byId("raft")).hasMessageContaining("single, sentinel, cluster, redlock, all");
  }

  @Test
  void implementations_knowWhereTheyRun() {
    assertThat(Implementation.byId("relock+acks").runsOn(Topology.SINGLE)).isFalse();
    assertThat(Implementation.byId("relock+acks").runsOn(Topology.SENTINEL)).isTrue();
    assertThat(Implementation.REDISSON.runsOn(Topology.CLUSTER)).isTrue();
    assertThat(Implementation.SPRING_SPIN.runsOn(Topology.SENTINEL)).isFalse();
    assertThat(Implementation.LIMIT.runsOn(Topology.CLUSTER)).isFalse();
  }

  @Test
  void onRedlock_relockMeetsRedissonsRedLock_andNothingElse() {
    assertThat(java.util.Arrays.stream(Implementation.values()).filter(i -> i.runsOn(Topology.REDLOCK)))
        .containsExactly(Implementation.RELOCK, Implementation.REDISSON_REDLOCK);
    assertThat(Implementation.byId("redisson-redlock").runsOn(Topology.SINGLE)).isFalse();
    assertThat(Implementation.redissonOn(Topology.REDLOCK)).isEqualTo(Implementation.REDISSON_REDLOCK);
    assertThat(Implementation.redissonOn(Topology.CLUSTER)).isEqualTo(Implementation.REDISSON);
  }
}

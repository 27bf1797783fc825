package io.relock.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.LockLease;
import io.relock.Relock;
import io.relock.testkit.RedisMasterGroup;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The snippets of docs/topologies.md. */
class TopologiesTest {

  @Test
  void eachTopology_isOneBuilderCall_checkedWhenItIsMade() {
    String primaryPassword = "s3cret";
    // snippet:topology-builders
    Relock.Builder single = Relock.builder().uri("redis://redis.internal:6379");
    Relock.Builder behindSentinel = Relock.builder()
        .sentinel("mymaster", "redis://s1:26379", "redis://s2:26379", "redis://s3:26379")
        .sentinelPrimaryCredentials("app", primaryPassword);              // if the primary's login is not the sentinels'
    Relock.Builder sameInOneUri = Relock.builder()
        .uri("redis-sentinel://s1:26379,s2:26379,s3:26379#mymaster");     // Lettuce's URI form
    Relock.Builder cluster = Relock.builder()
        .cluster("redis://n1:7000", "redis://n2:7001");                    // seed nodes; the rest is found
    Relock.Builder redlock = Relock.builder()
        .redlock("redis://m1:6379", "redis://m2:6379", "redis://m3:6379");  // an odd number of independent masters

    // With one server, Sentinel or Cluster: an acquisition counts only once a replica has it.
    behindSentinel.replicaAcks(1, Duration.ofMillis(500));
    // end:topology-builders
    assertThat(single).isNotNull();
    assertThat(sameInOneUri).isNotNull();
    assertThat(cluster).isNotNull();
    assertThatThrownBy(() -> Relock.builder().redlock("redis://m1:6379", "redis://m2:6379", "redis://m3:6379", "redis://m4:6379"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("odd");
    assertThatThrownBy(() -> redlock.replicaAcks(1, Duration.ofMillis(500)).build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("replicaAcks");
  }

  @Test
  void redlock_overThreeMasters() {
    try (RedisMasterGroup group = RedisMasterGroup.start(3)) {
      String[] masters = group.uris();
      // snippet:redlock
      try (Relock relock = Relock.builder().redlock(masters).build();      // masters: three redis:// URIs
           LockLease lease = relock.lock("settlement").acquire(Duration.ofSeconds(5))) {
        settle(lease.fencingToken());    // held on a majority of the masters; tokens ordered without clocks
      }
      // end:redlock
    }
    assertThat(settledWith).isPositive();
  }

  private long settledWith;

  private void settle(long fencingToken) {
    settledWith = fencingToken;
  }
}

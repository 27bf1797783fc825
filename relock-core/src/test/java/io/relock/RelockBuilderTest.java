package io.relock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.internal.Topologies;
import io.relock.spi.RedisTarget;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Topology settings are checked when they are set, and conflicts when the client is built. */
class RelockBuilderTest {

  @Test
  void sentinelUri_isReadInLettucesForm() {
    RedisTarget t = Topologies.parseSentinelUri("redis-sentinel://app:s3cret@h1:26380,h2/2?timeout=5s#orders");
    assertThat(t.kind()).isEqualTo(RedisTarget.Kind.SENTINEL);
    assertThat(t.masterName()).isEqualTo("orders");
    assertThat(t.nodes()).containsExactly("redis://app:s3cret@h1:26380/2?timeout=5s",
        "redis://app:s3cret@h2:26379/2?timeout=5s");
    assertThat(t.toString()).doesNotContain("s3cret");
  }

  @Test
  void sentinelUri_withTlsAndMasterIdParameter() {
    RedisTarget t = Topologies.parseSentinelUri("rediss-sentinel://h1:1?sentinelMasterId=m1");
    assertThat(t.masterName()).isEqualTo("m1");
    assertThat(t.nodes()).containsExactly("rediss://h1:1");
  }

  @Test
  void sentinelUri_withoutMasterName_isRejectedNamingIt() {
    assertThatThrownBy(() -> Relock.builder().uri("redis-sentinel://:pw@h1:26379"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("names no master")
        .hasMessageContaining("redis-sentinel://:***@h1:26379")
        .hasMessageNotContaining("pw");
  }

  @Test
  void keyPrefix_withABrace_isRejectedNamingIt() {
    assertThatThrownBy(() -> Relock.builder().keyPrefix("app{1}:"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'app{1}:'").hasMessageContaining("'{'");
    assertThatThrownBy(() -> Relock.builder().keyPrefix("app}:"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'app}:'");
    Relock.builder().keyPrefix("jobs:h:"); // the other separators are fine
  }

  @Test
  void sentinelUri_namingOneSentinelTwice_isRejected() {
    assertThatThrownBy(() -> Relock.builder().uri("redis-sentinel://h1,H1:26379#m"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("names h1:26379 twice");
  }

  @Test
  void sentinel_rejectsBlankMasterAndForeignSchemes() {
    assertThatThrownBy(() -> Relock.builder().sentinel(" ", "redis://h1:26379"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("masterName");
    assertThatThrownBy(() -> Relock.builder().sentinel("m", "http://h1:26379"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("http://h1:26379");
    assertThatThrownBy(() -> Relock.builder().sentinel("m"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 1");
  }

  @Test
  void cluster_rejectsASentinelUriAndDuplicates() {
    assertThatThrownBy(() -> Relock.builder().cluster("redis-sentinel://h1:26379#m"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cluster(...)")
        .hasMessageContaining("is a Sentinel URI");
    assertThatThrownBy(() -> Relock.builder().cluster("redis://h1:7000", "redis://x@h1:7000/0"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("names h1:7000 twice");
  }

  /**
   * A Sentinel URI given where node URIs go is named in the message, its password hidden: also a
   * password that stands raw (a space in it, or reserved characters), which ends the URI early for
   * a reader of free text.
   */
  @Test
  void cluster_givenASentinelUriWithARawPassword_namesItWithThePasswordHidden() {
    for (String password : new String[] {"kQ7v/@:%# Zx9w", "a b", "Zx 9w"}) {
      assertThatThrownBy(() -> Relock.builder().cluster("redis-sentinel://app:" + password + "@h1:26379#m"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("is a Sentinel URI")
          .hasMessageContaining("redis-sentinel://app:***@h1:26379#m")
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain(password.substring(password.indexOf(' '))));
    }
  }

  @Test
  void redlock_needsAnOddNumberOfAtLeastThreeDistinctMasters() {
    assertThatThrownBy(() -> Relock.builder().redlock("redis://h1"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 3");
    assertThatThrownBy(() -> Relock.builder().redlock("redis://h1", "redis://h2", "redis://h3", "redis://h4"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("odd number").hasMessageContaining("got 4");
    assertThatThrownBy(() -> Relock.builder().redlock("redis://h1", "redis://h2", "redis://h1:6379"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("names h1:6379 twice");
  }

  @Test
  void replicaAcks_rejectsBadValuesAtOnce() {
    assertThatThrownBy(() -> Relock.builder().replicaAcks(-1, Duration.ofMillis(100)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
    assertThatThrownBy(() -> Relock.builder().replicaAcks(1, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("replicaAcks timeout");
  }

  @Test
  void build_refusesConflictsBeforeConnecting() {
    assertThatThrownBy(() -> Relock.builder().build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("none was given");
    assertThatThrownBy(() -> Relock.builder().uri("redis://h1").sentinel("m", "redis://h2:26379").build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("[uri, sentinel]");
    assertThatThrownBy(() -> Relock.builder().redlock("redis://h1", "redis://h2", "redis://h3")
        .replicaAcks(1, Duration.ofMillis(100)).build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("no replicas");
    assertThatThrownBy(() -> Relock.builder().uri("redis://h1").commandTimeout(Duration.ofSeconds(1))
        .replicaAcks(1, Duration.ofSeconds(1)).build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("shorter than the command timeout");
    assertThatThrownBy(() -> Relock.builder().uri("redis://h1").redlockRestartDelay(Duration.ofMinutes(1)).build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("redlock(...) only");
    assertThatThrownBy(() -> Relock.builder().redlock("redis://h1", "redis://h2", "redis://h3")
        .defaultLease(Duration.ofSeconds(30)).redlockRestartDelay(Duration.ofSeconds(10)).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("defaultLease PT30S is longer");
  }

  @Test
  void redlockRestartDelay_mustBePositive() {
    assertThatThrownBy(() -> Relock.builder().redlockRestartDelay(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("redlockRestartDelay");
  }

  @Test
  void target_listsNodesWithoutPasswords() {
    assertThat(RedisTarget.cluster(List.of("redis://u:pw@a:1", "redis://b:2")).toString())
        .isEqualTo("cluster [redis://u:***@a:1, redis://b:2]");
  }
}

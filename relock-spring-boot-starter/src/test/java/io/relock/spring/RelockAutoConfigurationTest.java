package io.relock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.LockLease;
import io.relock.Relock;
import io.relock.RelockException;
import io.relock.testkit.RedisClusterGroup;
import io.relock.testkit.RedisExtension;
import io.relock.testkit.RedisSentinelGroup;
import io.relock.testkit.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The auto-configured {@link Relock}: built from spring.data.redis.* and relock.* on every
 * topology, backing off for the application's own, absent when turned off or not on the class path.
 */
@SuppressWarnings("try") // leases held by try-with-resources for their side effect
class RelockAutoConfigurationTest {

  @RegisterExtension static final RedisExtension redis = new RedisExtension();

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(RelockAutoConfiguration.class, LockedAutoConfiguration.class));

  private static String hostPort(RedisServer server) {
    return server.host() + ":" + server.port();
  }

  @Test
  void fromSpringDataRedisUrl_theRelockBeanLocksInThatRedis() {
    runner.withPropertyValues("spring.data.redis.url=" + redis.server().uri()).run(context -> {
      assertThat(context).hasSingleBean(Relock.class);
      try (LockLease lease = context.getBean(Relock.class).lock("auto-url").acquire(Duration.ofSeconds(5))) {
        assertThat(redis.server().execute("EXISTS", "relock:{auto-url}")).isEqualTo(1L);
      }
    });
  }

  @Test
  void fromHostPortUsernamePasswordAndDatabase_theClientAuthenticatesAndLocksInThatDatabase() {
    String password = "p@ss:w/rd%+#?";
    try (RedisServer secured = RedisServer.builder().aclUser("locker", password).start()) {
      runner.withPropertyValues("spring.data.redis.host=" + secured.host(),
          "spring.data.redis.port=" + secured.port(), "spring.data.redis.username=locker",
          "spring.data.redis.password=" + password, "spring.data.redis.database=3").run(context -> {
            try (LockLease lease = context.getBean(Relock.class).lock("auto-db").acquire(Duration.ofSeconds(5))) {
              assertThat(secured.execute("EVAL", "redis.call('SELECT', 3) return redis.call('EXISTS', KEYS[1])",
                  "1", "relock:{auto-db}")).isEqualTo(1L);
              assertThat(secured.execute("EXISTS", "relock:{auto-db}")).as("not in database 0").isEqualTo(0L);
            }
          });
    }
  }

  @Test
  void relockProperties_keyPrefixAndDefaultLease_reachTheClient() {
    runner.withPropertyValues("spring.data.redis.url=" + redis.server().uri(), "relock.key-prefix=app1:",
        "relock.default-lease=10s").run(context -> {
          try (LockLease lease = context.getBean(Relock.class).lock("auto-prefix").acquire(Duration.ofSeconds(5))) {
            assertThat(redis.server().execute("EXISTS", "relock:{auto-prefix}")).isEqualTo(0L);
            long ttl = (Long) redis.server().execute("PTTL", "app1:{auto-prefix}");
            assertThat(ttl).isPositive().isLessThanOrEqualTo(10_000);
          }
        });
  }

  @Test
  void relockProperties_bindEverySetting() {
    runner.withPropertyValues("spring.data.redis.url=" + redis.server().uri(), "relock.key-prefix=p:",
        "relock.default-lease=20s", "relock.clock-drift=15ms", "relock.command-timeout=2s",
        "relock.connect-timeout=4s", "relock.recheck-interval=750ms", "relock.fence-retention=3d",
        "relock.driver=lettuce", "relock.replica-acks.timeout=250ms", "relock.locked.on-lost=throw",
        "relock.metrics.lock-name-pattern=(order):.*").run(context -> {
          assertThat(context).hasNotFailed();
          RelockProperties p = context.getBean(RelockProperties.class);
          assertThat(p.getKeyPrefix()).isEqualTo("p:");
          assertThat(p.getDefaultLease()).isEqualTo(Duration.ofSeconds(20));
          assertThat(p.getClockDrift()).isEqualTo(Duration.ofMillis(15));
          assertThat(p.getCommandTimeout()).isEqualTo(Duration.ofSeconds(2));
          assertThat(p.getConnectTimeout()).isEqualTo(Duration.ofSeconds(4));
          assertThat(p.getRecheckInterval()).isEqualTo(Duration.ofMillis(750));
          assertThat(p.getFenceRetention()).isEqualTo(Duration.ofDays(3));
          assertThat(p.getDriver()).isEqualTo("lettuce");
          assertThat(p.getReplicaAcks().getTimeout()).isEqualTo(Duration.ofMillis(250));
          assertThat(p.getLocked().getOnLost()).isEqualTo(Locked.OnLost.THROW);
          assertThat(p.getMetrics().getLockNamePattern()).isEqualTo("(order):.*");
        });
  }

  @Test
  void replicaAcks_reachTheClient_whoseAcquisitionsThenWaitForReplicasThisServerLacks() {
    runner.withPropertyValues("spring.data.redis.url=" + redis.server().uri(), "relock.replica-acks.replicas=1",
        "relock.replica-acks.timeout=100ms").run(context -> {
          Relock relock = context.getBean(Relock.class);
          assertThatThrownBy(() -> relock.lock("auto-acks").acquire(Duration.ofSeconds(2)))
              .isInstanceOf(RelockException.class)
              .hasMessageContaining("replica");
        });
  }

  @Test
  void backsOff_whenTheApplicationDefinesItsOwnRelock() {
    try (Relock own = Relock.builder().uri(redis.server().uri()).keyPrefix("own:").build()) {
      runner.withBean("myRelock", Relock.class, () -> own)
          .withPropertyValues("spring.data.redis.url=redis://127.0.0.1:1")
          .run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(Relock.class);
            assertThat(context.getBean(Relock.class)).isSameAs(own);
            assertThat(context).doesNotHaveBean("relock");
          });
    }
  }

  @Test
  void absent_whenTurnedOff() {
    runner.withPropertyValues("relock.enabled=false", "spring.data.redis.url=" + redis.server().uri())
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(Relock.class));
  }

  @Test
  void absent_whenRelockIsNotOnTheClassPath() {
    runner.withClassLoader(new FilteredClassLoader(Relock.class))
        .withPropertyValues("spring.data.redis.url=" + redis.server().uri())
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(Relock.class)
            .doesNotHaveBean(LockedMethodPostProcessor.class));
  }

  @Test
  void unreachableRedis_failsStartupNamingTheAddressAndTheProperties() {
    int nobody;
    try (RedisServer stopped = RedisServer.start()) {
      nobody = stopped.port();
    }
    runner.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + nobody,
        "relock.connect-timeout=2s").run(context -> {
          assertThat(context).hasFailed();
          Throwable failure = rootRelockException(context.getStartupFailure());
          assertThat(failure).isInstanceOf(RelockException.class)
              .hasMessageContaining("127.0.0.1:" + nobody)
              .hasMessageContaining("spring.data.redis.host, spring.data.redis.port");
        });
  }

  private static Throwable rootRelockException(Throwable t) {
    Throwable found = null;
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof RelockException) {
        found = c;
        break;
      }
    }
    return found == null ? t : found;
  }

  /**
   * The sentinels' password and the primary's differ, as Spring Boot's properties allow (each raw,
   * with characters a URI must percent-encode); a wrong primary password fails startup naming the
   * sentinels without showing either password.
   */
  @Test
  void sentinel_theClientFindsThePrimaryThroughTheSentinels_eachWithItsOwnPassword() {
    String dataPassword = "data p@ss/w#rd%";
    String sentinelPassword = "watch p@ss/w#rd%";
    try (RedisSentinelGroup group = RedisSentinelGroup.builder().replicas(0).password(dataPassword)
        .sentinelPassword(sentinelPassword).start()) {
      String nodes = group.sentinels().stream().map(RelockAutoConfigurationTest::hostPort)
          .collect(Collectors.joining(","));
      runner.withPropertyValues("spring.data.redis.sentinel.master=" + group.masterName(),
          "spring.data.redis.sentinel.nodes=" + nodes, "spring.data.redis.sentinel.password=" + sentinelPassword,
          "spring.data.redis.password=" + dataPassword).run(context -> {
            try (LockLease lease = context.getBean(Relock.class).lock("auto-sentinel").acquire(Duration.ofSeconds(5))) {
              assertThat(group.primary().execute("EXISTS", "relock:{auto-sentinel}")).isEqualTo(1L);
            }
          });
      runner.withPropertyValues("spring.data.redis.sentinel.master=" + group.masterName(),
          "spring.data.redis.sentinel.nodes=" + nodes, "spring.data.redis.sentinel.password=" + sentinelPassword,
          "spring.data.redis.password=wrong p@ss/w#rd%").run(context -> {
            assertThat(context).hasFailed();
            for (Throwable t = context.getStartupFailure(); t != null; t = t.getCause()) {
              assertThat(String.valueOf(t.getMessage())).doesNotContain("p@ss").doesNotContain("p%40ss")
                  .doesNotContain("w#rd");
            }
            assertThat(context.getStartupFailure()).hasRootCauseInstanceOf(Exception.class);
            assertThat(rootMessages(context.getStartupFailure())).contains("sentinel '" + group.masterName() + "'");
          });
    }
  }

  private static String rootMessages(Throwable t) {
    StringBuilder all = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      all.append(c.getMessage()).append('\n');
    }
    return all.toString();
  }

  @Test
  void cluster_theClientLocksOnTheNodeOfTheLocksSlot() {
    try (RedisClusterGroup cluster = RedisClusterGroup.builder().primaries(3).replicasPerPrimary(0).start()) {
      String nodes = cluster.primaries().stream().limit(1).map(RelockAutoConfigurationTest::hostPort)
          .collect(Collectors.joining(","));
      runner.withPropertyValues("spring.data.redis.cluster.nodes=" + nodes).run(context -> {
        Relock relock = context.getBean(Relock.class);
        for (String name : List.of("auto-cluster-a", "auto-cluster-b", "auto-cluster-c")) {
          String key = "relock:{" + name + "}";
          try (LockLease lease = relock.lock(name).acquire(Duration.ofSeconds(5))) {
            assertThat(cluster.primaryFor(key).execute("EXISTS", key)).as(key).isEqualTo(1L);
          }
        }
      });
    }
  }

  @Test
  void redlockNodes_theClientHoldsTheLockOnAMajorityOfThem() {
    try (RedisServer a = RedisServer.start(); RedisServer b = RedisServer.start(); RedisServer c = RedisServer.start()) {
      runner.withPropertyValues("relock.redlock.nodes=" + a.uri() + "," + b.uri() + "," + c.uri(),
          "spring.data.redis.url=redis://127.0.0.1:1").run(context -> {
            try (LockLease lease = context.getBean(Relock.class).lock("auto-redlock").acquire(Duration.ofSeconds(5))) {
              long holding = List.of(a, b, c).stream()
                  .filter(s -> Long.valueOf(1).equals(s.execute("EXISTS", "relock:{auto-redlock}"))).count();
              assertThat(holding).isGreaterThanOrEqualTo(2);
            }
          });
    }
  }

  @Test
  void driverJedis_connectsThroughTheJedisDriver_thoughLettuceIsFoundFirst() {
    assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
        .noneMatch(name -> name.startsWith("relock-jedis-"));
    runner.withPropertyValues("spring.data.redis.url=" + redis.server().uri(), "relock.driver=jedis").run(context -> {
      assertThat(context).hasNotFailed();
      assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
          .anyMatch(name -> name.startsWith("relock-jedis-"));
      try (LockLease lease = context.getBean(Relock.class).lock("auto-jedis").acquire(Duration.ofSeconds(5))) {
        assertThat(redis.server().execute("EXISTS", "relock:{auto-jedis}")).isEqualTo(1L);
      }
    });
  }
}

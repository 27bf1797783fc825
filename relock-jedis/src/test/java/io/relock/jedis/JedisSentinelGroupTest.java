package io.relock.jedis;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.spi.DriverSettings;
import io.relock.spi.RedisReplyException;
import io.relock.spi.RedisTarget;
import io.relock.testkit.RedisSentinelGroup;
import io.relock.testkit.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The driver against real sentinels (the test kit's group: a primary, one replica, three
 * sentinels): it follows the primary across a failover, commands and notifications alike.
 */
class JedisSentinelGroupTest {
  private static final Duration PATIENCE = Duration.ofSeconds(60);
  private static final DriverSettings SETTINGS =
      new DriverSettings(Duration.ofMillis(1000), Duration.ofSeconds(2), "relock-test");
  private static final String INCR = "return {redis.call('INCR', KEYS[1])}";

  private RedisSentinelGroup group;
  private JedisDriver driver;
  private final AtomicInteger reconnects = new AtomicInteger();
  private final List<String> got = new CopyOnWriteArrayList<>();

  @BeforeEach
  void groupAndDriver() throws Exception {
    group = RedisSentinelGroup.start();
    driver = JedisDriver.connect(RedisTarget.sentinel(group.masterName(), group.sentinelUris()), SETTINGS);
    driver.onReconnect(reconnects::incrementAndGet);
    get(driver.subscribe("ch", got::add));
  }

  @AfterEach
  void closeAll() {
    if (driver != null) {
      driver.close();
    }
    if (group != null) {
      group.close();
    }
  }

  private static <T> T get(CompletableFuture<T> f) throws Exception {
    return f.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
  }

  private static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out waiting until " + what);
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  /** Calls as core would: again after a failure, loading the script again after NOSCRIPT. */
  private List<Object> callUntilItWorks(String key) {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    Exception last = null;
    while (System.nanoTime() - deadline < 0) {
      try {
        String sha = get(driver.scriptLoad(INCR));
        return get(driver.evalSha(sha, List.of(key), List.of()));
      } catch (Exception e) {
        last = e;
        try {
          Thread.sleep(50);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw new AssertionError(interrupted);
        }
      }
    }
    throw new AssertionError("no call succeeded within " + PATIENCE, last);
  }

  private static long subscribers(RedisServer server, String channel) {
    try {
      return (Long) ((List<?>) server.execute("PUBSUB", "NUMSUB", channel)).get(1);
    } catch (RuntimeException e) {
      return -1; // not running
    }
  }

  @Test
  void afterThePrimaryDies_commandsAndNotificationsFollowThePromotedReplica() throws Exception {
    RedisServer old = group.primary();
    assertThat(callUntilItWorks("k")).containsExactly(1L);
    assertThat(old.execute("GET", "k")).isEqualTo("1");
    assertThat(subscribers(old, "ch")).isEqualTo(1L);
    group.awaitReplicated(PATIENCE);

    RedisServer promoted = group.failover();
    assertThat(promoted).isNotSameAs(old);

    assertThat(callUntilItWorks("k")).as("the promoted replica had k = 1").containsExactly(2L);
    assertThat(promoted.execute("GET", "k")).isEqualTo("2");
    await("the pub/sub connection is on the new primary", () -> subscribers(promoted, "ch") == 1L);
    await("the reconnect listener ran", () -> reconnects.get() >= 1);
    promoted.execute("PUBLISH", "ch", "after failover");
    await("the message arrived", () -> got.contains("after failover"));
  }

  @Test
  void afterACoordinatedFailover_theDemotedPrimarysReadOnlyReplyMovesEverything() throws Exception {
    RedisServer old = group.primary();
    String sha = get(driver.scriptLoad(INCR));
    assertThat(get(driver.evalSha(sha, List.of("k"), List.of()))).containsExactly(1L);
    group.awaitReplicated(PATIENCE);

    // SENTINEL FAILOVER promotes the replica; the group then makes the old primary its replica.
    // The old primary stays up, so nothing drops the driver's connections to it.
    group.sentinels().get(0).execute("SENTINEL", "FAILOVER", group.masterName());
    RedisServer promoted = group.awaitFailover(PATIENCE);
    assertThat(promoted).isNotSameAs(old);
    await("the old primary is a replica", () -> String.valueOf(old.execute("INFO", "replication")).contains("role:slave"));

    CompletableFuture<List<Object>> onTheOldPrimary = driver.evalSha(sha, List.of("k"), List.of());
    try {
      onTheOldPrimary.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(RedisReplyException.class).hasMessageStartingWith("READONLY");
    }
    assertThat(onTheOldPrimary).as("the idle pooled connection went to the old primary").isCompletedExceptionally();

    assertThat(callUntilItWorks("k")).containsExactly(2L);
    assertThat(promoted.execute("GET", "k")).isEqualTo("2");
    await("the pub/sub connection moved to the new primary",
        () -> subscribers(promoted, "ch") == 1L && subscribers(old, "ch") == 0L);
    await("the reconnect listener ran", () -> reconnects.get() >= 1);
    promoted.execute("PUBLISH", "ch", "after failover");
    await("the message arrived", () -> got.contains("after failover"));
  }

  @Test
  void noSentinelNamesThePrimary_failsNamingTheMasterAndEverySentinelTried_withoutPasswords() throws Exception {
    int closedPort;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      closedPort = s.getLocalPort();
    }
    String refused = "redis://user:hunter2@127.0.0.1:" + closedPort;
    String realSentinel = group.sentinelUris().get(0);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> JedisDriver.connect(
            RedisTarget.sentinel("nosuchmaster", List.of(refused, realSentinel)), SETTINGS))
        .hasMessageContaining("'nosuchmaster'")
        .hasMessageContaining("redis://user:***@127.0.0.1:" + closedPort + " (")
        .hasMessageContaining(realSentinel + " (does not know a master named 'nosuchmaster')")
        .hasMessageNotContaining("hunter2");
  }
}

package io.relock.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;
import io.relock.spi.RedisReplyException;
import io.relock.spi.RedisTarget;
import io.relock.spi.ReplicatedReply;
import io.relock.testkit.RedisClusterGroup;
import io.relock.testkit.RedisServer;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import redis.clients.jedis.exceptions.JedisConnectionException;

/** The SPI on a real Redis Cluster (three primaries, one replica each): routing, redirects, sharded pub/sub. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JedisClusterDriverTest {
  private static final Duration PATIENCE = Duration.ofSeconds(30);
  private static final DriverSettings SETTINGS =
      new DriverSettings(Duration.ofMillis(500), Duration.ofSeconds(2), "relock-cluster-test");
  /** Returns the key's value after setting it, and the node's port (from INFO), to see where it ran. */
  private static final String SET_AND_WHERE = "redis.call('SET', KEYS[1], ARGV[1]) "
      + "local port = string.match(redis.call('INFO', 'server'), 'tcp_port:(%d+)') "
      + "return {redis.call('GET', KEYS[1]), tonumber(port), false}";

  private RedisClusterGroup cluster;
  private final List<RedisDriver> drivers = new ArrayList<>();

  @BeforeAll
  void startCluster() {
    cluster = RedisClusterGroup.builder().replicasPerPrimary(1).nodeTimeout(Duration.ofSeconds(5)).start();
  }

  @AfterAll
  void stopCluster() {
    cluster.close();
  }

  @BeforeEach
  void healthyAndEmpty() {
    cluster.awaitHealthy(PATIENCE);
    cluster.flushAll();
    for (RedisServer p : cluster.primaries()) {
      p.execute("SCRIPT", "FLUSH");
    }
  }

  @AfterEach
  void closeDrivers() {
    drivers.forEach(RedisDriver::close);
    drivers.clear();
  }

  private JedisClusterDriver connect() {
    JedisClusterDriver d = JedisClusterDriver.connect(RedisTarget.cluster(cluster.seedUris()), SETTINGS);
    drivers.add(d);
    return d;
  }

  private static <T> T get(CompletableFuture<T> f) throws Exception {
    return f.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
  }

  private static Throwable failureOf(CompletableFuture<?> f) {
    try {
      f.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (Exception e) {
      throw new AssertionError("the future did not fail in time", e);
    }
    throw new AssertionError("the future succeeded");
  }

  private static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out waiting until " + what);
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  /** Keys whose slots cover every primary. */
  private List<String> keysOnEveryPrimary() {
    List<String> keys = new ArrayList<>();
    Set<RedisServer> covered = new HashSet<>();
    for (int i = 0; covered.size() < cluster.primaries().size(); i++) {
      String key = "k:{" + i + "}";
      if (covered.add(cluster.primaryFor(key))) {
        keys.add(key);
      }
    }
    return keys;
  }

  /** Skips a test of sharded pub/sub on a server before 7.0, which has none. */
  private static void assumeShardedPubSub() {
    assumeTrue(RedisServer.binaryAtLeast(7, 0),
        "sharded pub/sub needs Redis 7.0+; this redis-server is " + RedisServer.binaryVersion());
  }

  @Test
  void aScriptRunsOnThePrimaryOfItsKeysSlot_andScriptLoadReachesEveryPrimary() throws Exception {
    JedisClusterDriver driver = connect();
    assertThat(driver.isClustered()).isTrue();
    assertThat(driver.hasShardedPubSub()).as("sharded pub/sub on Redis " + RedisServer.binaryVersion())
        .isEqualTo(RedisServer.binaryAtLeast(7, 0));
    assertThat(driver.supportsReplicaAcks()).isTrue();
    String sha = get(driver.scriptLoad(SET_AND_WHERE));
    for (RedisServer p : cluster.primaries()) {
      assertThat(p.execute("SCRIPT", "EXISTS", sha)).as("loaded on " + p).isEqualTo(List.of(1L));
    }
    for (String key : keysOnEveryPrimary()) {
      List<Object> reply = get(driver.evalSha(sha, List.of(key), List.of("v-" + key)));
      assertThat(reply).containsExactly("v-" + key, (long) cluster.primaryFor(key).port(), null);
    }
  }

  @Test
  void errorReplies_areRedisReplyExceptions() throws Exception {
    JedisClusterDriver driver = connect();
    Throwable noScript = failureOf(driver.evalSha("0123456789012345678901234567890123456789", List.of("a"), List.of()));
    assertThat(noScript).isInstanceOf(RedisReplyException.class);
    assertThat(((RedisReplyException) noScript).isNoScript()).isTrue();
    String sha = get(driver.scriptLoad("return redis.call('INCR', KEYS[1])"));
    get(driver.evalSha(get(driver.scriptLoad("redis.call('SET', KEYS[1], 'x') return {}")), List.of("w"), List.of()));
    assertThat(failureOf(driver.evalSha(sha, List.of("w"), List.of()))).isInstanceOf(RedisReplyException.class)
        .hasMessageContaining("not an integer");
  }

  @Test
  void aMovedSlot_isFollowed() throws Exception {
    JedisClusterDriver driver = connect();
    String sha = get(driver.scriptLoad(SET_AND_WHERE));
    String key = "moving:{m}";
    get(driver.evalSha(sha, List.of(key), List.of("1")));
    RedisServer from = cluster.primaryFor(key);
    RedisServer to = cluster.primaries().stream().filter(p -> p != from).findFirst().orElseThrow();
    to.execute("SCRIPT", "LOAD", SET_AND_WHERE);
    cluster.migrateSlot(RedisClusterGroup.slotOf(key), to);

    List<Object> reply = get(driver.evalSha(sha, List.of(key), List.of("2")));
    assertThat(reply).containsExactly("2", (long) to.port(), null);
    // The MOVED refreshed the slot map: the next call goes straight to the new owner.
    long movedBefore = errorStat(from, "MOVED");
    get(driver.evalSha(sha, List.of(key), List.of("3")));
    assertThat(errorStat(from, "MOVED")).isEqualTo(movedBefore);
  }

  /** Error replies of one kind a node has sent (INFO errorstats, Redis 6.2+). */
  private static long errorStat(RedisServer node, String kind) {
    for (String line : String.valueOf(node.execute("INFO", "errorstats")).split("\r?\n")) {
      if (line.startsWith("errorstat_" + kind + ":count=")) {
        return Long.parseLong(line.substring(("errorstat_" + kind + ":count=").length()).trim());
      }
    }
    return 0;
  }

  @Test
  void aSlotBeingMigrated_sendsANewKeyToTheImportingNodeWithAsking() throws Exception {
    JedisClusterDriver driver = connect();
    String sha = get(driver.scriptLoad(SET_AND_WHERE));
    String key = "asked:{a}";
    int slot = RedisClusterGroup.slotOf(key);
    RedisServer from = cluster.primaryFor(key);
    RedisServer to = cluster.primaries().stream().filter(p -> p != from).findFirst().orElseThrow();
    to.execute("SCRIPT", "LOAD", SET_AND_WHERE);
    String fromId = (String) from.execute("CLUSTER", "MYID");
    String toId = (String) to.execute("CLUSTER", "MYID");
    to.execute("CLUSTER", "SETSLOT", Integer.toString(slot), "IMPORTING", fromId);
    from.execute("CLUSTER", "SETSLOT", Integer.toString(slot), "MIGRATING", toId);
    try {
      List<Object> reply = get(driver.evalSha(sha, List.of(key), List.of("new")));
      assertThat(reply).as("a key the source lacks is created on the importing node").containsExactly("new",
          (long) to.port(), null);
    } finally {
      cluster.migrateSlot(slot, to); // completes the migration (the key is there already)...
      cluster.migrateSlot(slot, from); // ...and puts the slot back, for the other tests
    }
  }

  @Test
  void replicatedCalls_waitForTheReplicaOfTheSlotsPrimary() throws Exception {
    JedisClusterDriver driver = connect();
    String sha = get(driver.scriptLoad(SET_AND_WHERE));
    for (String key : keysOnEveryPrimary()) {
      ReplicatedReply r = get(driver.evalShaReplicated(sha, List.of(key), List.of("x"), 1, Duration.ofSeconds(2)));
      assertThat(r.acknowledged()).isEqualTo(1);
      assertThat(cluster.replicaOf(cluster.primaryFor(key)).execute("DBSIZE")).as("the replica has the key")
          .isEqualTo(1L);
    }
  }

  @Test
  void shardedChannels_areSubscribedOnTheirSlotsPrimary_oneSubscriberPerNode() throws Exception {
    assumeShardedPubSub();
    JedisClusterDriver driver = connect();
    List<String> heard = new CopyOnWriteArrayList<>();
    List<String> channels = keysOnEveryPrimary().stream().map(k -> k + ":n").toList();
    for (String ch : channels) {
      get(driver.subscribeSharded(ch, heard::add));
    }
    String second = channels.get(0).replace("}:n", "}:n2"); // same slot, same node as the first
    get(driver.subscribeSharded(second, heard::add));
    assertThat(driver.shardSubscriberNodes()).hasSize(cluster.primaries().size());
    for (String ch : channels) {
      RedisServer owner = cluster.primaryFor(ch);
      assertThat(shardSubscribers(owner, ch)).isEqualTo(1);
      owner.execute("SPUBLISH", ch, "to " + ch);
    }
    cluster.primaryFor(second).execute("SPUBLISH", second, "to second");
    await("every message arrived", () -> heard.size() == channels.size() + 1);
    assertThat(heard).containsAll(channels.stream().map(ch -> "to " + ch).toList()).contains("to second");

    get(driver.unsubscribeSharded(channels.get(0)));
    RedisServer owner = cluster.primaryFor(channels.get(0));
    await("unsubscribed", () -> shardSubscribers(owner, channels.get(0)) == 0);
    assertThat(shardSubscribers(owner, second)).as("the other channel on that node stays").isEqualTo(1);
    owner.execute("SPUBLISH", channels.get(0), "too late");
    owner.execute("SPUBLISH", second, "still heard");
    await("the second channel still hears", () -> heard.contains("still heard"));
    assertThat(heard).doesNotContain("too late");
  }

  private static long shardSubscribers(RedisServer node, String channel) {
    return (Long) ((List<?>) node.execute("PUBSUB", "SHARDNUMSUB", channel)).get(1);
  }

  @Test
  void aShardedChannel_followsItsSlotToItsNewNode_andTellsTheReconnectListener() throws Exception {
    assumeShardedPubSub();
    JedisClusterDriver driver = connect();
    AtomicInteger reconnects = new AtomicInteger();
    driver.onReconnect(reconnects::incrementAndGet);
    List<String> heard = new CopyOnWriteArrayList<>();
    String ch = "follow:{f}:n";
    get(driver.subscribeSharded(ch, heard::add));
    RedisServer from = cluster.primaryFor(ch);
    RedisServer to = cluster.primaries().stream().filter(p -> p != from).findFirst().orElseThrow();

    cluster.migrateSlot(RedisClusterGroup.slotOf(ch), to);

    await("subscribed on the new node", () -> shardSubscribers(to, ch) == 1);
    await("the reconnect listener ran", () -> reconnects.get() > 0);
    to.execute("SPUBLISH", ch, "after the move");
    await("heard on the new node", () -> heard.contains("after the move"));
    cluster.migrateSlot(RedisClusterGroup.slotOf(ch), from); // as it was, for the other tests
    await("back on the old node", () -> shardSubscribers(from, ch) == 1);
  }

  @Test
  void aPrimaryThatStoppedAnswering_isReportedReconnectedOnceItAnswersAgain() throws Exception {
    JedisClusterDriver driver = connect();
    AtomicInteger reconnects = new AtomicInteger();
    driver.onReconnect(reconnects::incrementAndGet);
    String sha = get(driver.scriptLoad(SET_AND_WHERE));
    String key = "paused:{p}";
    get(driver.evalSha(sha, List.of(key), List.of("1")));
    RedisServer owner = cluster.primaryFor(key);
    owner.pause();
    try {
      assertThat(failureOf(driver.evalSha(sha, List.of(key), List.of("2"))))
          .as("a timeout: possibly run, so neither a reply nor not-sent").isInstanceOf(JedisConnectionException.class);
    } finally {
      owner.resume();
    }
    assertThat(reconnects.get()).isZero();
    await("a call succeeds again", () -> {
      try {
        driver.evalSha(sha, List.of(key), List.of("3")).get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
        return true;
      } catch (Exception e) {
        return false;
      }
    });
    assertThat(reconnects.get()).isEqualTo(1);
  }

  @Test
  void plainSubscribe_hearsPublishesMadeOnAnyNode() throws Exception {
    JedisClusterDriver driver = connect();
    List<String> heard = new CopyOnWriteArrayList<>();
    get(driver.subscribe("client:plain", heard::add));
    for (RedisServer p : cluster.primaries()) {
      p.execute("PUBLISH", "client:plain", "from " + p.port());
    }
    await("every node's publish arrived", () -> heard.size() == cluster.primaries().size());
  }

  @Test
  void theFactory_connectsClusterTargetsWithThisDriver() {
    RedisDriver d = new JedisDriverFactory().connect(RedisTarget.cluster(cluster.seedUris()), SETTINGS);
    drivers.add(d);
    assertThat(d).isInstanceOf(JedisClusterDriver.class);
  }

  @Test
  void unreachableSeeds_failWithTheirNames_passwordsHidden() throws Exception {
    int port1;
    int port2;
    try (ServerSocket a = new ServerSocket(0); ServerSocket b = new ServerSocket(0)) {
      port1 = a.getLocalPort();
      port2 = b.getLocalPort();
    }
    RedisTarget target = RedisTarget.cluster(List.of("redis://user:s3cret@127.0.0.1:" + port1,
        "redis://:s3cret@127.0.0.1:" + port2));
    assertThatThrownBy(() -> JedisClusterDriver.connect(target, SETTINGS))
        .isInstanceOf(JedisConnectionException.class)
        .hasMessageContaining("127.0.0.1:" + port1).hasMessageContaining("127.0.0.1:" + port2)
        .hasMessageContaining("user:***@")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("s3cret"));
  }

  @Test
  void close_failsLaterCalls_andIsIdempotent() {
    JedisClusterDriver driver = connect();
    driver.close();
    driver.close();
    assertThat(failureOf(driver.evalSha("x", List.of("a"), List.of()))).isInstanceOf(IllegalStateException.class);
    assertThat(failureOf(driver.subscribeSharded("c:{x}", m -> {}))).isInstanceOf(IllegalStateException.class);
  }
}

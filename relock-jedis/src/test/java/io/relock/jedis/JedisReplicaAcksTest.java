package io.relock.jedis;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.spi.CommandNotSentException;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisReplyException;
import io.relock.spi.ReplicatedReply;
import io.relock.testkit.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;

/** {@code evalShaReplicated}: EVALSHA then WAIT on one connection, against a primary with one real replica. */
class JedisReplicaAcksTest {
  private static final Duration PATIENCE = Duration.ofSeconds(30);
  private static final DriverSettings SETTINGS =
      new DriverSettings(Duration.ofMillis(500), Duration.ofSeconds(2), "relock-test");
  private static final String WRITE = "redis.call('SET', KEYS[1], ARGV[1]) return {ARGV[1], 7}";

  private RedisServer primary;
  private RedisServer replica;

  @BeforeEach
  void primaryWithOneReplicaInSync() {
    primary = RedisServer.start();
    replica = RedisServer.start();
    replicate(replica, primary);
  }

  @AfterEach
  void stopServers() {
    if (replica != null) {
      replica.close();
    }
    if (primary != null) {
      primary.close();
    }
  }

  /** Makes {@code replica} a replica of {@code primary} and waits until it is in sync. */
  static void replicate(RedisServer replica, RedisServer primary) {
    primary.execute("CONFIG", "SET", "repl-diskless-sync-delay", "0"); // not the default 5 s
    replica.execute("REPLICAOF", primary.host(), Integer.toString(primary.port()));
    awaitLinkUp(replica);
  }

  static void awaitLinkUp(RedisServer replica) {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (!String.valueOf(replica.execute("INFO", "replication")).contains("master_link_status:up")) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("the replica's link to its primary did not come up within " + PATIENCE
            + ":\n" + replica.execute("INFO", "replication"));
      }
      pause(20);
    }
  }

  /** Waits until {@code replica} has processed everything {@code primary} has written so far. */
  static void awaitInSync(RedisServer replica, RedisServer primary) {
    long target = offset(primary, "master_repl_offset");
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (offset(replica, "slave_repl_offset") < target) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("the replica did not reach offset " + target + " within " + PATIENCE
            + ":\n" + replica.execute("INFO", "replication"));
      }
      pause(10);
    }
  }

  private static long offset(RedisServer server, String field) {
    String info = String.valueOf(server.execute("INFO", "replication"));
    return info.lines().filter(l -> l.startsWith(field + ":")).mapToLong(l -> Long.parseLong(l.substring(field.length() + 1).trim()))
        .findFirst().orElse(-1);
  }

  private static void pause(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
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

  @Test
  void supportsReplicaAcks() {
    try (JedisDriver driver = JedisDriver.connect(primary.uri(), SETTINGS)) {
      assertThat(driver.supportsReplicaAcks()).isTrue();
    }
  }

  @Test
  void withOneReplicaInSync_givesTheScriptsReplyAndOneAcknowledgement() throws Exception {
    try (JedisDriver driver = JedisDriver.connect(primary.uri(), SETTINGS)) {
      String sha = get(driver.scriptLoad(WRITE));
      ReplicatedReply r = get(driver.evalShaReplicated(sha, List.of("k"), List.of("v1"), 1, Duration.ofSeconds(5)));
      assertThat(r.reply()).containsExactly("v1", 7L);
      assertThat(r.acknowledged()).isEqualTo(1L);
      assertThat(replica.execute("GET", "k")).as("acknowledged, so already on the replica").isEqualTo("v1");
    }
  }

  @Test
  void withTheReplicaStopped_waitTimesOut_andAcknowledgesNone_evenBeyondTheSocketTimeout() throws Exception {
    // One connection with a 500 ms socket timeout, and a WAIT of 1.5 s: the driver lengthens the
    // socket timeout for the WAIT, and puts it back afterwards.
    HostAndPort endpoint = new HostAndPort(primary.host(), primary.port());
    try (JedisDriver driver = JedisDriver.connect(endpoint,
        DefaultJedisClientConfig.builder().socketTimeoutMillis(500).build(), 1)) {
      String sha = get(driver.scriptLoad(WRITE));
      replica.stop();
      long start = System.nanoTime();
      ReplicatedReply r = get(driver.evalShaReplicated(sha, List.of("k"), List.of("v2"), 1, Duration.ofMillis(1500)));
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      assertThat(r.reply()).containsExactly("v2", 7L);
      assertThat(r.acknowledged()).isZero();
      assertThat(took).as("WAIT waited out its timeout").isGreaterThanOrEqualTo(Duration.ofMillis(1400));
      assertThat(primary.execute("GET", "k")).isEqualTo("v2");

      // The same connection has its 500 ms socket timeout again.
      primary.pause();
      CompletableFuture<List<Object>> call;
      try {
        start = System.nanoTime();
        call = driver.evalSha(sha, List.of("k"), List.of("v3"));
        assertThat(failureOf(call)).isNotInstanceOf(RedisReplyException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("failed by the 500 ms socket timeout")
            .isLessThan(Duration.ofMillis(1400));
      } finally {
        primary.resume();
      }
    }
  }

  @Test
  void aPausedReplica_acknowledgesNoneEither() throws Exception {
    try (JedisDriver driver = JedisDriver.connect(primary.uri(), SETTINGS)) {
      String sha = get(driver.scriptLoad(WRITE));
      replica.pause();
      try {
        ReplicatedReply r = get(driver.evalShaReplicated(sha, List.of("k"), List.of("v"), 1, Duration.ofMillis(300)));
        assertThat(r.reply()).containsExactly("v", 7L);
        assertThat(r.acknowledged()).isZero();
      } finally {
        replica.resume();
      }
    }
  }

  @Test
  void errorReplyOfTheScript_failsWithRedisReplyException_withoutWaiting() throws Exception {
    try (JedisDriver driver = JedisDriver.connect(primary.uri(), SETTINGS)) {
      primary.execute("SET", "a-string", "x");
      String sha = get(driver.scriptLoad("return {redis.call('HGET', KEYS[1], 'f')}"));
      replica.stop(); // a WAIT would now take its full 10 s
      long start = System.nanoTime();
      Throwable t = failureOf(driver.evalShaReplicated(sha, List.of("a-string"), List.of(), 1, Duration.ofSeconds(10)));
      assertThat(t).isInstanceOf(RedisReplyException.class).hasMessageContaining("WRONGTYPE");
      assertThat(((RedisReplyException) t).isNoScript()).isFalse();
      assertThat(Duration.ofNanos(System.nanoTime() - start)).as("no WAIT after a failed script")
          .isLessThan(Duration.ofSeconds(5));

      Throwable noScript = failureOf(driver.evalShaReplicated("0".repeat(40), List.of(), List.of(), 1,
          Duration.ofSeconds(10)));
      assertThat(noScript).isInstanceOf(RedisReplyException.class);
      assertThat(((RedisReplyException) noScript).isNoScript()).isTrue();

      // The connection stays usable.
      primary.execute("HSET", "a-hash", "f", "v");
      assertThat(get(driver.evalShaReplicated(sha, List.of("a-hash"), List.of(), 0, Duration.ofSeconds(1))))
          .isEqualTo(new ReplicatedReply(List.of("v"), 0L));
    }
  }

  @Test
  void onAReplica_theRefusedWaitIsNotMistakenForAReplyToTheScript() throws Exception {
    try (JedisDriver driver = JedisDriver.connect(replica.uri(), SETTINGS)) {
      String sha = get(driver.scriptLoad("return {1}")); // reads only: runs on a replica
      Throwable t = failureOf(driver.evalShaReplicated(sha, List.of(), List.of(), 1, Duration.ofSeconds(1)));
      // The script ran, so the failure must not read as the script's error reply (core would take
      // that to mean it did not run).
      assertThat(t).isNotInstanceOf(RedisReplyException.class)
          .hasMessageContaining("WAIT failed after the script ran").hasMessageContaining("ERR WAIT");
      String write = get(driver.scriptLoad(WRITE));
      assertThat(failureOf(driver.evalShaReplicated(write, List.of("k"), List.of("v"), 1, Duration.ofSeconds(1))))
          .isInstanceOf(RedisReplyException.class).hasMessageStartingWith("READONLY");
    }
  }

  @Test
  void noConnectionToBeHad_failsWithCommandNotSent() throws Exception {
    try (JedisDriver driver = JedisDriver.connect(primary.uri(), SETTINGS)) {
      String sha = get(driver.scriptLoad(WRITE));
      primary.kill();
      // The first call may meet the idle connection the kill broke; the ones after open new ones.
      failureOf(driver.evalShaReplicated(sha, List.of("k"), List.of("v"), 1, Duration.ofSeconds(1)));
      Throwable t = failureOf(driver.evalShaReplicated(sha, List.of("k"), List.of("v"), 1, Duration.ofSeconds(1)));
      assertThat(t).isInstanceOf(CommandNotSentException.class).isNotInstanceOf(RedisReplyException.class);
    }
  }
}

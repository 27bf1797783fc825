package io.relock.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.spi.DriverSettings;
import io.relock.spi.RedisReplyException;
import io.relock.testkit.RedisExtension;
import io.relock.testkit.RedisServer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;

/** The SPI as relock-core sees it, on Jedis, against a real redis-server. */
class JedisDriverTest {
  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  private static final Duration PATIENCE = Duration.ofSeconds(20);
  private static final DriverSettings SETTINGS =
      new DriverSettings(Duration.ofMillis(500), Duration.ofSeconds(2), "relock-test");

  private RedisServer server;

  @BeforeEach
  void cleanSlate() {
    server = redis.server();
    if (!server.isRunning()) {
      server.restart();
    }
    server.execute("FLUSHALL");
    server.execute("SCRIPT", "FLUSH");
  }

  private JedisDriver connect() {
    return JedisDriver.connect(server.uri(), SETTINGS);
  }

  private static String load(JedisDriver driver, String script) throws Exception {
    return driver.scriptLoad(script).get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
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

  @Test
  void scriptLoad_returnsTheSha1OfTheScript() throws Exception {
    String script = "return {1}";
    String expected = HexFormat.of().formatHex(
        MessageDigest.getInstance("SHA-1").digest(script.getBytes(StandardCharsets.UTF_8)));
    try (JedisDriver driver = connect()) {
      assertThat(load(driver, script)).isEqualTo(expected);
    }
  }

  @Test
  void evalSha_repliesWithLongsUtf8StringsNullsAndNestedLists() throws Exception {
    try (JedisDriver driver = connect()) {
      String sha = load(driver,
          "return {1, 'two', false, {3, KEYS[1], {}}, redis.status_reply('OK'), ARGV[1], -7}");
      List<Object> reply = driver.evalSha(sha, List.of("ключ"), List.of("é→✓")).get();
      assertThat(reply).containsExactly(1L, "two", null, List.of(3L, "ключ", List.of()), "OK", "é→✓", -7L);
    }
  }

  @Test
  void evalSha_ofAScriptReturningAScalar_givesAOneElementList() throws Exception {
    try (JedisDriver driver = connect()) {
      assertThat(driver.evalSha(load(driver, "return 42"), List.of(), List.of()).get()).containsExactly(42L);
      assertThat(driver.evalSha(load(driver, "return nil"), List.of(), List.of()).get()).containsExactly((Object) null);
    }
  }

  @Test
  void unknownSha_failsWithANoScriptReply() {
    try (JedisDriver driver = connect()) {
      Throwable t = failureOf(driver.evalSha("0".repeat(40), List.of(), List.of()));
      assertThat(t).isInstanceOf(RedisReplyException.class).hasMessageStartingWith("NOSCRIPT");
      assertThat(((RedisReplyException) t).isNoScript()).isTrue();
    }
  }

  @Test
  void errorReplyOfTheScript_failsWithRedisReplyException_andTheConnectionStaysUsable() throws Exception {
    try (JedisDriver driver = connect()) {
      server.execute("SET", "a-string", "x");
      String sha = load(driver, "return {redis.call('HGET', KEYS[1], 'f')}");
      Throwable t = failureOf(driver.evalSha(sha, List.of("a-string"), List.of()));
      assertThat(t).isInstanceOf(RedisReplyException.class).hasMessageContaining("WRONGTYPE");
      assertThat(((RedisReplyException) t).isNoScript()).isFalse();
      server.execute("HSET", "a-hash", "f", "v");
      assertThat(driver.evalSha(sha, List.of("a-hash"), List.of()).get()).containsExactly("v");
    }
  }

  @Test
  void calls_returnAtOnceWhileRedisIsPaused_andFailWithinTheSocketTimeout_withoutAReplyException() throws Exception {
    try (JedisDriver driver = connect()) {
      String sha = load(driver, "return {1}");
      server.pause();
      List<CompletableFuture<List<Object>>> calls = new ArrayList<>();
      try {
        long start = System.nanoTime();
        for (int i = 0; i < 20; i++) {
          calls.add(driver.evalSha(sha, List.of(), List.of()));
        }
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("20 calls handed over").isLessThan(Duration.ofMillis(200));
        assertThat(calls).noneMatch(CompletableFuture::isDone);
        Throwable t = failureOf(calls.get(0));
        assertThat(t).isNotInstanceOf(RedisReplyException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("failed by the 500 ms socket timeout (generous bound)")
            .isLessThan(Duration.ofSeconds(5));
      } finally {
        server.resume();
      }
      await("all calls finished", () -> calls.stream().allMatch(CompletableFuture::isDone));
      assertThat(driver.evalSha(sha, List.of(), List.of()).get()).containsExactly(1L);
    }
  }

  @Test
  void callsAfterRedisDied_failWithoutAReplyException_andWorkAgainOnceItIsBack() throws Exception {
    try (JedisDriver driver = connect()) {
      String sha = load(driver, "return {1}");
      // Calls in parallel fill the pool with idle connections, all of which the kill breaks.
      server.pause();
      List<CompletableFuture<List<Object>>> parallel = new ArrayList<>();
      try {
        for (int i = 0; i < JedisDriver.DEFAULT_CONNECTIONS; i++) {
          parallel.add(driver.evalSha(sha, List.of(), List.of()));
        }
        Thread.sleep(100);
      } finally {
        server.resume();
      }
      parallel.forEach(CompletableFuture::join);
      server.kill();
      assertThat(failureOf(driver.evalSha(sha, List.of(), List.of()))).isNotInstanceOf(RedisReplyException.class);
      server.restart();
      // The restart flushed the script cache too: a call that reaches Redis gets NOSCRIPT.
      Throwable t = failureOf(driver.evalSha(sha, List.of(), List.of()));
      assertThat(t).as("the first call after the restart, on a fresh connection, not a dead idle one")
          .isInstanceOf(RedisReplyException.class);
      assertThat(((RedisReplyException) t).isNoScript()).isTrue();
    }
  }

  @Test
  void replies_completeOnTheDriversDaemonWorkerThreads() throws Exception {
    try (JedisDriver driver = connect()) {
      String sha = load(driver, "return {1}");
      server.pause();
      CompletableFuture<Thread> thread;
      try {
        thread = driver.evalSha(sha, List.of(), List.of()).thenApply(r -> Thread.currentThread());
      } finally {
        server.resume();
      }
      Thread t = thread.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
      assertThat(t.getName()).matches("relock-jedis-\\d+-worker-\\d+");
      assertThat(t.isDaemon()).isTrue();
    }
  }

  @Test
  void aCallWhoseFutureCompletedWhileQueued_isNeverSent() throws Exception {
    HostAndPort endpoint = new HostAndPort(server.host(), server.port());
    try (JedisDriver driver = JedisDriver.connect(endpoint, DefaultJedisClientConfig.builder().build(), 1)) {
      String sha = load(driver, "redis.call('SET', KEYS[1], '1') return {1}");
      server.pause();
      CompletableFuture<List<Object>> running;
      CompletableFuture<List<Object>> queued;
      try {
        running = driver.evalSha(sha, List.of("ran"), List.of());
        queued = driver.evalSha(sha, List.of("abandoned"), List.of());
        queued.cancel(false);
      } finally {
        server.resume();
      }
      assertThat(running.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).containsExactly(1L);
      assertThat(driver.evalSha(sha, List.of("after"), List.of()).get()).containsExactly(1L);
      assertThat(server.execute("EXISTS", "ran")).isEqualTo(1L);
      assertThat(server.execute("EXISTS", "abandoned")).isEqualTo(0L);
    }
  }

  @Test
  void connect_withNoConnections_isRejectedNamingTheValue() {
    HostAndPort endpoint = new HostAndPort(server.host(), server.port());
    assertThatThrownBy(() -> JedisDriver.connect(endpoint, DefaultJedisClientConfig.builder().build(), 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0");
  }

  @Test
  void subscribe_completesOnceRedisConfirms_andDeliversOnlyThatChannel_onADaemonThread() throws Exception {
    try (JedisDriver driver = connect()) {
      List<String> got = new CopyOnWriteArrayList<>();
      AtomicReference<Thread> on = new AtomicReference<>();
      driver.subscribe("relock:client:1", m -> {
        on.set(Thread.currentThread());
        got.add(m);
      }).get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
      assertThat(server.execute("PUBLISH", "relock:client:1", "grant 1")).as("subscribers when the future completed").isEqualTo(1L);
      assertThat(server.execute("PUBLISH", "relock:client:2", "not ours")).isEqualTo(0L);
      await("the message arrived", () -> got.size() == 1);
      assertThat(got).containsExactly("grant 1");
      assertThat(on.get().getName()).matches("relock-jedis-\\d+-pubsub");
      assertThat(on.get().isDaemon()).isTrue();
      assertThatThrownBy(() -> driver.subscribe("again", m -> {})).isInstanceOf(IllegalStateException.class);
    }
  }

  @Test
  void throwingListener_isContained_andLaterMessagesStillArrive() throws Exception {
    try (JedisDriver driver = connect()) {
      List<String> got = new CopyOnWriteArrayList<>();
      driver.subscribe("ch", m -> {
        got.add(m);
        if (m.equals("bad")) {
          throw new IllegalStateException("listener bug");
        }
      }).get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
      server.execute("PUBLISH", "ch", "bad");
      server.execute("PUBLISH", "ch", "good");
      await("both messages arrived", () -> got.size() == 2);
      assertThat(got).containsExactly("bad", "good");
    }
  }

  @Test
  void droppedPubSubConnection_isReconnectedAndSubscribedAgain() throws Exception {
    try (JedisDriver driver = connect()) {
      List<String> got = new CopyOnWriteArrayList<>();
      driver.subscribe("ch", got::add).get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
      assertThat(server.execute("CLIENT", "KILL", "TYPE", "pubsub")).isEqualTo(1L);
      await("subscribed again", () -> server.execute("PUBLISH", "ch", "after kill").equals(1L));
      await("the message arrived", () -> got.contains("after kill"));
    }
  }

  @Test
  void redisRestart_isFollowedByANewSubscription() throws Exception {
    try (JedisDriver driver = connect()) {
      List<String> got = new CopyOnWriteArrayList<>();
      driver.subscribe("ch", got::add).get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
      server.kill();
      Thread.sleep(300); // a few failed reconnects, so the backoff grows
      server.restart();
      await("subscribed again", () -> server.execute("PUBLISH", "ch", "after restart").equals(1L));
      await("the message arrived", () -> got.contains("after restart"));
    }
  }

  @Test
  void subscribe_toAServerThatVanished_failsTheFuture() {
    JedisDriver driver = connect();
    try {
      server.kill();
      Throwable t = failureOf(driver.subscribe("ch", m -> {}));
      assertThat(t).isNotInstanceOf(RedisReplyException.class);
    } finally {
      driver.close();
    }
  }

  @Test
  void close_unsubscribesAndStopsThePubSubThread() throws Exception {
    JedisDriver driver = connect();
    AtomicReference<Thread> pubsub = new AtomicReference<>();
    driver.subscribe("ch", m -> pubsub.set(Thread.currentThread())).get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    server.execute("PUBLISH", "ch", "hello");
    await("the message arrived", () -> pubsub.get() != null);
    long start = System.nanoTime();
    driver.close();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).as("close (generous bound)").isLessThan(Duration.ofSeconds(1));
    assertThat(pubsub.get().isAlive()).isFalse();
    assertThat(server.execute("PUBLISH", "ch", "anyone?")).isEqualTo(0L);
    driver.close();
    assertThat(failureOf(driver.evalSha("0".repeat(40), List.of(), List.of()))).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void close_whileRedisIsPaused_isPrompt_andFailsQueuedCalls() throws Exception {
    JedisDriver driver = connect();
    AtomicReference<Thread> pubsub = new AtomicReference<>();
    driver.subscribe("ch", m -> pubsub.set(Thread.currentThread())).get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    server.execute("PUBLISH", "ch", "hello");
    await("the message arrived", () -> pubsub.get() != null);
    String sha = load(driver, "return {1}");
    server.pause();
    List<CompletableFuture<List<Object>>> calls = new ArrayList<>();
    try {
      for (int i = 0; i < 50; i++) {
        calls.add(driver.evalSha(sha, List.of(), List.of()));
      }
      long start = System.nanoTime();
      driver.close();
      assertThat(Duration.ofNanos(System.nanoTime() - start)).as("close (generous bound)").isLessThan(Duration.ofSeconds(3));
      assertThat(pubsub.get().isAlive()).isFalse();
      assertThat(calls.stream().filter(CompletableFuture::isCompletedExceptionally).count())
          .as("queued calls failed at once; the %d in flight finish on their own", JedisDriver.DEFAULT_CONNECTIONS)
          .isGreaterThanOrEqualTo(50 - JedisDriver.DEFAULT_CONNECTIONS);
      assertThat(failureOf(calls.get(49))).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    } finally {
      server.resume();
    }
    await("the calls in flight finished too", () -> calls.stream().allMatch(CompletableFuture::isDone));
  }

  @Test
  void nothingListening_failsAtConnect_withAConnectionError() throws Exception {
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      port = s.getLocalPort();
    }
    String uri = "redis://user:hunter2@127.0.0.1:" + port;
    assertThatThrownBy(() -> JedisDriver.connect(uri, SETTINGS))
        .isNotInstanceOf(RedisReplyException.class)
        .hasMessageContaining("127.0.0.1:" + port).hasMessageContaining("refused").hasMessageNotContaining("hunter2");
  }
}

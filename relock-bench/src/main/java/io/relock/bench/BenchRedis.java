package io.relock.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.relock.testkit.RedisServer;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Redis every implementation runs against: the one {@code REDIS_URL} names, or a
 * redis-server the bench starts on a free loopback port and stops at the end. The harness reads
 * its counters through a connection of its own.
 */
final class BenchRedis implements AutoCloseable {

  private static final String SLOWLOG_SLOWER_THAN = "slowlog-log-slower-than";
  private static final String SLOWLOG_MAX_LEN = "slowlog-max-len";

  private final RedisServer server;
  private final String uri;
  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final RedisCommands<String, String> admin;

  private BenchRedis(RedisServer server, String uri) {
    this.server = server;
    this.uri = uri;
    this.client = RedisClient.create(uri);
    this.connection = client.connect();
    this.admin = connection.sync();
  }

  /** Connects to {@code redisUrl}, or starts a server when it is null or blank. */
  static BenchRedis open(String redisUrl) {
    if (redisUrl != null && !redisUrl.isBlank()) {
      return new BenchRedis(null, redisUrl);
    }
    RedisServer server = RedisServer.start();
    try {
      return new BenchRedis(server, server.uri());
    } catch (RuntimeException e) {
      server.close();
      throw e;
    }
  }

  String uri() {
    return uri;
  }

  /** Whether the bench started this server (rather than using {@code REDIS_URL}). */
  boolean started() {
    return server != null;
  }

  /** Process id of the server the bench started; 0 when it runs elsewhere. */
  long pid() {
    return server == null ? 0 : server.pid();
  }

  /** The counters now. */
  RedisInfo info() {
    return RedisInfo.parse(admin.info("all"));
  }

  String version() {
    return RedisInfo.parse(admin.info("server")).field("redis_version");
  }

  /** Empties every database, so each run starts from no keys. */
  void flushAll() {
    admin.flushall();
  }

  long dbSize() {
    return admin.dbsize();
  }

  /**
   * The longest single command Redis runs during the next {@code window}, read from its
   * {@code SLOWLOG}: logging every command over {@link StallSample#THRESHOLD_MICROS}, from an
   * emptied log, then put back as it was. The caller must not have {@code MONITOR} attached:
   * Redis feeds every command a script runs to the monitors while the script runs, which makes
   * scripts slower than they are. Not measured (rather than failing the run) when the server
   * refuses {@code CONFIG} or {@code SLOWLOG}, as a managed or locked-down {@code REDIS_URL} may.
   */
  StallSample worstCommand(Duration window) {
    double seconds = window.toMillis() / 1000.0;
    Map<String, String> saved = new LinkedHashMap<>();
    try {
      // One parameter per CONFIG GET: Redis 6 takes only one.
      for (String parameter : List.of(SLOWLOG_SLOWER_THAN, SLOWLOG_MAX_LEN)) {
        String value = admin.configGet(parameter).get(parameter);
        if (value == null) {
          return StallSample.notMeasured(seconds, "CONFIG GET " + parameter + " returned nothing");
        }
        saved.put(parameter, value);
      }
    } catch (RedisException e) {
      return StallSample.notMeasured(seconds, "CONFIG GET refused: " + String.valueOf(e.getMessage()).strip());
    }
    try {
      admin.configSet(SLOWLOG_SLOWER_THAN, String.valueOf(StallSample.THRESHOLD_MICROS));
      admin.configSet(SLOWLOG_MAX_LEN, String.valueOf(StallSample.MAX_ENTRIES));
      admin.slowlogReset();
      long began = System.nanoTime();
      LoadPhase.sleepUntil(began + window.toNanos());
      List<Object> entries = admin.slowlogGet(StallSample.MAX_ENTRIES);
      return StallSample.fromSlowlog(entries, (System.nanoTime() - began) / 1e9);
    } catch (RedisException e) {
      return StallSample.notMeasured(seconds, "CONFIG SET or SLOWLOG refused: " + String.valueOf(e.getMessage()).strip());
    } finally {
      restore(saved);
    }
  }

  /**
   * Puts the slowlog settings back. A failure here is not swallowed: it would leave a user's
   * server logging far more than it was set to, which they must hear about.
   */
  private void restore(Map<String, String> saved) {
    try {
      saved.forEach(admin::configSet);
    } catch (RedisException e) {
      throw new IllegalStateException("could not restore the server's slowlog settings " + saved
          + " after measuring stalls; set them back by hand", e);
    }
  }

  @Override
  public void close() {
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    if (server != null) {
      server.close();
    }
  }
}

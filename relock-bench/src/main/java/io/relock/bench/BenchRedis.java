package io.relock.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.relock.testkit.RedisServer;
import java.time.Duration;

/**
 * The Redis every implementation runs against: the one {@code REDIS_URL} names, or a
 * redis-server the bench starts on a free loopback port and stops at the end. The harness reads
 * its counters through a connection of its own.
 */
final class BenchRedis implements AutoCloseable {

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

  @Override
  public void close() {
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    if (server != null) {
      server.close();
    }
  }
}

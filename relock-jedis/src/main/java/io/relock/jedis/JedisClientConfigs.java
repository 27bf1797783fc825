package io.relock.jedis;

import io.relock.spi.DriverSettings;
import io.relock.spi.RedisUri;
import java.time.Duration;
import javax.net.ssl.SSLParameters;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;

/**
 * Jedis settings for a {@link RedisUri} (which relock-core parses for both drivers, so that they
 * read the same URIs and never show a password): credentials, database, TLS and its peer
 * verification, and the timeouts and client name from core.
 */
final class JedisClientConfigs {
  private JedisClientConfigs() {}

  static HostAndPort endpoint(RedisUri uri) {
    return new HostAndPort(uri.host(), uri.port());
  }

  /** Jedis settings for the server at {@code uri}. */
  static JedisClientConfig client(RedisUri uri, DriverSettings settings) {
    return build(uri, settings, uri.database());
  }

  /**
   * Jedis settings for a sentinel at {@code uri}: as {@link #client}, but without the database,
   * which applies to the primary only (sentinels have none, and refuse {@code SELECT}).
   */
  static JedisClientConfig sentinel(RedisUri uri, DriverSettings settings) {
    return build(uri, settings, 0);
  }

  private static JedisClientConfig build(RedisUri uri, DriverSettings settings, int database) {
    DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
        .connectionTimeoutMillis(millis(settings.connectTimeout()))
        .socketTimeoutMillis(millis(settings.commandTimeout()))
        .clientName(settings.clientName())
        .database(database)
        .user(uri.user())
        .password(uri.password());
    if (uri.tls()) {
      config.ssl(true);
      switch (uri.verifyPeer()) {
        case NONE -> config.sslSocketFactory(TrustAllCertificates.socketFactory());
        case CA -> {
          // The default trust store checks the chain; nothing checks the host name.
        }
        case FULL -> {
          SSLParameters parameters = new SSLParameters();
          parameters.setEndpointIdentificationAlgorithm("HTTPS");
          config.sslParameters(parameters);
        }
      }
    }
    return config.build();
  }

  /** Jedis takes int milliseconds; 0 would mean "wait forever", so round tiny values up. */
  private static int millis(Duration d) {
    long ms = Math.max(1, d.toMillis());
    return (int) Math.min(Integer.MAX_VALUE, ms);
  }
}

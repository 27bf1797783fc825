package io.relock.lettuce;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import io.relock.spi.DriverSettings;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** The Lettuce settings both drivers (single server or Sentinel, and Cluster) share. */
final class LettuceSettings {
  /** TCP keep-alive probes after this much silence, so a dead peer is noticed in about 25 s. */
  static final int KEEPALIVE_IDLE_SECONDS = 10;
  private static final int KEEPALIVE_INTERVAL_SECONDS = 5;
  private static final int KEEPALIVE_PROBES = 3;

  private LettuceSettings() {}

  /**
   * Resources of a client of the driver's own: reconnect attempts at most a second apart
   * (Lettuce's default backs off to 30 s), so a restarted or newly promoted server is found soon;
   * and no command latency recording, which Lettuce turns on whenever HdrHistogram and LatencyUtils
   * are on the class path (Spring Boot applications often have them): it would time every command
   * into histograms, and run a pause detector thread, for figures relock never reads (its own
   * {@code RelockListener#redisCall} times each call).
   */
  static ClientResources resources() {
    return DefaultClientResources.builder()
        .reconnectDelay(Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS))
        .commandLatencyRecorder(CommandLatencyRecorder.disabled())
        .build();
  }

  /**
   * What the URI's timeout is set to. Commands are bounded by their own timeout ({@code
   * TimeoutOptions}); the URI's bounds the handshake of every new connection (HELLO, AUTH,
   * CLIENT SETNAME), which belongs to connecting: the larger of the two, so that a short command
   * timeout (a Redlock master's is a quarter of the client's) does not fail connections under load.
   */
  static java.time.Duration handshakeTimeout(io.relock.spi.DriverSettings settings) {
    return settings.connectTimeout().compareTo(settings.commandTimeout()) > 0
        ? settings.connectTimeout() : settings.commandTimeout();
  }

  /** The connect timeout, and keep-alive probes. */
  static SocketOptions socketOptions(DriverSettings settings) {
    return SocketOptions.builder()
        .connectTimeout(settings.connectTimeout())
        .keepAlive(SocketOptions.KeepAliveOptions.builder().enable()
            .idle(Duration.ofSeconds(KEEPALIVE_IDLE_SECONDS))
            .interval(Duration.ofSeconds(KEEPALIVE_INTERVAL_SECONDS))
            .count(KEEPALIVE_PROBES)
            .build())
        .build();
  }

  /** Shuts down a client of the driver's own and its resources, which the client leaves running. */
  static void shutdown(AbstractRedisClient client) {
    try {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    } finally {
      client.getResources().shutdown(0, 2, TimeUnit.SECONDS);
    }
  }
}

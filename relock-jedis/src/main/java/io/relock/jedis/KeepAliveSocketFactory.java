package io.relock.jedis;

import java.io.IOException;
import java.net.Socket;
import java.net.SocketOption;
import java.util.function.Supplier;
import jdk.net.ExtendedSocketOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.DefaultJedisSocketFactory;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisSocketFactory;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * Jedis's own sockets (keep-alive on, TLS as configured) with keep-alive probes after {@value
 * #IDLE_SECONDS} s of silence instead of the system default of two hours, so that a connection
 * that died without a FIN or RST (a host gone, a NAT entry dropped) is noticed within about half a
 * minute. Where the platform lacks the extended options, the system's keep-alive timing stays.
 *
 * <p>The endpoint is fixed, or {@linkplain #toPrimaryOf asked of the sentinels} for each socket.
 */
final class KeepAliveSocketFactory implements JedisSocketFactory {
  private static final Logger log = LoggerFactory.getLogger(KeepAliveSocketFactory.class);
  static final int IDLE_SECONDS = 10;
  private static final int INTERVAL_SECONDS = 5;
  private static final int PROBES = 3;

  private final Supplier<HostAndPort> endpoint;
  private final JedisClientConfig config;
  private final SentinelPrimary sentinels;

  KeepAliveSocketFactory(HostAndPort endpoint, JedisClientConfig config) {
    this(() -> endpoint, config, null);
  }

  private KeepAliveSocketFactory(Supplier<HostAndPort> endpoint, JedisClientConfig config, SentinelPrimary sentinels) {
    this.endpoint = endpoint;
    this.config = config;
    this.sentinels = sentinels;
  }

  /**
   * Sockets to the primary the sentinels name at the moment each is created. Failures say which
   * primary could not be reached, or which sentinels were asked in vain.
   */
  static KeepAliveSocketFactory toPrimaryOf(SentinelPrimary sentinels, JedisClientConfig config) {
    return new KeepAliveSocketFactory(sentinels, config, sentinels);
  }

  @Override
  public Socket createSocket() throws JedisConnectionException {
    HostAndPort node = endpoint.get();
    Socket socket;
    try {
      socket = new DefaultJedisSocketFactory(node, config).createSocket();
    } catch (JedisConnectionException e) {
      if (sentinels == null) {
        throw e;
      }
      throw new SentinelPrimary.Unreachable("cannot connect to " + node + ", the primary that the sentinels name: "
          + JedisDriver.describe(e), e);
    }
    try {
      set(socket, ExtendedSocketOptions.TCP_KEEPIDLE, IDLE_SECONDS);
      set(socket, ExtendedSocketOptions.TCP_KEEPINTERVAL, INTERVAL_SECONDS);
      set(socket, ExtendedSocketOptions.TCP_KEEPCOUNT, PROBES);
    } catch (IOException | UnsupportedOperationException e) {
      log.debug("keep-alive timing not supported here; the system's applies: {}", e.toString());
    }
    return socket;
  }

  private static void set(Socket socket, SocketOption<Integer> option, int value) throws IOException {
    if (socket.supportedOptions().contains(option)) {
      socket.setOption(option, value);
    }
  }
}

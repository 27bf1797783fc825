package io.relock.jedis;

import java.io.IOException;
import java.net.Socket;
import java.net.SocketOption;
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
 */
final class KeepAliveSocketFactory implements JedisSocketFactory {
  private static final Logger log = LoggerFactory.getLogger(KeepAliveSocketFactory.class);
  static final int IDLE_SECONDS = 10;
  private static final int INTERVAL_SECONDS = 5;
  private static final int PROBES = 3;

  private final DefaultJedisSocketFactory sockets;

  KeepAliveSocketFactory(HostAndPort endpoint, JedisClientConfig config) {
    this.sockets = new DefaultJedisSocketFactory(endpoint, config);
  }

  @Override
  public Socket createSocket() throws JedisConnectionException {
    Socket socket = sockets.createSocket();
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

package io.relock.jedis;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.testkit.RedisExtension;
import java.net.Socket;
import jdk.net.ExtendedSocketOptions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;

class KeepAliveSocketFactoryTest {
  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  @Test
  void sockets_probeAfterTenSecondsOfSilence() throws Exception {
    HostAndPort endpoint = new HostAndPort(redis.server().host(), redis.server().port());
    try (Socket socket = new KeepAliveSocketFactory(endpoint, DefaultJedisClientConfig.builder().build()).createSocket()) {
      assertThat(socket.getKeepAlive()).isTrue();
      Assumptions.assumeTrue(socket.supportedOptions().contains(ExtendedSocketOptions.TCP_KEEPIDLE),
          "this platform has no TCP_KEEPIDLE");
      try (Socket plain = new Socket(redis.server().host(), redis.server().port())) {
        plain.setKeepAlive(true);
        assertThat(plain.getOption(ExtendedSocketOptions.TCP_KEEPIDLE))
            .as("the system's own idle time, which the factory must change").isNotEqualTo(10);
      }
      assertThat(socket.getOption(ExtendedSocketOptions.TCP_KEEPIDLE)).isEqualTo(10);
      assertThat(socket.getOption(ExtendedSocketOptions.TCP_KEEPINTERVAL)).isEqualTo(5);
      assertThat(socket.getOption(ExtendedSocketOptions.TCP_KEEPCOUNT)).isEqualTo(3);
    }
  }
}

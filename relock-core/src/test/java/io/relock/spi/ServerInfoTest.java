package io.relock.spi;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.testkit.RedisExtension;
import io.relock.testkit.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class ServerInfoTest {
  @RegisterExtension static final RedisExtension redis = new RedisExtension();

  @Test
  void theMajorVersion_isReadFromARealServersReply(RedisServer server) {
    String info = server.execute("INFO", "server").toString();
    String line = info.lines().filter(l -> l.startsWith("redis_version:")).findFirst().orElseThrow();
    int expected = Integer.parseInt(line.substring("redis_version:".length()).split("\\.")[0]);

    assertThat(ServerInfo.majorVersion(info)).isEqualTo(expected).isGreaterThanOrEqualTo(6);
  }

  @Test
  void aVersionWithoutDots_andAReplyWithoutOne() {
    assertThat(ServerInfo.majorVersion("# Server\r\nredis_version:8\r\nredis_mode:standalone\r\n")).isEqualTo(8);
    assertThat(ServerInfo.majorVersion("# Server\r\nredis_mode:standalone\r\n")).isZero();
  }
}

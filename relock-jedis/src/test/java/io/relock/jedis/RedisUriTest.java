package io.relock.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.jedis.RedisUri.PeerVerification;
import io.relock.spi.DriverSettings;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisClientConfig;

/** URI parsing: the forms Lettuce and relock-testkit write, and passwords kept out of messages. */
class RedisUriTest {
  private static final DriverSettings SETTINGS =
      new DriverSettings(Duration.ofMillis(1500), Duration.ofMillis(700), "relock-test");

  @Test
  void plainUri_defaultsToPort6379DatabaseZeroAndNoTls() {
    RedisUri uri = RedisUri.parse("redis://localhost");
    assertThat(uri.host).isEqualTo("localhost");
    assertThat(uri.port).isEqualTo(6379);
    assertThat(uri.database).isZero();
    assertThat(uri.tls).isFalse();
    assertThat(uri.user).isNull();
    assertThat(uri).hasToString("redis://localhost:6379");
  }

  @Test
  void settings_becomeJedisTimeoutsAndClientName() {
    JedisClientConfig config = RedisUri.parse("redis://127.0.0.1:7000/3").clientConfig(SETTINGS);
    assertThat(config.getSocketTimeoutMillis()).isEqualTo(1500);
    assertThat(config.getConnectionTimeoutMillis()).isEqualTo(700);
    assertThat(config.getClientName()).isEqualTo("relock-test");
    assertThat(config.getDatabase()).isEqualTo(3);
    assertThat(config.isSsl()).isFalse();
  }

  @Test
  void aclUserAndPassword_arePercentDecoded_andNeverShown() {
    RedisUri uri = RedisUri.parse("redis://lock%20er:p%40ss%3Aw%2Fd+x@127.0.0.1:7000");
    JedisClientConfig config = uri.clientConfig(SETTINGS);
    assertThat(config.getCredentialsProvider().get().getUser()).isEqualTo("lock er");
    assertThat(new String(config.getCredentialsProvider().get().getPassword())).isEqualTo("p@ss:w/d+x");
    assertThat(uri).hasToString("redis://lock er:***@127.0.0.1:7000");
  }

  @Test
  void passwordOnly_withOrWithoutTheColon() {
    for (String form : new String[] {"redis://:s3cret@h:1", "redis://s3cret@h:1"}) {
      RedisUri uri = RedisUri.parse(form);
      JedisClientConfig config = uri.clientConfig(SETTINGS);
      assertThat(config.getCredentialsProvider().get().getUser()).as(form).isNull();
      assertThat(new String(config.getCredentialsProvider().get().getPassword())).as(form).isEqualTo("s3cret");
      assertThat(uri.toString()).as(form).isEqualTo("redis://:***@h:1").doesNotContain("s3cret");
    }
  }

  @Test
  void unescapedSlashAtAndQuestionMarkInThePassword_stillParse() {
    RedisUri uri = RedisUri.parse("redis://u:a/b@c?d@h:2/5");
    assertThat(new String(uri.clientConfig(SETTINGS).getCredentialsProvider().get().getPassword())).isEqualTo("a/b@c?d");
    assertThat(uri.host).isEqualTo("h");
    assertThat(uri.port).isEqualTo(2);
    assertThat(uri.database).isEqualTo(5);
  }

  @Test
  void rediss_verifiesPeersFullyByDefault_andNoneTrustsAnyCertificate() {
    RedisUri full = RedisUri.parse("rediss://h:6380");
    assertThat(full.tls).isTrue();
    assertThat(full.verifyPeer).isEqualTo(PeerVerification.FULL);
    assertThat(full.clientConfig(SETTINGS).getSslParameters().getEndpointIdentificationAlgorithm()).isEqualTo("HTTPS");

    RedisUri none = RedisUri.parse("rediss://h:6380?verifyPeer=NONE");
    JedisClientConfig config = none.clientConfig(SETTINGS);
    assertThat(config.isSsl()).isTrue();
    assertThat(config.getSslSocketFactory()).isSameAs(TrustAllCertificates.socketFactory());
    assertThat(none).hasToString("rediss://h:6380?verifyPeer=NONE");

    assertThat(RedisUri.parse("rediss://h?verifyPeer=ca").verifyPeer).isEqualTo(PeerVerification.CA);
    assertThat(RedisUri.parse("rediss://h?verifyPeer=false").verifyPeer).isEqualTo(PeerVerification.NONE);
  }

  @Test
  void ipv6Hosts_inBrackets() {
    RedisUri uri = RedisUri.parse("redis://[::1]:7001");
    assertThat(uri.host).isEqualTo("::1");
    assertThat(uri.port).isEqualTo(7001);
    assertThat(uri).hasToString("redis://[::1]:7001");
  }

  @Test
  void databaseAsAParameter() {
    assertThat(RedisUri.parse("redis://h?database=4").database).isEqualTo(4);
  }

  @Test
  void badUris_failNamingThePart_neverThePassword() {
    assertThatThrownBy(() -> RedisUri.parse("http://u:hunter2@h")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'http'").hasMessageNotContaining("hunter2");
    assertThatThrownBy(() -> RedisUri.parse("localhost:6379")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("redis://");
    assertThatThrownBy(() -> RedisUri.parse("redis://u:hunter2@h:port")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'port'").hasMessageNotContaining("hunter2");
    assertThatThrownBy(() -> RedisUri.parse("redis://u:hunter2@h:70000")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("70000");
    assertThatThrownBy(() -> RedisUri.parse("redis://u:hunter2@h/x")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("database").hasMessageContaining("'x'");
    assertThatThrownBy(() -> RedisUri.parse("redis://u:hunter2@h?timeout=5")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'timeout'").hasMessageNotContaining("hunter2");
    assertThatThrownBy(() -> RedisUri.parse("redis://u:hunter2@h?verifyPeer=maybe")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'maybe'");
    assertThatThrownBy(() -> RedisUri.parse("redis://u:hun%zzter2@h")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("password").hasMessageNotContaining("hun");
    assertThatThrownBy(() -> RedisUri.parse("redis://u:hunter2@:6379")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no host");
    assertThatThrownBy(() -> RedisUri.parse(null)).isInstanceOf(NullPointerException.class);
  }
}

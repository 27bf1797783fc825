package io.relock.jedis;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.spi.DriverSettings;
import io.relock.spi.RedisUri;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisClientConfig;

/** What a parsed URI becomes in Jedis's settings (the parsing itself is relock-core's RedisUriTest). */
class JedisClientConfigsTest {
  private static final DriverSettings SETTINGS =
      new DriverSettings(Duration.ofMillis(1500), Duration.ofMillis(700), "relock-test");

  private static JedisClientConfig config(String uri) {
    return JedisClientConfigs.client(RedisUri.parse(uri), SETTINGS);
  }

  @Test
  void settings_becomeJedisTimeoutsAndClientName() {
    JedisClientConfig config = config("redis://127.0.0.1:7000/3");
    assertThat(config.getSocketTimeoutMillis()).isEqualTo(1500);
    assertThat(config.getConnectionTimeoutMillis()).isEqualTo(700);
    assertThat(config.getClientName()).isEqualTo("relock-test");
    assertThat(config.getDatabase()).isEqualTo(3);
    assertThat(config.isSsl()).isFalse();
  }

  @Test
  void aclUserAndPassword_arePercentDecoded() {
    JedisClientConfig config = config("redis://lock%20er:p%40ss%3Aw%2Fd+x@127.0.0.1:7000");
    assertThat(config.getCredentialsProvider().get().getUser()).isEqualTo("lock er");
    assertThat(new String(config.getCredentialsProvider().get().getPassword())).isEqualTo("p@ss:w/d+x");
  }

  @Test
  void passwordOnly_withOrWithoutTheColon() {
    for (String form : new String[] {"redis://:s3cret@h:1", "redis://s3cret@h:1"}) {
      JedisClientConfig config = config(form);
      assertThat(config.getCredentialsProvider().get().getUser()).as(form).isNull();
      assertThat(new String(config.getCredentialsProvider().get().getPassword())).as(form).isEqualTo("s3cret");
    }
  }

  @Test
  void aSentinelsSettings_haveNoDatabase() {
    assertThat(JedisClientConfigs.sentinel(RedisUri.parse("redis://h:26379/4"), SETTINGS).getDatabase()).isZero();
  }

  @Test
  void rediss_verifiesPeersFullyByDefault_andNoneTrustsAnyCertificate() {
    assertThat(config("rediss://h:6380").getSslParameters().getEndpointIdentificationAlgorithm()).isEqualTo("HTTPS");
    JedisClientConfig none = config("rediss://h:6380?verifyPeer=NONE");
    assertThat(none.isSsl()).isTrue();
    assertThat(none.getSslSocketFactory()).isSameAs(TrustAllCertificates.socketFactory());
  }
}

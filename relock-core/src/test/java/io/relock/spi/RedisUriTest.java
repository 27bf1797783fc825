package io.relock.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.relock.spi.RedisUri.PeerVerification;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The one parser and redaction of Redis URIs: the forms Lettuce and the test kit write, reserved
 * characters in passwords, and passwords kept out of every message and every redacted text.
 */
class RedisUriTest {
  /** Every character that needs care in a URI's password; its fragments must not show either. */
  static final String PASSWORD = "kQ7v/@:%# Zx9w";
  static final String ENCODED = "kQ7v%2F%40%3A%25%23%20Zx9w";

  /** The password, its encoded form, and the pieces a parser that cut it at a reserved character would show. */
  static void assertHidesThePassword(String text) {
    assertThat(text).doesNotContain("kQ7v").doesNotContain("Zx9w").doesNotContain(ENCODED).doesNotContain("%2F%40");
  }

  @Test
  void plainUri_defaultsToPort6379DatabaseZeroAndNoTls() {
    RedisUri uri = RedisUri.parse("redis://localhost");
    assertThat(uri.host()).isEqualTo("localhost");
    assertThat(uri.port()).isEqualTo(6379);
    assertThat(uri.database()).isZero();
    assertThat(uri.tls()).isFalse();
    assertThat(uri.user()).isNull();
    assertThat(uri.password()).isNull();
    assertThat(uri).hasToString("redis://localhost:6379");
  }

  @Test
  void userAndPassword_arePercentDecoded_andShownAsStarsOnly() {
    RedisUri uri = RedisUri.parse("redis://lock%20er:p%40ss%3Aw%2Fd+x@127.0.0.1:7000/3");
    assertThat(uri.user()).isEqualTo("lock er");
    assertThat(uri.password()).isEqualTo("p@ss:w/d+x");
    assertThat(uri.database()).isEqualTo(3);
    assertThat(uri).hasToString("redis://lock er:***@127.0.0.1:7000/3");
  }

  @Test
  void passwordOnly_withOrWithoutTheColon() {
    for (String form : new String[] {"redis://:s3cret@h:1", "redis://s3cret@h:1"}) {
      RedisUri uri = RedisUri.parse(form);
      assertThat(uri.user()).as(form).isNull();
      assertThat(uri.password()).as(form).isEqualTo("s3cret");
      assertThat(uri.toString()).as(form).isEqualTo("redis://:***@h:1");
    }
  }

  @Test
  void everyReservedCharacter_percentEncoded_isPartOfThePassword() {
    RedisUri uri = RedisUri.parse("redis://weak:" + ENCODED + "@127.0.0.1:33861");
    assertThat(uri.password()).isEqualTo(PASSWORD);
    assertThat(uri.user()).isEqualTo("weak");
    assertThat(uri.hostAndPort()).isEqualTo("127.0.0.1:33861");
    assertThat(uri).hasToString("redis://weak:***@127.0.0.1:33861");
    assertThat(RedisUri.encode(PASSWORD)).isEqualTo(ENCODED);
  }

  /** As the issue saw it: {@code For input string: "pw@127.0.0.1:33533"} from a raw slash. */
  @ParameterizedTest
  @ValueSource(strings = {"redis://weak:kQ7v/Zx9w@127.0.0.1:33533", "redis://weak:kQ7v?Zx9w@127.0.0.1:33533",
      "redis://weak:kQ7v#Zx9w@127.0.0.1:33533", "redis://weak:kQ7v@Zx9w@127.0.0.1:33533",
      "redis://weak:kQ7v/@:%# Zx9w@127.0.0.1:33533", "redis://kQ7v/Zx9w@127.0.0.1:33533/2"})
  void rawReservedCharactersInThePassword_areRefused_sayingToPercentEncodeThem(String uri) {
    Throwable thrown = catchThrowable(() -> RedisUri.parse(uri));
    assertThat(thrown).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("invalid Redis URI '")
        .hasMessageContaining("127.0.0.1:33533");
    assertThat(thrown.getMessage()).containsAnyOf("must be percent-encoded", "write a space as %20");
    assertHidesThePassword(thrown.getMessage());
  }

  @Test
  void aRawSlash_isNamedAsAReservedCharacter() {
    assertThatThrownBy(() -> RedisUri.parse("redis://weak:We4k/pw@127.0.0.1:33533"))
        .hasMessage("invalid Redis URI 'redis://weak:***@127.0.0.1:33533': reserved characters in a password (such"
            + " as / ? # @) must be percent-encoded (%2F %3F %23 %40)");
  }

  @Test
  void aRawPercentSign_isRefusedWithoutShowingThePassword() {
    assertThatThrownBy(() -> RedisUri.parse("redis://u:hun%zzter2@h"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("%25").hasMessageNotContaining("hun").hasMessageNotContaining("zzter");
  }

  @Test
  void rediss_verifiesPeersFullyByDefault() {
    assertThat(RedisUri.parse("rediss://h:6380").verifyPeer()).isEqualTo(PeerVerification.FULL);
    RedisUri none = RedisUri.parse("rediss://h:6380?verifyPeer=NONE");
    assertThat(none.tls()).isTrue();
    assertThat(none.verifyPeer()).isEqualTo(PeerVerification.NONE);
    assertThat(none).hasToString("rediss://h:6380?verifyPeer=NONE");
    assertThat(RedisUri.parse("rediss://h?verifyPeer=ca").verifyPeer()).isEqualTo(PeerVerification.CA);
    assertThat(RedisUri.parse("rediss://h?verifyPeer=false").verifyPeer()).isEqualTo(PeerVerification.NONE);
  }

  @Test
  void ipv6Hosts_inBrackets() {
    RedisUri uri = RedisUri.parse("redis://u:" + ENCODED + "@[::1]:7001");
    assertThat(uri.host()).isEqualTo("::1");
    assertThat(uri.port()).isEqualTo(7001);
    assertThat(uri).hasToString("redis://u:***@[::1]:7001");
    assertThatThrownBy(() -> RedisUri.parse("redis://::1:7001")).hasMessageContaining("brackets");
  }

  @Test
  void databaseAsAParameter_andLettucesParametersAreIgnored() {
    assertThat(RedisUri.parse("redis://h?database=4").database()).isEqualTo(4);
    assertThat(RedisUri.parse("redis://h/2?timeout=5s&clientName=x").database()).isEqualTo(2);
  }

  @Test
  void badUris_failNamingThePart_neverThePassword() {
    assertThatThrownBy(() -> RedisUri.parse("http://u:hunter2@h")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'http'").hasMessageNotContaining("hunter2");
    assertThatThrownBy(() -> RedisUri.parse("u:hunter2@localhost:6379")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("redis://").hasMessageNotContaining("hunter2");
    assertThatThrownBy(() -> RedisUri.parse("redis://u:hunter2@h:port")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'port'").hasMessageNotContaining("hunter2");
    assertThatThrownBy(() -> RedisUri.parse("redis://u:hunter2@h:70000")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("70000");
    assertThatThrownBy(() -> RedisUri.parse("redis://u:hunter2@h/x")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("database").hasMessageContaining("'x'");
    assertThatThrownBy(() -> RedisUri.parse("redis://u:hunter2@h?pool=5")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'pool'").hasMessageNotContaining("hunter2");
    assertThatThrownBy(() -> RedisUri.parse("redis://u:hunter2@h?verifyPeer=maybe"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'maybe'");
    assertThatThrownBy(() -> RedisUri.parse("redis://u:hunter2@:6379")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no host");
    assertThatThrownBy(() -> RedisUri.parse("redis://u:hunter2@h1,h2")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("several hosts").hasMessageNotContaining("hunter2");
    assertThatThrownBy(() -> RedisUri.parse("redis-sentinel://u:hunter2@h1#m"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Sentinel").hasMessageNotContaining("hunter2");
    assertThatThrownBy(() -> RedisUri.parse(null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void redact_hidesThePasswordOfEveryUriInAText_keepingTheUsers() {
    String list = List.of("redis://weak:" + ENCODED + "@127.0.0.1:1", "redis://other:" + ENCODED + "@127.0.0.1:2",
        "redis://127.0.0.1:3").toString();
    assertThat(RedisUri.redact(list))
        .isEqualTo("[redis://weak:***@127.0.0.1:1, redis://other:***@127.0.0.1:2, redis://127.0.0.1:3]");
    assertThat(RedisUri.redact("redis://a:x@h1,redis://b:y@h2 and rediss://:z@[::1]:3/2?verifyPeer=NONE"))
        .isEqualTo("redis://a:***@h1,redis://b:***@h2 and rediss://:***@[::1]:3/2?verifyPeer=NONE");
    assertThat(RedisUri.redact("redis-sentinel://app:" + ENCODED + "@h1:26379,h2:26380/2#orders"))
        .isEqualTo("redis-sentinel://app:***@h1:26379,h2:26380/2#orders");
    assertThat(RedisUri.redact("password only: redis://s3cret@h")).isEqualTo("password only: redis://***@h");
  }

  @Test
  void redact_hidesRawReservedCharactersToo_upToTheLastAt() {
    assertThat(RedisUri.redact("failed: redis://weak:kQ7v/@:%#Zx9w@127.0.0.1:33533/0 (x)"))
        .isEqualTo("failed: redis://weak:***@127.0.0.1:33533/0 (x)");
    assertThat(RedisUri.redact("redis://kQ7v/x@h")).isEqualTo("redis://***@h");
  }

  @Test
  void redact_leavesTextWithoutCredentialsAlone() {
    String reply = "(single [redis://127.0.0.1:1]): NOPERM no permissions script: abc, on @user_script:57.";
    assertThat(RedisUri.redact(reply)).isEqualTo(reply);
    assertThat(RedisUri.redact("no uri here, user@example")).isEqualTo("no uri here, user@example");
    assertThat(RedisUri.redact(null)).isNull();
  }

  @Test
  void redactWithKnownPasswords_hidesThemRawEncodedAndFormEncoded_evenWithSpaces() {
    String text = "a: " + PASSWORD + "; b: " + ENCODED + "; c: " + ENCODED.toLowerCase(java.util.Locale.ROOT)
        + "; d: " + java.net.URLEncoder.encode(PASSWORD, java.nio.charset.StandardCharsets.UTF_8)
        + "; e: redis://weak:" + PASSWORD + "@h:1";
    String redacted = RedisUri.redact(text, List.of(PASSWORD));
    assertHidesThePassword(redacted);
    assertThat(redacted).startsWith("a: ***; b: ***; c: ***; d: ***; e: redis://weak:***");
    assertThat(RedisUri.redact("a pw in a word: pwned", List.of("pw"))).as("too short to scrub").contains("pwned");
  }

  @Test
  void passwordIn_readsEvenAUriThatDoesNotParse() {
    assertThat(RedisUri.passwordIn("redis://weak:" + ENCODED + "@h")).isEqualTo(PASSWORD);
    assertThat(RedisUri.passwordIn("redis://weak:kQ7v/Zx9w@h")).isEqualTo("kQ7v/Zx9w");
    assertThat(RedisUri.passwordIn("redis://h")).isNull();
  }

  @Test
  void sentinelUri_rawReservedCharacterInThePassword_isRefusedWithoutShowingIt() {
    for (String uri : new String[] {"redis-sentinel://weak:kQ7v#Zx9w@h1,h2#orders",
        "redis-sentinel://weak:kQ7v/Zx9w@h1,h2/0#orders", "redis-sentinel://weak:kQ7v@Zx9w@h1,h2#orders"}) {
      Throwable thrown = catchThrowable(() -> RedisTarget.fromSentinelUri(uri));
      assertThat(thrown).as(uri).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("must be percent-encoded");
      assertHidesThePassword(thrown.getMessage());
    }
    RedisTarget t = RedisTarget.fromSentinelUri("redis-sentinel://weak:" + ENCODED + "@h1,[::1]:26380/2#orders");
    assertThat(t.nodes()).containsExactly("redis://weak:" + ENCODED + "@h1:26379/2",
        "redis://weak:" + ENCODED + "@[::1]:26380/2");
    assertThat(t).hasToString("sentinel 'orders' [redis://weak:***@h1:26379/2, redis://weak:***@[::1]:26380/2]");
  }

  @Test
  void target_withPrimaryCredentials_showsTheUserOnly_andRedactsEveryPassword() {
    RedisTarget t = RedisTarget.sentinel("m", List.of("redis://s:" + ENCODED + "@h1:26379"),
        new RedisTarget.Credentials("app", "data Pw/1#x"));
    assertThat(t).hasToString("sentinel 'm' [redis://s:***@h1:26379], primary as app:***");
    assertThat(t.redact("x " + PASSWORD + " y data Pw/1#x z")).isEqualTo("x *** y *** z");
    assertThatThrownBy(() -> RedisTarget.single("redis://u:kQ7v/Zx9w@h"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageNotContaining("kQ7v");
  }
}

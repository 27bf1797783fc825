package io.relock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.relock.LockLease;
import io.relock.Relock;
import io.relock.RelockException;
import io.relock.testkit.RedisServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Connecting through a URI with {@code Relock.connect}: the driver module's class path must hold
 * exactly one driver, which ServiceLoader finds. ACL users, passwords, TLS, and passwords never
 * shown (item 9).
 */
public abstract class ConnectionContract {

  private static void assertLocks(Relock relock, String name) {
    try (LockLease lease = relock.lock(name).acquire(Duration.ZERO)) {
      assertThat(lease.isValid()).isTrue();
    }
  }

  @Test
  void connect_findsTheDriverThroughServiceLoader() {
    try (RedisServer server = RedisServer.start(); Relock relock = Relock.connect(server.uri())) {
      assertLocks(relock, "discovered");
    }
  }

  @Test
  void aclUserAndPasswordInTheUri_work() {
    try (RedisServer server = RedisServer.builder().aclUser("locker", "pa55word").start();
         Relock relock = Relock.connect(server.uri())) {
      assertThat(server.uri()).contains("locker:pa55word@");
      assertLocks(relock, "acl");
    }
  }

  @Test
  void passwordOnlyUri_works() {
    try (RedisServer server = RedisServer.builder().password("s3cret").start();
         Relock relock = Relock.connect(server.uri())) {
      assertThat(server.uri()).contains(":s3cret@");
      assertLocks(relock, "requirepass");
    }
  }

  @Test
  void wrongPassword_failsWithRelockException_thatNeverShowsThePassword() {
    try (RedisServer server = RedisServer.builder().aclUser("locker", "pa55word").start()) {
      String wrong = "redis://locker:hunter2@127.0.0.1:" + server.port();
      PrintStream original = System.err;
      ByteArrayOutputStream captured = new ByteArrayOutputStream();
      System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
      Throwable thrown;
      try {
        thrown = catchThrowable(() -> Relock.connect(wrong));
      } finally {
        System.setErr(original);
      }
      assertThat(thrown).isInstanceOf(RelockException.class).hasMessageContaining("locker:***@");
      for (Throwable t = thrown; t != null; t = t.getCause()) {
        assertThat(String.valueOf(t.getMessage())).doesNotContain("hunter2");
        for (Throwable s : t.getSuppressed()) {
          assertThat(String.valueOf(s.getMessage())).doesNotContain("hunter2");
        }
      }
      assertThat(captured.toString(StandardCharsets.UTF_8)).doesNotContain("hunter2");
    }
  }

  /** Once: {@code For input string: "pw@127.0.0.1:33533"} on Lettuce, and a silent misreading on Jedis. */
  @Test
  void aRawReservedCharacterInThePassword_failsSayingToPercentEncodeIt_withoutShowingThePassword() {
    for (String raw : new String[] {"We4k/pw", "We4k#pw", "We4k?pw", "We4k@pw", "We4k pw"}) {
      Throwable thrown = catchThrowable(() -> Relock.connect("redis://weak:" + raw + "@127.0.0.1:33533"));
      assertThat(thrown).as(raw).isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("invalid Redis URI 'redis://weak:***@127.0.0.1:33533'")
          .hasMessageContaining("%");
      for (Throwable t = thrown; t != null; t = t.getCause()) {
        assertThat(String.valueOf(t.getMessage())).as(raw).doesNotContain("We4k").doesNotContain("pw@");
      }
    }
  }

  @Test
  void nothingListening_failsWithRelockExceptionWithinTheConnectTimeout() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    String uri = "redis://127.0.0.1:" + port;
    long start = System.nanoTime();
    assertThatThrownBy(() -> Relock.builder().uri(uri).connectTimeout(Duration.ofSeconds(1)).build())
        .isInstanceOf(RelockException.class).hasMessageContaining(uri);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).as("generous bound").isLessThan(Duration.ofSeconds(5));
  }

  @Test
  void tlsWithoutPeerVerification_isNamedInAWarning() {
    Assumptions.assumeTrue(RedisServer.tlsSupported(), "redis-server or openssl without TLS support");
    try (RedisServer server = RedisServer.builder().tls(true).start()) {
      String[] log = new String[1];
      PrintStream original = System.err;
      ByteArrayOutputStream captured = new ByteArrayOutputStream();
      System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
      try (Relock relock = Relock.connect(server.uri())) {
        assertLocks(relock, "unverified");
      } finally {
        System.setErr(original);
        log[0] = captured.toString(StandardCharsets.UTF_8);
      }
      assertThat(server.uri()).contains("verifyPeer=NONE");
      assertThat(log[0]).contains("does not verify the server's certificate").contains("127.0.0.1");
    }
  }

  @Test
  void tlsUri_works() {
    Assumptions.assumeTrue(RedisServer.tlsSupported(), "redis-server or openssl without TLS support");
    try (RedisServer server = RedisServer.builder().tls(true).start(); Relock relock = Relock.connect(server.uri())) {
      assertThat(server.uri()).startsWith("rediss://");
      assertLocks(relock, "tls");
    }
  }
}

package io.relock.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.relock.LockLease;
import io.relock.Relock;
import io.relock.RelockException;
import io.relock.contract.ConnectionContract;
import io.relock.testkit.RedisServer;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Connecting through the URI: ServiceLoader discovery (this module's class path has no other
 * driver), {@code -Drelock.driver}, ACL users, databases, TLS, and passwords kept secret.
 */
class JedisConnectionTest extends ConnectionContract {

  @Test
  void connect_runsTheJedisPubSubThread() {
    Set<Thread> before = Thread.getAllStackTraces().keySet();
    try (RedisServer server = RedisServer.start(); Relock relock = Relock.connect(server.uri())) {
      try (LockLease lease = relock.lock("discovered").acquire(Duration.ZERO)) {
        assertThat(lease.isValid()).isTrue();
      }
      assertThat(Thread.getAllStackTraces().keySet()).as("threads started by the connection")
          .filteredOn(t -> !before.contains(t))
          .anyMatch(t -> t.getName().startsWith("relock-jedis-") && t.getName().endsWith("-pubsub") && t.isDaemon());
    }
  }

  @Test
  void relockDriverProperty_picksJedisByName_andRejectsADriverThatIsNotThere() {
    String before = System.getProperty("relock.driver");
    try (RedisServer server = RedisServer.start()) {
      System.setProperty("relock.driver", "jedis");
      try (Relock relock = Relock.connect(server.uri())) {
        assertThat(relock.lock("picked").tryLock()).isTrue();
        relock.lock("picked").unlock();
      }
      System.setProperty("relock.driver", "lettuce");
      assertThatThrownBy(() -> Relock.connect(server.uri())).isInstanceOf(RelockException.class)
          .hasMessageContaining("'lettuce'").hasMessageContaining("[jedis]");
    } finally {
      if (before == null) {
        System.clearProperty("relock.driver");
      } else {
        System.setProperty("relock.driver", before);
      }
    }
  }

  @Test
  void connections_carryTheClientName() {
    try (RedisServer server = RedisServer.start(); Relock relock = Relock.connect(server.uri())) {
      relock.lock("named").acquire(Duration.ZERO).close();
      String clients = (String) server.execute("CLIENT", "LIST");
      long named = Arrays.stream(clients.split("\r?\n")).filter(l -> l.contains(" name=relock ")).count();
      assertThat(named).as("commands and pub/sub connections in %s", clients).isGreaterThanOrEqualTo(2);
      assertThat(clients).contains("cmd=subscribe");
    }
  }

  @Test
  void databaseInTheUriPath_holdsTheLockKeys() {
    try (RedisServer server = RedisServer.start(); Relock relock = Relock.connect(server.uri() + "/3")) {
      try (LockLease lease = relock.lock("in-db-3").acquire(Duration.ZERO)) {
        assertThat(lease.isValid()).isTrue();
        assertThat((String) server.execute("INFO", "keyspace")).contains("db3:keys=").doesNotContain("db0:");
      }
    }
  }

  @Test
  void wrongPassword_namesRedisReply_WRONGPASS() {
    try (RedisServer server = RedisServer.builder().aclUser("locker", "pa55word").start()) {
      assertThatThrownBy(() -> Relock.connect("redis://locker:hunter2@127.0.0.1:" + server.port()))
          .isInstanceOf(RelockException.class).hasMessageContaining("WRONGPASS").hasMessageNotContaining("hunter2");
    }
  }

  @Test
  void missingPassword_failsAtConnect_notAtTheFirstLock() {
    try (RedisServer server = RedisServer.builder().password("s3cret").start()) {
      assertThatThrownBy(() -> Relock.connect("redis://127.0.0.1:" + server.port()))
          .isInstanceOf(RelockException.class).hasMessageContaining("NOAUTH");
    }
  }

  @Test
  void malformedUri_failsAsTheBuilderChecksIt_neverShowingThePassword() {
    Throwable thrown = catchThrowable(() -> Relock.connect("redis://locker:hunter2@127.0.0.1:notaport"));
    assertThat(thrown).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'notaport'");
    for (Throwable t = thrown; t != null; t = t.getCause()) {
      assertThat(String.valueOf(t.getMessage())).doesNotContain("hunter2");
    }
  }

  @Test
  void tlsWithFullVerification_refusesTheSelfSignedTestCertificate() {
    Assumptions.assumeTrue(RedisServer.tlsSupported(), "redis-server or openssl without TLS support");
    try (RedisServer server = RedisServer.builder().tls(true).start()) {
      String full = server.uri().replace("?verifyPeer=NONE", "");
      assertThatThrownBy(() -> Relock.builder().uri(full).connectTimeout(Duration.ofSeconds(2)).build())
          .isInstanceOf(RelockException.class).hasMessageContaining(full);
    }
  }
}

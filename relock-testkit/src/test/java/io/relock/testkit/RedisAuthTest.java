package io.relock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.util.List;
import org.junit.jupiter.api.Test;

class RedisAuthTest {

    @Test
    void password_rejectsUnauthenticatedCommands_andExecuteAuthenticates() {
        try (RedisServer server = RedisServer.builder().password("s3cret").start()) {
            assertThatThrownBy(() -> RawClient.call(server.port(), "GET", "key"))
                    .isInstanceOf(RedisServer.ErrorReply.class)
                    .hasMessageStartingWith("NOAUTH");

            assertThat(server.execute("SET", "key", "value")).isEqualTo("OK");
            assertThat(server.execute("GET", "key")).isEqualTo("value");
            assertThat(server.uri()).isEqualTo("redis://:s3cret@127.0.0.1:" + server.port());
        }
    }

    @Test
    void aclUser_isTheOnlyWayIn_andExecuteAuthenticatesAsIt() {
        try (RedisServer server = RedisServer.builder().aclUser("locker", "pa55").start()) {
            assertThatThrownBy(() -> RawClient.call(server.port(), "GET", "key"))
                    .isInstanceOf(RedisServer.ErrorReply.class)
                    .hasMessageStartingWith("NOAUTH");

            assertThat(server.execute("ACL", "WHOAMI")).isEqualTo("locker");
            assertThat(server.execute("SET", "key", "value")).isEqualTo("OK");
            assertThat(server.execute("PUBLISH", "channel", "hello")).isEqualTo(0L);
            assertThat(server.uri()).isEqualTo("redis://locker:pa55@127.0.0.1:" + server.port());
        }
    }

    @Test
    void aclUser_withRules_getsOnlyThoseRules_andTheTestKitStillStartsStopsAndRestartsIt() {
        try (RedisServer server = RedisServer.builder().aclUser("app", "pw", "~app:* +@connection +@string +info").start()) {
            assertThat(server.execute("SET", "app:key", "value")).isEqualTo("OK");
            assertThatThrownBy(() -> server.execute("SET", "other:key", "value"))
                    .isInstanceOf(RedisServer.ErrorReply.class).hasMessageStartingWith("NOPERM");
            assertThatThrownBy(() -> server.execute("FLUSHALL"))
                    .isInstanceOf(RedisServer.ErrorReply.class).hasMessageStartingWith("NOPERM");
            server.restart();
            assertThat(server.execute("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void aclUser_withWrongPassword_isRefused() {
        try (RedisServer server = RedisServer.builder().aclUser("locker", "pa55").start()) {
            assertThatThrownBy(() -> RawClient.call(server.port(), "AUTH", "locker", "wrong"))
                    .isInstanceOf(RedisServer.ErrorReply.class)
                    .hasMessageStartingWith("WRONGPASS");
        }
    }

    @Test
    void aclUserAndPassword_bothWork() {
        try (RedisServer server = RedisServer.builder().password("s3cret").aclUser("locker", "pa55").start()) {
            assertThat(RawClient.call(server.port(), "AUTH", "s3cret")).isEqualTo("OK");
            assertThat(server.execute("ACL", "WHOAMI")).isEqualTo("locker");
        }
    }

    @Test
    void password_survivesRestart_andStopStillWorks() {
        try (RedisServer server = RedisServer.builder().password("s3cret").start()) {
            server.restart();
            assertThat(server.execute("PING")).isEqualTo("PONG");
            long pid = server.pid();
            server.stop();
            assertThat(Poll.isDead(pid)).isTrue();
        }
    }

    @Test
    void uri_percentEncodesCredentials() {
        try (RedisServer server = RedisServer.builder().aclUser("us@r", "p:w/%").start()) {
            assertThat(server.uri()).isEqualTo("redis://us%40r:p%3Aw%2F%25@127.0.0.1:" + server.port());
            assertThat(server.execute("ACL", "WHOAMI")).isEqualTo("us@r");
        }
    }

    @Test
    void passwordsWithSpacesAndUriDelimiters_work_andToStringHidesThem() {
        String password = "kQ7v/@:%# Zx9w";
        try (RedisServer server = RedisServer.builder().password(password).start();
             RedisServer acl = RedisServer.builder().aclUser("weak", password).start()) {
            assertThat(server.execute("PING")).isEqualTo("PONG");
            assertThat(server.uri()).isEqualTo("redis://:kQ7v%2F%40%3A%25%23%20Zx9w@127.0.0.1:" + server.port());
            assertThat(acl.execute("ACL", "WHOAMI")).isEqualTo("weak");
            assertThat(server.toString()).doesNotContain("kQ7v").contains("://:***@127.0.0.1:");
            assertThat(acl.toString()).doesNotContain("kQ7v").contains("://weak:***@127.0.0.1:");
        }
    }

    @Test
    void tls_serverSpeaksOnlyTls_andExecuteUsesIt() {
        org.junit.jupiter.api.Assumptions.assumeTrue(RedisServer.tlsSupported(),
                "needs openssl and a redis-server built with TLS");
        try (RedisServer server = RedisServer.builder().tls(true).password("s3cret").start()) {
            assertThat(server.uri()).isEqualTo("rediss://:s3cret@127.0.0.1:" + server.port() + "?verifyPeer=NONE");
            assertThat(server.execute("SET", "key", "value")).isEqualTo("OK");
            assertThat(server.execute("CONFIG", "GET", "port")).isEqualTo(List.of("port", "0"));
            assertThatThrownBy(() -> RawClient.call(server.port(), "PING"))
                    .isInstanceOf(UncheckedIOException.class);
        }
    }
}

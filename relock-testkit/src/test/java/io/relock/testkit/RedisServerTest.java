package io.relock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class RedisServerTest {

    @Test
    void start_givesAServerOnLoopbackThatAnswersCommands() {
        try (RedisServer server = RedisServer.start()) {
            assertThat(server.host()).isEqualTo("127.0.0.1");
            assertThat(server.port()).isPositive();
            assertThat(server.uri()).isEqualTo("redis://127.0.0.1:" + server.port());
            assertThat(server.isRunning()).isTrue();
            assertThat(ProcessHandle.of(server.pid())).isPresent();

            assertThat(server.execute("PING")).isEqualTo("PONG");
            assertThat(server.execute("SET", "key", "välue")).isEqualTo("OK");
            assertThat(server.execute("GET", "key")).isEqualTo("välue");
            assertThat(server.execute("GET", "missing")).isNull();
            assertThat(server.execute("INCR", "counter")).isEqualTo(1L);
            assertThat(server.execute("RPUSH", "list", "a", "b")).isEqualTo(2L);
            assertThat(server.execute("LRANGE", "list", "0", "-1")).isEqualTo(List.of("a", "b"));
        }
    }

    @Test
    void binaryVersion_isTheVersionTheServerReports() {
        try (RedisServer server = RedisServer.start()) {
            String version = RedisServer.binaryVersion();
            assertThat((String) server.execute("INFO", "server")).contains("redis_version:" + version + "\r\n");
            String[] parts = version.split("\\.");
            int major = Integer.parseInt(parts[0]);
            int minor = Integer.parseInt(parts[1]);
            assertThat(RedisServer.binaryAtLeast(major, minor)).isTrue();
            assertThat(RedisServer.binaryAtLeast(major, minor + 1)).isFalse();
            assertThat(RedisServer.binaryAtLeast(major + 1, 0)).isFalse();
            assertThat(RedisServer.binaryAtLeast(major - 1, 99)).isTrue();
        }
    }

    @Test
    void start_withoutPersistence_configuresNoSnapshotsAndNoAppendOnlyFile() throws Exception {
        try (RedisServer server = RedisServer.start()) {
            assertThat(server.execute("CONFIG", "GET", "save")).isEqualTo(List.of("save", ""));
            assertThat(server.execute("CONFIG", "GET", "appendonly")).isEqualTo(List.of("appendonly", "no"));
            assertThat(server.execute("CONFIG", "GET", "dir"))
                    .isEqualTo(List.of("dir", server.dataDir().toRealPath().toString()));
        }
    }

    @Test
    void environment_reachesTheServerProcess_alsoAfterARestart(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp)
            throws Exception {
        // redis-server overwrites its own environment block (setproctitle), so a wrapper records what it got.
        java.nio.file.Path seen = tmp.resolve("seen.txt");
        java.nio.file.Path wrapper = tmp.resolve("redis-server-wrapper");
        Files.writeString(wrapper, "#!/bin/sh\necho \"$RELOCK_TESTKIT_PROBE\" >> '" + seen + "'\nexec '"
                + RedisServer.binary() + "' \"$@\"\n");
        assertThat(wrapper.toFile().setExecutable(true)).isTrue();

        try (RedisServer server = RedisServer.builder().binary(wrapper).environment("RELOCK_TESTKIT_PROBE", "forty two")
                .start()) {
            assertThat(server.execute("PING")).isEqualTo("PONG");
            server.restart();
        }

        assertThat(Files.readAllLines(seen)).containsExactly("forty two", "forty two");
        assertThatThrownBy(() -> RedisServer.builder().environment("A=B", "x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'A=B'");
        assertThatThrownBy(() -> RedisServer.builder().environment(" ", "x"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void twoServers_getDifferentPortsAndSeparateData() {
        try (RedisServer first = RedisServer.start(); RedisServer second = RedisServer.start()) {
            assertThat(first.port()).isNotEqualTo(second.port());
            first.execute("SET", "where", "first");
            assertThat(second.execute("GET", "where")).isNull();
        }
    }

    @Test
    void execute_errorReply_throwsWithTheReplyText() {
        try (RedisServer server = RedisServer.start()) {
            server.execute("SET", "text", "x");
            assertThatThrownBy(() -> server.execute("INCR", "text"))
                    .isInstanceOf(RedisServer.ErrorReply.class)
                    .hasMessageStartingWith("ERR value is not an integer");
            assertThatThrownBy(() -> server.execute("NO-SUCH-COMMAND"))
                    .isInstanceOf(RedisServer.ErrorReply.class)
                    .hasMessageContaining("unknown command");
        }
    }

    @Test
    void execute_errorInsideAnArray_isReturnedAsAnElement() {
        try (RedisServer server = RedisServer.start()) {
            Object reply = server.execute("EVAL", "return {1, redis.error_reply('MYERR boom'), 'x'}", "0");
            assertThat(reply).isInstanceOf(List.class);
            List<?> elements = (List<?>) reply;
            assertThat(elements).hasSize(3);
            assertThat(elements.get(0)).isEqualTo(1L);
            assertThat(elements.get(1)).isInstanceOf(RedisServer.ErrorReply.class)
                    .extracting(e -> ((RedisServer.ErrorReply) e).getMessage()).isEqualTo("MYERR boom");
            assertThat(elements.get(2)).isEqualTo("x");
        }
    }

    @Test
    void stop_shutsDownAndWaitsForTheProcess() {
        try (RedisServer server = RedisServer.start()) {
            long pid = server.pid();
            server.stop();
            assertThat(server.isRunning()).isFalse();
            assertThat(Poll.isDead(pid)).isTrue();
            assertThatThrownBy(() -> server.execute("PING")).isInstanceOf(UncheckedIOException.class);
            server.stop();  // a second stop is harmless
        }
    }

    @Test
    void kill_leavesNoProcess() {
        try (RedisServer server = RedisServer.start()) {
            long pid = server.pid();
            server.kill();
            assertThat(server.isRunning()).isFalse();
            assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty();
        }
    }

    @Test
    void restart_withoutPersistence_losesDataButKeepsPort() {
        try (RedisServer server = RedisServer.start()) {
            int port = server.port();
            long oldPid = server.pid();
            server.execute("SET", "key", "value");

            server.restart();

            assertThat(server.port()).isEqualTo(port);
            assertThat(server.pid()).isNotEqualTo(oldPid);
            assertThat(server.execute("GET", "key")).isNull();
        }
    }

    @Test
    void restart_withPersistence_keepsData() {
        try (RedisServer server = RedisServer.builder().persistence(true).start()) {
            assertThat(server.execute("CONFIG", "GET", "appendfsync")).isEqualTo(List.of("appendfsync", "always"));
            server.execute("SET", "key", "value");

            server.restart();

            assertThat(server.execute("GET", "key")).isEqualTo("value");
        }
    }

    @Test
    void restart_withPersistence_afterKill_keepsAcknowledgedWrites() {
        try (RedisServer server = RedisServer.builder().persistence(true).start()) {
            server.execute("SET", "key", "value");
            server.kill();

            server.restart();

            assertThat(server.execute("GET", "key")).isEqualTo("value");
        }
    }

    @Test
    void pause_makesCommandsTimeOut_andResumeAnswersAgain() {
        try (RedisServer server = RedisServer.start()) {
            server.pause();
            assertThat(server.isRunning()).isTrue();
            assertThatThrownBy(() -> server.execute(Duration.ofMillis(300), "PING"))
                    .isInstanceOf(UncheckedIOException.class)
                    .hasCauseInstanceOf(SocketTimeoutException.class);

            server.resume();

            assertThat(server.execute(Duration.ofMillis(300), "PING")).isEqualTo("PONG");
        }
    }

    @Test
    void stop_ofPausedServer_resumesAndShutsDown() {
        try (RedisServer server = RedisServer.start()) {
            long pid = server.pid();
            server.pause();
            server.stop();
            assertThat(Poll.isDead(pid)).isTrue();
        }
    }

    @Test
    void close_killsDeletesDataDirAndIsIdempotent() {
        RedisServer server = RedisServer.start();
        long pid = server.pid();
        assertThat(server.dataDir()).isDirectory();

        server.close();
        server.close();

        assertThat(Poll.isDead(pid)).isTrue();
        assertThat(server.dataDir()).doesNotExist();
        assertThatThrownBy(server::restart).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void runningServer_isRecordedInAPidFile_removedWhenStopped() {
        try (RedisServer server = RedisServer.start()) {
            java.nio.file.Path pidFile = ProcessJanitor.PID_DIR.resolve(
                    ProcessHandle.current().pid() + "-" + server.pid() + ".pid");
            assertThat(pidFile).exists();
            assertThat(pidFile).content().contains("server=" + server.pid(), "dir=" + server.dataDir());

            server.kill();

            assertThat(pidFile).doesNotExist();
        }
    }

    @Test
    void start_failure_reportsTheTailOfTheLog() {
        assertThatThrownBy(() -> RedisServer.builder().arg("--no-such-option", "1").start())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("failed to start")
                .hasMessageContaining("no-such-option");
    }

    @Test
    void arg_extraArgumentsReachTheServer() {
        try (RedisServer server = RedisServer.builder().arg("--maxmemory", "10mb").start()) {
            assertThat(server.execute("CONFIG", "GET", "maxmemory")).isEqualTo(List.of("maxmemory", "10485760"));
        }
    }

    @Test
    void builder_rejectsBadArgumentsAtOnce() {
        assertThatThrownBy(() -> RedisServer.builder().password("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisServer.builder().password("line\nbreak"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageNotContaining("break");
        assertThatThrownBy(() -> RedisServer.builder().aclUser("default", "pw"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisServer.builder().arg("--x", null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void logFile_isWrittenByTheServer() throws Exception {
        try (RedisServer server = RedisServer.start()) {
            assertThat(server.logFile()).exists();
            assertThat(Files.readString(server.logFile())).containsIgnoringCase("ready to accept connections");
        }
    }
}

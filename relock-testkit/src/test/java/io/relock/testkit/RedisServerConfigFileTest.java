package io.relock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class RedisServerConfigFileTest {

    @Test
    void configFile_isReadFirst_andTheKitsCommandLineOverridesIt() throws Exception {
        try (RedisServer server = RedisServer.builder()
                .configFile("maxmemory-policy allkeys-lru\nport 1\nappendonly yes\n")
                .start()) {
            assertThat(server.execute("CONFIG", "GET", "maxmemory-policy"))
                    .isEqualTo(List.of("maxmemory-policy", "allkeys-lru"));
            assertThat(server.port()).isNotEqualTo(1);
            assertThat(server.execute("CONFIG", "GET", "appendonly")).isEqualTo(List.of("appendonly", "no"));
            Path file = server.dataDir().resolve("redis.conf");
            assertThat(Files.readString(file)).startsWith("maxmemory-policy allkeys-lru");
        }
    }

    @Test
    void configFile_isKeptAcrossRestart_withWhatConfigRewriteWroteToIt() {
        try (RedisServer server = RedisServer.builder().configFile("maxmemory-policy allkeys-lru\n").start()) {
            server.execute("SET", "volatile", "gone after restart");
            server.execute("CONFIG", "SET", "maxmemory-policy", "volatile-lfu");
            assertThat(server.execute("CONFIG", "REWRITE")).isEqualTo("OK");

            server.restart();

            assertThat(server.execute("CONFIG", "GET", "maxmemory-policy"))
                    .isEqualTo(List.of("maxmemory-policy", "volatile-lfu"));
            assertThat(server.execute("GET", "volatile")).isNull();  // data files are still deleted
        }
    }

    @Test
    void configFile_withSentinelArgument_startsASentinelWithTheSameBinary() {
        try (RedisServer primary = RedisServer.start();
                RedisServer sentinel = RedisServer.builder()
                        .configFile("sentinel monitor watched 127.0.0.1 " + primary.port() + " 1\n")
                        .arg("--sentinel")
                        .start()) {
            assertThat(String.valueOf(sentinel.execute("INFO", "server"))).contains("redis_mode:sentinel");
            assertThat(sentinel.execute("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "watched"))
                    .isEqualTo(List.of("127.0.0.1", String.valueOf(primary.port())));
            assertThatThrownBy(() -> sentinel.execute("SET", "k", "v")).isInstanceOf(RedisServer.ErrorReply.class);

            sentinel.restart();  // graceful SHUTDOWN, then the same state from the rewritten file

            assertThat(sentinel.execute("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "watched"))
                    .isEqualTo(List.of("127.0.0.1", String.valueOf(primary.port())));
            sentinel.stop();
            assertThat(sentinel.isRunning()).isFalse();
        }
    }

    @Test
    void configFile_rejectsNull() {
        assertThatThrownBy(() -> RedisServer.builder().configFile(null)).isInstanceOf(NullPointerException.class);
    }
}

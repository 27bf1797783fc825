package io.relock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RedisBinaryTest {

    @TempDir
    Path temp;

    @Test
    void envVar_winsOverPath() throws Exception {
        Path fromEnv = fakeExecutable(temp.resolve("env"), "my-redis");
        Path pathDir = temp.resolve("path");
        fakeExecutable(pathDir, "redis-server");

        RedisBinary.Located located = RedisBinary.locate(fromEnv.toString(), pathDir.toString(),
                "Linux", "amd64", temp.resolve("cache"));

        assertThat(located.path()).isEqualTo(fromEnv);
        assertThat(located.source()).contains("RELOCK_REDIS_SERVER");
    }

    @Test
    void envVar_pointingAtNothing_failsClearly() {
        String missing = temp.resolve("nope").toString();
        assertThatThrownBy(() -> RedisBinary.locate(missing, "", "Linux", "amd64", temp))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("RELOCK_REDIS_SERVER=" + missing);
    }

    @Test
    void path_isSearchedInOrder_skippingNonExecutables() throws Exception {
        Path notExecutable = temp.resolve("a");
        Files.createDirectories(notExecutable);
        Files.writeString(notExecutable.resolve("redis-server"), "not executable");
        Path empty = temp.resolve("b");
        Files.createDirectories(empty);
        Path good = fakeExecutable(temp.resolve("c"), "redis-server");
        fakeExecutable(temp.resolve("d"), "redis-server");
        String path = String.join(java.io.File.pathSeparator, notExecutable.toString(), empty.toString(), "",
                good.getParent().toString(), temp.resolve("d").toString());

        RedisBinary.Located located = RedisBinary.locate(null, path, "Linux", "amd64", temp.resolve("cache"));

        assertThat(located.path()).isEqualTo(good);
        assertThat(located.source()).isEqualTo("from PATH");
    }

    @Test
    void emptyPath_fallsBackToTheEmbeddedBinary_whichRuns() throws Exception {
        String os = System.getProperty("os.name");
        String arch = System.getProperty("os.arch");
        assumeTrue(RedisBinary.embeddedResourceName(os, arch) != null, "embedded-redis has no binary for " + arch);
        Path cache = temp.resolve("cache");

        RedisBinary.Located located = RedisBinary.locate(null, "", os, arch, cache);

        assertThat(located.source()).startsWith("embedded ");
        assertThat(located.path().getParent()).isEqualTo(cache);
        assertThat(Files.isExecutable(located.path())).isTrue();
        try (RedisServer server = RedisServer.builder().binary(located.path()).persistence(true).start()) {
            assertThat((String) server.execute("INFO", "server")).contains("redis_version:6.2.");
            server.execute("SET", "key", "value");
            server.restart();
            assertThat(server.execute("GET", "key")).isEqualTo("value");
        }
    }

    @Test
    void envVarEmbedded_choosesTheEmbeddedBinary_evenWithOneOnThePath() throws Exception {
        Path pathDir = temp.resolve("path");
        fakeExecutable(pathDir, "redis-server");
        assumeTrue(RedisBinary.embeddedResourceName(System.getProperty("os.name"), System.getProperty("os.arch")) != null,
                "embedded-redis has no binary for this platform");

        RedisBinary.Located located = RedisBinary.locate("embedded", pathDir.toString(), System.getProperty("os.name"),
                System.getProperty("os.arch"), temp.resolve("cache"));

        assertThat(located.path().getParent()).isEqualTo(temp.resolve("cache"));
        assertThat(located.source()).startsWith("embedded ").contains("RELOCK_REDIS_SERVER=embedded");
    }

    @Test
    void extraction_byConcurrentCallers_yieldsOneCompleteBinary() throws Exception {
        String os = System.getProperty("os.name");
        String arch = System.getProperty("os.arch");
        String resource = RedisBinary.embeddedResourceName(os, arch);
        assumeTrue(resource != null, "embedded-redis has no binary for " + arch);
        Path cache = temp.resolve("cache");
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Path>> results = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                Callable<Path> extract = () -> RedisBinary.extractEmbedded(resource, cache);
                results.add(pool.submit(extract));
            }
            for (Future<Path> result : results) {
                assertThat(result.get()).isEqualTo(cache.resolve(resource));
            }
        } finally {
            pool.shutdownNow();
        }
        long expectedSize = RedisBinary.class.getResource("/" + resource).openConnection().getContentLengthLong();
        assertThat(Files.size(cache.resolve(resource))).isEqualTo(expectedSize);
        try (var files = Files.list(cache)) {
            assertThat(files).containsExactly(cache.resolve(resource));  // no partial files left behind
        }
    }

    @Test
    void extraction_replacesATruncatedCopy() throws Exception {
        String resource = "redis-server-6.2.6-v5-linux-amd64";
        Path cache = temp.resolve("cache");
        fakeExecutable(cache, resource);

        Path extracted = RedisBinary.extractEmbedded(resource, cache);

        long expectedSize = RedisBinary.class.getResource("/" + resource).openConnection().getContentLengthLong();
        assertThat(Files.size(extracted)).isEqualTo(expectedSize);
    }

    @Test
    void embeddedResourceName_mapsPlatforms() {
        assertThat(RedisBinary.embeddedResourceName("Linux", "amd64")).isEqualTo("redis-server-6.2.6-v5-linux-amd64");
        assertThat(RedisBinary.embeddedResourceName("Linux", "x86_64")).isEqualTo("redis-server-6.2.6-v5-linux-amd64");
        assertThat(RedisBinary.embeddedResourceName("Linux", "aarch64")).isEqualTo("redis-server-6.2.7-linux-arm64");
        assertThat(RedisBinary.embeddedResourceName("Mac OS X", "aarch64")).isEqualTo("redis-server-6.2.6-v5-darwin-arm64");
        assertThat(RedisBinary.embeddedResourceName("Windows 11", "amd64")).isNull();
        for (String platform : List.of("linux-amd64", "linux-arm64", "linux-386", "darwin-amd64", "darwin-arm64")) {
            String[] parts = platform.split("-");
            String name = RedisBinary.embeddedResourceName(parts[0].equals("linux") ? "Linux" : "Mac OS X",
                    parts[1].equals("386") ? "x86" : parts[1]);
            assertThat(RedisBinary.class.getResource("/" + name)).as(name).isNotNull();
        }
    }

    @Test
    void unsupportedPlatform_withNothingElse_failsWithAClearMessage() {
        assertThatThrownBy(() -> RedisBinary.locate(null, "", "Windows 11", "amd64", temp))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("No redis-server found")
                .hasMessageContaining("os.name=Windows 11")
                .hasMessageContaining("RELOCK_REDIS_SERVER");
    }

    @Test
    void binary_isExecutableAndStable() {
        Path first = RedisServer.binary();
        assertThat(Files.isExecutable(first)).isTrue();
        assertThat(RedisServer.binary()).isSameAs(first);
    }

    private static Path fakeExecutable(Path dir, String name) throws Exception {
        Files.createDirectories(dir);
        Path file = dir.resolve(name);
        Files.writeString(file, "#!/bin/sh\nexit 0\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
        return file;
    }
}

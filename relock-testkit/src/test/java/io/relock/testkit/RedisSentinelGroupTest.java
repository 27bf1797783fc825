package io.relock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class RedisSentinelGroupTest {

    private static final Duration DEADLINE = Duration.ofSeconds(20);

    @Test
    void start_replicatesThroughAProxy_andCutReplicationHoldsUntilRestored() {
        try (RedisSentinelGroup group = RedisSentinelGroup.start()) {
            RedisServer primary = group.primary();
            assertThat(group.nodes()).hasSize(2).startsWith(primary);
            assertThat(group.replicas()).hasSize(1);
            RedisServer replica = group.replicas().get(0);
            assertThat(replica).isNotSameAs(primary);
            assertThat(group.sentinels()).hasSize(3);
            assertThat(group.masterName()).isEqualTo("mymaster");

            List<Integer> sentinelPorts = group.sentinels().stream().map(RedisServer::port).toList();
            assertThat(group.sentinelUris()).containsExactlyElementsOf(
                    sentinelPorts.stream().map(p -> "redis://127.0.0.1:" + p).toList());
            assertThat(group.sentinelUri()).isEqualTo("redis-sentinel://" + sentinelPorts.stream()
                    .map(p -> "127.0.0.1:" + p).collect(Collectors.joining(",")) + "#mymaster");

            // The replica goes through its proxy, yet the sentinels know it (and each other) by real addresses.
            assertThat(info(replica).get("role")).isEqualTo("slave");
            assertThat(info(replica).get("master_port")).isNotEqualTo(String.valueOf(primary.port()));
            for (RedisServer sentinel : group.sentinels()) {
                assertThat(pairs(sentinel.execute("SENTINEL", "MASTER", "mymaster")))
                        .containsEntry("down-after-milliseconds", "1000")
                        .containsEntry("failover-timeout", "3000");
                assertThat(masterAddress(sentinel)).containsExactly("127.0.0.1", String.valueOf(primary.port()));
                assertThat(entries(sentinel, "REPLICAS")).extracting(e -> e.get("ip") + ":" + e.get("port"))
                        .containsExactly("127.0.0.1:" + replica.port());
                assertThat(entries(sentinel, "SENTINELS")).extracting(e -> e.get("ip") + ":" + e.get("port"))
                        .containsExactlyInAnyOrderElementsOf(sentinelPorts.stream()
                                .filter(p -> p != sentinel.port()).map(p -> "127.0.0.1:" + p).toList());
            }

            primary.execute("SET", "before-cut", "seen");
            Poll.until("the replica sees the write", DEADLINE,
                    () -> "seen".equals(replica.execute("GET", "before-cut")));

            group.cutReplication();
            primary.execute("SET", "during-cut", "unseen");
            // A sentinel seeing a replica whose master_port is not the primary's tries to point it straight
            // at the primary ("+fix-slave-config", on an INFO refresh, failover-timeout after discovering it),
            // which would bypass the proxy. Wait until every sentinel has tried, then check nothing moved.
            String primaryPort = String.valueOf(primary.port());
            Poll.until("every sentinel tried to repoint the replica, or one succeeded", Duration.ofSeconds(30),
                    () -> primaryPort.equals(info(replica).get("master_port")) || group.sentinels().stream()
                            .allMatch(s -> log(s).contains("+fix-slave-config slave 127.0.0.1:" + replica.port())));
            assertThat(info(replica).get("master_port")).as("the replica's master port").isNotEqualTo(primaryPort);
            assertThat(info(replica).get("master_link_status")).isEqualTo("down");
            assertThat(replica.execute("GET", "during-cut")).isNull();
            assertThatThrownBy(() -> group.awaitReplicated(Duration.ofMillis(500)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("did not catch up");
            assertThat(group.primary()).isSameAs(primary);  // the sentinels saw no reason to fail over

            group.restoreReplication();
            group.awaitReplicated(DEADLINE);
            assertThat(replica.execute("GET", "during-cut")).isEqualTo("unseen");

            // A restarted replica (empty: no persistence) comes back behind its proxy and resynchronizes.
            replica.restart();
            assertThat(info(replica).get("role")).isEqualTo("slave");
            assertThat(info(replica).get("master_port")).isNotEqualTo(primaryPort);
            group.awaitReplicated(DEADLINE);
            assertThat(replica.execute("GET", "before-cut")).isEqualTo("seen");
        }
    }

    /** With passwords on the data nodes and (another) on the sentinels, as a production group would have. */
    @Test
    void failover_promotesTheReplica_whichTheSentinelsReportAndWhichTakesWrites() {
        try (RedisSentinelGroup group = RedisSentinelGroup.builder().password("data pw/#@:%")
                .sentinelPassword("watch pw/#@:%").start()) {
            assertThat(group.sentinelUris()).allMatch(u -> u.startsWith("redis://:watch%20pw%2F%23%40%3A%25@"));
            assertThat(group.primary().uri()).startsWith("redis://:data%20pw%2F%23%40%3A%25@");
            RedisServer old = group.primary();
            RedisServer replica = group.replicas().get(0);
            old.execute("SET", "before", "replicated");
            group.awaitReplicated(DEADLINE);

            RedisServer promoted = group.failover();

            assertThat(promoted).isSameAs(replica);
            assertThat(old.isRunning()).isFalse();
            assertThat(Poll.isDead(old.pid())).isTrue();
            assertThat(info(promoted).get("role")).isEqualTo("master");
            for (RedisServer sentinel : group.sentinels()) {
                assertThat(masterAddress(sentinel)).containsExactly("127.0.0.1", String.valueOf(promoted.port()));
            }
            assertThat(group.primary()).isSameAs(promoted);
            assertThat(group.replicas()).containsExactly(old);
            assertThat(promoted.execute("GET", "before")).isEqualTo("replicated");
            assertThat(promoted.execute("SET", "after", "written")).isEqualTo("OK");

            // Restarted, the killed primary comes back as a replica of the promoted node, through a proxy.
            old.restart();
            assertThat(info(old).get("role")).isEqualTo("slave");
            group.awaitReplicated(DEADLINE);
            assertThat(old.execute("GET", "after")).isEqualTo("written");
            assertThat(info(old).get("master_port")).isNotEqualTo(String.valueOf(promoted.port()));
            Poll.until("the sentinels list the rejoined node as a connected replica", DEADLINE,
                    () -> group.sentinels().stream().allMatch(s -> hasHealthyReplica(s, old.port())));
        }
    }

    @Test
    void failover_withTwoReplicas_relinksTheOtherReplicaThroughAProxy() {
        try (RedisSentinelGroup group = RedisSentinelGroup.builder()
                .masterName("locks").replicas(2).downAfter(Duration.ofMillis(1200)).start()) {
            assertThat(group.sentinelUri()).endsWith("#locks");
            for (RedisServer sentinel : group.sentinels()) {
                assertThat(pairs(sentinel.execute("SENTINEL", "MASTER", "locks")))
                        .containsEntry("down-after-milliseconds", "1200")
                        .containsEntry("failover-timeout", "3600")
                        .containsEntry("quorum", "2");
            }
            RedisServer old = group.primary();
            List<RedisServer> replicas = group.replicas();
            assertThat(replicas).hasSize(2);

            RedisServer promoted = group.failover();

            assertThat(replicas).contains(promoted);
            RedisServer other = replicas.get(0) == promoted ? replicas.get(1) : replicas.get(0);
            assertThat(group.replicas()).containsExactly(old, other);  // start order; old is not running
            assertThat(group.primary()).isSameAs(promoted).isNotSameAs(old);
            for (RedisServer sentinel : group.sentinels()) {
                assertThat(sentinel.execute("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "locks"))
                        .isEqualTo(List.of("127.0.0.1", String.valueOf(promoted.port())));
            }

            promoted.execute("SET", "after-failover", "1");
            group.awaitReplicated(DEADLINE);
            assertThat(other.execute("GET", "after-failover")).isEqualTo("1");
            assertThat(info(other).get("role")).isEqualTo("slave");
            assertThat(info(other).get("master_port")).isNotEqualTo(String.valueOf(promoted.port()));
            Poll.until("the sentinels list the other replica under the new primary", DEADLINE,
                    () -> group.sentinels().stream().allMatch(s -> hasHealthyReplica(s, "locks", other.port())));

            // The new link is under the group's control too.
            group.cutReplication();
            promoted.execute("SET", "cut", "1");
            assertThatThrownBy(() -> group.awaitReplicated(Duration.ofSeconds(1)))
                    .isInstanceOf(IllegalStateException.class);
            assertThat(other.execute("GET", "cut")).isNull();
            group.restoreReplication();
            group.awaitReplicated(DEADLINE);
            assertThat(other.execute("GET", "cut")).isEqualTo("1");
        }
    }

    @Test
    void close_killsEveryProcessAndDeletesTheirDirectories_andIsIdempotent() {
        RedisSentinelGroup group = RedisSentinelGroup.start();
        List<RedisServer> all = new ArrayList<>(group.nodes());
        all.addAll(group.sentinels());
        assertThat(all).hasSize(5);
        Map<Long, Path> dirs = new HashMap<>();
        for (RedisServer server : all) {
            assertThat(server.isRunning()).isTrue();
            dirs.put(server.pid(), server.dataDir());
        }
        assertThat(dirs.values()).allMatch(dir -> dir.startsWith(ProcessJanitor.BASE_DIR)).allMatch(Files::isDirectory);
        Path sentinelConfig = group.sentinels().get(0).dataDir().resolve("redis.conf");
        assertThat(sentinelConfig).content().contains("sentinel monitor mymaster 127.0.0.1 ");

        group.close();

        for (long pid : dirs.keySet()) {
            Poll.until("process " + pid + " is gone", DEADLINE, () -> Poll.isDead(pid));
        }
        assertThat(dirs.values()).noneMatch(Files::exists);
        group.close();
        assertThatThrownBy(group::primary).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatThrownBy(group::cutReplication).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> group.awaitFailover(Duration.ofSeconds(1))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void builder_rejectsBadOptionsAtOnce() {
        assertThatThrownBy(() -> RedisSentinelGroup.builder().masterName("my master"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisSentinelGroup.builder().masterName(""))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisSentinelGroup.builder().replicas(-1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisSentinelGroup.builder().downAfter(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static Map<String, String> info(RedisServer server) {
        Map<String, String> values = new HashMap<>();
        for (String line : String.valueOf(server.execute("INFO", "replication")).split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0) {
                values.put(line.substring(0, colon), line.substring(colon + 1));
            }
        }
        return values;
    }

    private static String log(RedisServer server) {
        try {
            return Files.readString(server.logFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<Object> masterAddress(RedisServer sentinel) {
        @SuppressWarnings("unchecked")
        List<Object> address = (List<Object>) sentinel.execute("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster");
        return address;
    }

    /** SENTINEL REPLICAS / SENTINELS: a list of flat [k1, v1, k2, v2, ...] arrays. */
    private static List<Map<String, String>> entries(RedisServer sentinel, String what) {
        return entries(sentinel, what, "mymaster");
    }

    private static List<Map<String, String>> entries(RedisServer sentinel, String what, String masterName) {
        List<Map<String, String>> result = new ArrayList<>();
        for (Object entry : (List<?>) sentinel.execute("SENTINEL", what, masterName)) {
            result.add(pairs(entry));
        }
        return result;
    }

    private static Map<String, String> pairs(Object flatArray) {
        List<?> flat = (List<?>) flatArray;
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            map.put(String.valueOf(flat.get(i)), String.valueOf(flat.get(i + 1)));
        }
        return map;
    }

    private static boolean hasHealthyReplica(RedisServer sentinel, int port) {
        return hasHealthyReplica(sentinel, "mymaster", port);
    }

    private static boolean hasHealthyReplica(RedisServer sentinel, String masterName, int port) {
        return entries(sentinel, "REPLICAS", masterName).stream().anyMatch(e -> Objects.equals(e.get("port"), "" + port)
                && "slave".equals(e.get("flags")) && "ok".equals(e.get("master-link-status")));
    }
}

package io.relock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RedisClusterGroupTest {

    private static final Duration GENEROUS = Duration.ofSeconds(30);

    /** Three primaries without replicas, shared by the tests that do not kill anything. */
    private static RedisClusterGroup cluster;

    @BeforeAll
    static void startCluster() {
        long began = System.nanoTime();
        cluster = RedisClusterGroup.start();
        System.err.println("RedisClusterGroupTest: 3 primaries formed in " + millisSince(began) + " ms");
    }

    @AfterAll
    static void closeCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void start_assignsAllSlotsAndEveryNodeReportsOk() {
        assertThat(cluster.nodes()).hasSize(3);
        assertThat(cluster.primaries()).containsExactlyElementsOf(cluster.nodes());
        assertThat(cluster.seedUris()).containsExactlyElementsOf(
                cluster.nodes().stream().map(node -> "redis://127.0.0.1:" + node.port()).toList());
        assertEveryNodeOkWithAllSlotsAgreed(cluster, 3);
    }

    @Test
    void slotOf_agreesWithClusterKeyslot() {
        List<String> keys = new ArrayList<>(List.of("", "a", "foo", "bar", "123456789", "lock:order-42",
                "{user1000}.following", "{user1000}.followers", "user1000", "{}", "{}foo", "foo{}", "foo{}{bar}",
                "foo{{bar}}zap", "foo{bar}{zap}", "{", "}", "}{", "{a", "a}", "{a}", "x{a}y", "x{}y{a}",
                "ünïcødé", "{ü}1", "😀 emoji", "relock:{tenant:7}:lock"));
        Random random = new Random(42);
        for (int i = 0; i < 200; i++) {
            StringBuilder key = new StringBuilder();
            int length = random.nextInt(20);
            for (int j = 0; j < length; j++) {
                key.append("ab{}:-_xé".charAt(random.nextInt(9)));
            }
            keys.add(key.toString());
        }
        RedisServer node = cluster.nodes().get(0);
        Map<String, Long> mismatches = new HashMap<>();
        for (String key : keys) {
            long expected = (Long) node.execute("CLUSTER", "KEYSLOT", key);
            if (RedisClusterGroup.slotOf(key) != expected) {
                mismatches.put(key, expected);
            }
        }
        assertThat(mismatches).as("keys whose slot differs from CLUSTER KEYSLOT (key -> Redis' slot)").isEmpty();

        assertThat(RedisClusterGroup.slotOf("123456789")).isEqualTo(0x31C3);  // the CRC16/XMODEM check value
        assertThat(RedisClusterGroup.slotOf("{user1000}.following"))
                .isEqualTo(RedisClusterGroup.slotOf("{user1000}.followers"))
                .isEqualTo(RedisClusterGroup.slotOf("user1000"));
        assertThat(RedisClusterGroup.slotOf("foo{}{bar}")).as("empty tag: the whole key is hashed")
                .isNotEqualTo(RedisClusterGroup.slotOf("bar"));
        assertThat(RedisClusterGroup.slotOf("")).isZero();
    }

    @Test
    void key_isStoredOnItsPrimary_andTheOtherPrimariesAnswerMoved() {
        Map<RedisServer, String> keyPerOwner = new HashMap<>();
        for (int i = 0; keyPerOwner.size() < 3; i++) {
            String key = "placement:" + i;
            keyPerOwner.putIfAbsent(cluster.primaryFor(key), key);
        }
        for (Map.Entry<RedisServer, String> entry : keyPerOwner.entrySet()) {
            RedisServer owner = entry.getKey();
            String key = entry.getValue();
            int slot = RedisClusterGroup.slotOf(key);
            assertThat(cluster.primaryForSlot(slot)).isSameAs(owner);

            assertThat(owner.execute("SET", key, "v-" + key)).isEqualTo("OK");
            assertThat(owner.execute("GET", key)).isEqualTo("v-" + key);
            assertThat(owner.execute("CLUSTER", "COUNTKEYSINSLOT", Integer.toString(slot))).isEqualTo(1L);
            for (RedisServer other : cluster.primaries()) {
                if (other != owner) {
                    assertThatThrownBy(() -> other.execute("GET", key))
                            .isInstanceOf(RedisServer.ErrorReply.class)
                            .hasMessage("MOVED " + slot + " 127.0.0.1:" + owner.port());
                }
            }
        }
    }

    @Test
    void migrateSlot_movesTheSlotAndItsKeysToTheTarget() {
        String tag = "{migrate-me}";
        int slot = RedisClusterGroup.slotOf(tag);
        RedisServer source = cluster.primaryForSlot(slot);
        RedisServer target = otherPrimary(cluster, source);
        int keyCount = 250;  // more than one MIGRATE batch
        for (int i = 0; i < keyCount; i++) {
            source.execute("SET", tag + ":" + i, "value-" + i);
        }

        long began = System.nanoTime();
        cluster.migrateSlot(slot, target);
        System.err.println("RedisClusterGroupTest: slot with " + keyCount + " keys migrated in " + millisSince(began)
                + " ms");

        assertThat(cluster.primaryForSlot(slot)).isSameAs(target);
        for (RedisServer node : cluster.nodes()) {
            assertThat(ownerPortInClusterSlots(node, slot)).as("owner of slot %d according to %s", slot, node)
                    .isEqualTo(target.port());
            assertThat(clusterInfo(node)).contains("cluster_state:ok");
        }
        assertThat(target.execute("CLUSTER", "COUNTKEYSINSLOT", Integer.toString(slot))).isEqualTo((long) keyCount);
        assertThat(source.execute("CLUSTER", "COUNTKEYSINSLOT", Integer.toString(slot))).isEqualTo(0L);
        for (int i = 0; i < keyCount; i++) {
            assertThat(target.execute("GET", tag + ":" + i)).isEqualTo("value-" + i);
        }
        assertThatThrownBy(() -> source.execute("GET", tag + ":0"))
                .hasMessage("MOVED " + slot + " 127.0.0.1:" + target.port());

        cluster.migrateSlot(slot, target);  // already there: nothing to do
        assertThat(cluster.primaryForSlot(slot)).isSameAs(target);
        assertThatThrownBy(() -> cluster.migrateSlot(RedisClusterGroup.SLOT_COUNT, target))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void migrateSlot_underLoad_losesNoAcknowledgedWrite() throws Exception {
        String tag = "{under-load}";
        int slot = RedisClusterGroup.slotOf(tag);
        RedisServer source = cluster.primaryForSlot(slot);
        RedisServer target = otherPrimary(cluster, source);
        int bulk = 3000;  // keeps the slot MIGRATING for a while: 30 MIGRATE batches
        List<String> mset = new ArrayList<>(List.of("MSET"));
        for (int i = 0; i < bulk; i++) {
            mset.add(tag + ":bulk:" + i);
            mset.add("bulk-" + i);
        }
        source.execute(mset.toArray(new String[0]));
        RedirectingClient client = new RedirectingClient(source.port());
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger acknowledgedSets = new AtomicInteger();
        AtomicInteger acknowledgedIncrements = new AtomicInteger();
        AtomicReference<Throwable> writerFailure = new AtomicReference<>();
        Thread writer = new Thread(() -> {
            try {
                for (int i = 0; !stop.get(); i++) {
                    client.call("SET", tag + ":" + i, "value-" + i);
                    acknowledgedSets.incrementAndGet();
                    client.call("INCR", tag + ":counter");
                    acknowledgedIncrements.incrementAndGet();
                }
            } catch (Throwable e) {
                writerFailure.set(e);
            }
        }, "cluster-writer");
        writer.start();
        try {
            Poll.until("the writer is under way", GENEROUS, () -> acknowledgedSets.get() >= 100 || !writer.isAlive());
            long began = System.nanoTime();
            cluster.migrateSlot(slot, target);
            System.err.println("RedisClusterGroupTest: slot with " + bulk + " keys migrated under load in "
                    + millisSince(began) + " ms; writer was redirected with ASK " + client.redirectCount("ASK")
                    + " times");
            int atMigrationEnd = acknowledgedSets.get();
            Poll.until("the writer goes on after the migration", GENEROUS,
                    () -> acknowledgedSets.get() >= atMigrationEnd + 100 || !writer.isAlive());
        } finally {
            stop.set(true);
            writer.join(GENEROUS.toMillis());
        }
        assertThat(writerFailure.get()).as("writer failure").isNull();
        assertThat(client.redirectCount("ASK")).as("ASK redirects the writer followed during the migration")
                .isPositive();
        assertThat(client.redirectCount("MOVED")).as("MOVED redirects the writer followed after it").isPositive();

        assertThat(cluster.primaryForSlot(slot)).isSameAs(target);
        assertThat(source.execute("CLUSTER", "COUNTKEYSINSLOT", Integer.toString(slot))).isEqualTo(0L);
        int sets = acknowledgedSets.get();
        for (int i = 0; i < sets; i++) {
            assertThat(target.execute("GET", tag + ":" + i)).as("key %d of %d", i, sets).isEqualTo("value-" + i);
        }
        assertThat(target.execute("GET", tag + ":counter")).isEqualTo(Integer.toString(acknowledgedIncrements.get()));
        assertThat(target.execute("GET", tag + ":bulk:" + (bulk - 1))).isEqualTo("bulk-" + (bulk - 1));
        assertThat(target.execute("CLUSTER", "COUNTKEYSINSLOT", Integer.toString(slot))).isEqualTo(bulk + sets + 1L);
    }

    @Test
    void flushAll_emptiesEveryPrimary() {
        for (int i = 0; i < 30; i++) {
            String key = "flush:" + i;
            cluster.primaryFor(key).execute("SET", key, "x");
        }
        cluster.flushAll();
        for (RedisServer primary : cluster.primaries()) {
            assertThat(primary.execute("DBSIZE")).isEqualTo(0L);
        }
    }

    @Test
    void failover_promotesTheReplica_andClosingLeavesNoProcess() throws Exception {
        long began = System.nanoTime();
        // With a password, which the replicas need to replicate (masterauth) and the group to manage them.
        RedisClusterGroup withReplicas = RedisClusterGroup.builder()
                .replicasPerPrimary(1)
                .nodeTimeout(Duration.ofMillis(1000))
                .persistence(true)
                .password(NODE_PASSWORD)
                .start();
        List<Long> pids = new ArrayList<>();
        List<Path> dirs = new ArrayList<>();
        try {
            System.err.println("RedisClusterGroupTest: 3 primaries + 3 replicas formed in " + millisSince(began) + " ms");
            withReplicas.nodes().forEach(node -> pids.add(node.pid()));
            withReplicas.nodes().forEach(node -> dirs.add(node.dataDir()));
            assertThat(withReplicas.nodes()).hasSize(6);
            assertThat(withReplicas.seedUris()).allMatch(u -> u.startsWith("redis://:node%20pw%2F%23%40%3A%25@"));
            assertThat(withReplicas.primaries()).containsExactlyElementsOf(withReplicas.nodes().subList(0, 3));
            assertEveryNodeOkWithAllSlotsAgreed(withReplicas, 6);
            for (RedisServer primary : withReplicas.primaries()) {
                RedisServer replica = withReplicas.replicaOf(primary);
                assertThat(withReplicas.primaries()).doesNotContain(replica);
                List<?> role = (List<?>) replica.execute("ROLE");
                assertThat(List.<Object>copyOf(role.subList(0, 4))).containsExactly("slave", "127.0.0.1", (long) primary.port(), "connected");
            }

            String key = "failover:{lock}";
            RedisServer victim = withReplicas.primaryFor(key);
            RedisServer replica = withReplicas.replicaOf(victim);
            victim.execute("SET", key, "survives");
            Poll.until("the replica has the key", GENEROUS, () -> "survives".equals(readOnReplica(replica, key)));

            began = System.nanoTime();
            assertThat(withReplicas.killPrimary(victim)).isSameAs(victim);
            assertThat(victim.isRunning()).isFalse();
            RedisServer promoted = withReplicas.awaitPromotion(victim, GENEROUS);
            System.err.println("RedisClusterGroupTest: failover (node timeout 1 s) took " + millisSince(began) + " ms");

            assertThat(promoted).isSameAs(replica);
            assertThat(((List<?>) promoted.execute("ROLE")).get(0)).isEqualTo("master");
            assertThat(withReplicas.primaryFor(key)).isSameAs(promoted);
            assertThat(withReplicas.primaries()).hasSize(3).contains(promoted).doesNotContain(victim);
            assertThat(withReplicas.seedUris()).contains(promoted.uri()).doesNotContain(victim.uri());
            assertThat(promoted.execute("GET", key)).isEqualTo("survives");
            for (RedisServer node : withReplicas.nodes()) {
                if (node.isRunning()) {
                    assertThat(clusterInfo(node)).as("CLUSTER INFO of %s", node).contains("cluster_state:ok");
                    assertThat(ownerPortInClusterSlots(node, RedisClusterGroup.slotOf(key))).isEqualTo(promoted.port());
                }
            }

            // With persistence, the old primary keeps its identity and comes back as a replica.
            victim.restart();
            withReplicas.awaitHealthy(GENEROUS);
            assertThat(withReplicas.replicasOf(promoted)).containsExactly(victim);
            pids.add(victim.pid());
        } finally {
            withReplicas.close();
        }
        for (long pid : pids) {
            Poll.until("redis-server " + pid + " is dead", () -> Poll.isDead(pid));
        }
        assertThat(dirs).allSatisfy(dir -> assertThat(dir).doesNotExist());
        withReplicas.close();  // idempotent
        assertThatThrownBy(withReplicas::primaries).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void embeddedRedis6Binary_formsAClusterAndMigrates() {
        String resource = RedisBinary.embeddedResourceName(System.getProperty("os.name"), System.getProperty("os.arch"));
        assumeTrue(resource != null, "embedded-redis has no binary for this platform");
        Path binary = RedisBinary.extractEmbedded(resource, RedisBinary.DEFAULT_CACHE_DIR);

        long began = System.nanoTime();
        RedisClusterGroup embedded = RedisClusterGroup.builder().binary(binary).start();
        List<Long> pids = new ArrayList<>();
        try {
            System.err.println("RedisClusterGroupTest: embedded " + resource + " cluster formed in "
                    + millisSince(began) + " ms");
            embedded.nodes().forEach(node -> pids.add(node.pid()));
            assertThat(String.valueOf(embedded.nodes().get(0).execute("INFO", "server")))
                    .contains("redis_version:6.");
            assertEveryNodeOkWithAllSlotsAgreed(embedded, 3);
            for (String key : List.of("", "{user1000}.following", "foo{}{bar}", "{}", "plain")) {
                assertThat((long) RedisClusterGroup.slotOf(key))
                        .isEqualTo(embedded.nodes().get(0).execute("CLUSTER", "KEYSLOT", key));
            }
            String key = "embedded:{k}";
            int slot = RedisClusterGroup.slotOf(key);
            RedisServer source = embedded.primaryFor(key);
            source.execute("SET", key, "moved");
            RedisServer target = otherPrimary(embedded, source);
            embedded.migrateSlot(slot, target);
            assertThat(embedded.primaryForSlot(slot)).isSameAs(target);
            assertThat(target.execute("GET", key)).isEqualTo("moved");
        } finally {
            embedded.close();
        }
        for (long pid : pids) {
            Poll.until("redis-server " + pid + " is dead", () -> Poll.isDead(pid));
        }
    }

    @Test
    void start_triesAnotherPort_whenRedisFindsThePortTooHighForTheClusterBus(@TempDir Path dir) throws IOException {
        // Stands in for redis-server on a port above 55535: the first two starts fail as Redis would.
        Path attempts = dir.resolve("attempts");
        Path fake = dir.resolve("redis-server");
        Files.writeString(fake, "#!/bin/sh\n"
                + "count=$(cat '" + attempts + "' 2>/dev/null || echo 0)\n"
                + "echo $((count + 1)) > '" + attempts + "'\n"
                + "if [ \"$count\" -lt 2 ]; then\n"
                + "  echo '# Redis port number too high. Cluster communication port is 10,000 port numbers higher"
                + " than your Redis port. Your Redis port number must be 55535 or less.'\n"
                + "  exit 1\n"
                + "fi\n"
                + "exec '" + RedisServer.binary() + "' \"$@\"\n");
        assertThat(fake.toFile().setExecutable(true)).isTrue();

        try (RedisClusterGroup single = RedisClusterGroup.builder().binary(fake).primaries(1).start()) {
            assertThat(Files.readString(attempts).strip()).isEqualTo("3");
            assertThat(single.primaries()).hasSize(1);
            assertThat(clusterInfo(single.nodes().get(0))).contains("cluster_state:ok", "cluster_slots_assigned:16384");
        }
    }

    @Test
    void builder_rejectsNonsense() {
        assertThatThrownBy(() -> RedisClusterGroup.builder().primaries(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisClusterGroup.builder().replicasPerPrimary(-1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisClusterGroup.builder().nodeTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> cluster.replicaOf(cluster.nodes().get(0))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> cluster.primaryForSlot(-1)).isInstanceOf(IllegalArgumentException.class);
        try (RedisServer stranger = RedisServer.start()) {
            assertThatThrownBy(() -> cluster.migrateSlot(0, stranger)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> cluster.killPrimary(stranger)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    // ---------------------------------------------------------------- helpers

    /**
     * Checks with raw commands, not through the group: every node is ok, knows all nodes, sees all
     * slots assigned, and CLUSTER SLOTS gives the same primaries everywhere.
     */
    private static void assertEveryNodeOkWithAllSlotsAgreed(RedisClusterGroup group, int nodeCount) {
        Map<Integer, Integer> reference = null;
        for (RedisServer node : group.nodes()) {
            String info = clusterInfo(node);
            assertThat(info).as("CLUSTER INFO of %s", node)
                    .contains("cluster_state:ok", "cluster_slots_assigned:16384", "cluster_slots_fail:0",
                            "cluster_known_nodes:" + nodeCount, "cluster_size:3");
            Map<Integer, Integer> owners = slotOwnerPorts(node);
            assertThat(owners).as("slots owned according to %s", node).hasSize(RedisClusterGroup.SLOT_COUNT);
            if (reference == null) {
                reference = owners;
            } else {
                assertThat(owners).as("slot owners according to %s", node).isEqualTo(reference);
            }
        }
        for (int slot : List.of(0, 5461, 10922, 16383)) {
            assertThat(group.primaryForSlot(slot).port()).isEqualTo(reference.get(slot));
        }
    }

    /** Slot -> port of its primary, from CLUSTER SLOTS. */
    private static Map<Integer, Integer> slotOwnerPorts(RedisServer node) {
        Map<Integer, Integer> owners = new HashMap<>();
        for (Object entry : (List<?>) node.execute("CLUSTER", "SLOTS")) {
            List<?> range = (List<?>) entry;
            int port = (int) (long) (Long) ((List<?>) range.get(2)).get(1);
            for (long slot = (Long) range.get(0); slot <= (Long) range.get(1); slot++) {
                assertThat(owners.put((int) slot, port)).as("slot %d listed twice", slot).isNull();
            }
        }
        return owners;
    }

    private static Integer ownerPortInClusterSlots(RedisServer node, int slot) {
        return slotOwnerPorts(node).get(slot);
    }

    private static String clusterInfo(RedisServer node) {
        return String.valueOf(node.execute("CLUSTER", "INFO"));
    }

    private static RedisServer otherPrimary(RedisClusterGroup group, RedisServer primary) {
        return group.primaries().stream().filter(candidate -> candidate != primary).findFirst().orElseThrow();
    }

    /** The password of the failover test's nodes: a space and every URI delimiter. */
    private static final String NODE_PASSWORD = "node pw/#@:%";

    private static Object readOnReplica(RedisServer replica, String key) {
        try (RespConnection connection = RespConnection.open("127.0.0.1", replica.port(), false, Duration.ofSeconds(5))) {
            connection.call("AUTH", NODE_PASSWORD);
            connection.call("READONLY");
            return connection.call("GET", key);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }

    /** A tiny cluster client: follows MOVED (and remembers it) and ASK (once, with ASKING). */
    private static final class RedirectingClient {

        private final Map<Integer, Integer> slotPorts = new ConcurrentHashMap<>();
        private final int defaultPort;
        final List<String> redirects = Collections.synchronizedList(new ArrayList<>());

        RedirectingClient(int defaultPort) {
            this.defaultPort = defaultPort;
        }

        long redirectCount(String kind) {
            synchronized (redirects) {
                return redirects.stream().filter(redirect -> redirect.startsWith(kind + " ")).count();
            }
        }

        Object call(String... command) {
            int slot = RedisClusterGroup.slotOf(command[1]);
            int port = slotPorts.getOrDefault(slot, defaultPort);
            boolean asking = false;
            for (int attempt = 0; attempt < 10; attempt++) {
                try (RespConnection connection = RespConnection.open("127.0.0.1", port, false, Duration.ofSeconds(5))) {
                    if (asking) {
                        connection.call("ASKING");
                    }
                    return connection.call(command);
                } catch (RedisServer.ErrorReply e) {
                    String[] words = e.getMessage().split(" ");
                    if (words[0].equals("MOVED") || words[0].equals("ASK")) {
                        redirects.add(e.getMessage());
                        port = Integer.parseInt(words[2].substring(words[2].lastIndexOf(':') + 1));
                        asking = words[0].equals("ASK");
                        if (!asking) {
                            slotPorts.put(slot, port);
                        }
                        continue;
                    }
                    throw e;
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            throw new AssertionError("too many redirects for " + String.join(" ", command) + ": " + redirects);
        }
    }
}

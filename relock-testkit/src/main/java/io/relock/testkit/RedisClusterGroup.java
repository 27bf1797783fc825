package io.relock.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A real Redis Cluster on 127.0.0.1, for tests: {@code N} primaries (default 3), each with
 * {@code R} replicas (default 0), every node a {@link RedisServer} on a free port.
 *
 * <pre>{@code
 * try (RedisClusterGroup cluster = RedisClusterGroup.builder().replicasPerPrimary(1).start()) {
 *     RedisClusterClient client = RedisClusterClient.create(cluster.seedUris().get(0));
 *     RedisServer owner = cluster.primaryFor("lock:{order-42}");
 *     RedisServer promoted = cluster.failover(owner);   // SIGKILL, then wait for its replica
 * }
 * }</pre>
 *
 * <p>The cluster is formed with plain commands, without {@code redis-cli}: the 16384 hash slots
 * are split evenly over the primaries ({@code CLUSTER ADDSLOTSRANGE}, or {@code ADDSLOTS} on Redis
 * 6), the nodes meet, replicas {@code CLUSTER REPLICATE} their primary, and {@link Builder#start()}
 * returns once the cluster is <em>healthy</em>: every running node reports
 * {@code cluster_state:ok}, all of them agree (in {@code CLUSTER NODES}) on who owns which slot
 * and who replicates whom, and every replica's replication link is up. Works with Redis 6.2 (the
 * embedded fallback binary) and 7.x.
 *
 * <p>Topology queries ({@link #primaries()}, {@link #replicaOf}, {@link #primaryForSlot}) ask
 * the cluster each time, through the view of the first node that is running and not paused, so
 * they follow failovers and slot migrations. Every node runs with
 * {@code cluster-replica-validity-factor 0} (a replica may always take over, however long it was
 * cut off), {@code cluster-allow-replica-migration no} (roles only change when a test changes
 * them) and {@code repl-diskless-sync-delay 0} (replicas sync at once).
 *
 * <p>Nodes may be paused, resumed and killed through {@link RedisServer}. Restarting a node with
 * {@link RedisServer#restart()} only brings it back into the cluster when the group was built with
 * {@link Builder#persistence(boolean) persistence}: otherwise the restart wipes its
 * {@code nodes.conf} and it comes back as an empty stranger.
 *
 * <p>Methods that change the cluster are thread-safe with respect to each other; topology queries
 * may run concurrently with them (and see the cluster as it is at that moment). Linux only, like
 * {@link RedisServer}.
 */
public final class RedisClusterGroup implements AutoCloseable {

    /** The number of hash slots of a Redis Cluster. */
    public static final int SLOT_COUNT = 16384;

    private static final String HOST = "127.0.0.1";
    private static final Duration DEFAULT_NODE_TIMEOUT = Duration.ofSeconds(2);
    private static final Duration FORM_DEADLINE = Duration.ofSeconds(60);
    private static final Duration SETTLE_DEADLINE = Duration.ofSeconds(30);
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(2);
    private static final Duration MIGRATE_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration FLUSH_WAIT = Duration.ofSeconds(5);
    private static final int MIGRATE_BATCH = 100;
    private static final int START_ATTEMPTS = 40;
    private static final long POLL_MILLIS = 25;
    /** Logged by redis-server when the cluster bus port (port + 10000) would be above 65535. */
    private static final String PORT_TOO_HIGH = "port number too high";
    private static final Set<String> BROKEN_FLAGS = Set.of("fail", "fail?", "handshake", "noaddr");

    private final Settings settings;
    private final List<RedisServer> nodes;
    private final Map<RedisServer, String> ids = new ConcurrentHashMap<>();
    private final Map<String, RedisServer> byId = new ConcurrentHashMap<>();
    private final Map<RedisServer, KillRecord> killed = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /** Collects options for {@link #start()}; every setter checks its argument at once. */
    public static final class Builder {

        private int primaries = 3;
        private int replicasPerPrimary;
        private Duration nodeTimeout = DEFAULT_NODE_TIMEOUT;
        private boolean persistence;
        private Path binary;
        private String password;
        private final List<String> extraArgs = new ArrayList<>();

        private Builder() {
        }

        /**
         * The password of every node's default user ({@code requirepass}; replicas use it as {@code
         * masterauth}): {@link RedisClusterGroup#seedUris()} carry it, and each node's {@link
         * RedisServer#execute} uses it. Default: none.
         *
         * @param password the password; non-empty, without control characters (spaces and URI
         *     delimiters are fine)
         * @return this builder
         * @throws IllegalArgumentException if {@code password} is empty or has a control character
         */
        public Builder password(String password) {
            this.password = RedisServer.Builder.requirePassword("password", password);
            return this;
        }

        /**
         * How many primaries share the slots; default 3. A failover needs the votes of a majority
         * of the primaries, so {@link RedisClusterGroup#failover} needs at least 3.
         *
         * @param count the number of primaries, from 1 to {@value RedisClusterGroup#SLOT_COUNT}
         * @return this builder
         * @throws IllegalArgumentException if {@code count} is out of that range
         */
        public Builder primaries(int count) {
            if (count < 1 || count > SLOT_COUNT) {
                throw new IllegalArgumentException("primaries must be 1.." + SLOT_COUNT + ": " + count);
            }
            this.primaries = count;
            return this;
        }

        /**
         * How many replicas each primary gets; default 0. Use 1 for failover tests.
         *
         * @param count the number of replicas per primary, 0 or more
         * @return this builder
         * @throws IllegalArgumentException if {@code count} is negative
         */
        public Builder replicasPerPrimary(int count) {
            if (count < 0) {
                throw new IllegalArgumentException("replicasPerPrimary must not be negative: " + count);
            }
            this.replicasPerPrimary = count;
            return this;
        }

        /**
         * {@code cluster-node-timeout}: how long a node may be unreachable before it is considered
         * failing, which bounds how fast a failover starts. Default 2 seconds (Redis: 15); whole
         * milliseconds, at least 1.
         *
         * @param timeout the node timeout; truncated to whole milliseconds
         * @return this builder
         * @throws IllegalArgumentException if {@code timeout} is under 1 ms
         */
        public Builder nodeTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.toMillis() < 1) {
                throw new IllegalArgumentException("nodeTimeout must be at least 1 ms: " + timeout);
            }
            this.nodeTimeout = Duration.ofMillis(timeout.toMillis());
            return this;
        }

        /**
         * With {@code true}, every node keeps an append-only file and its {@code nodes.conf}
         * across {@link RedisServer#restart()}, so a killed node restarted by a test rejoins the
         * cluster under its old identity (a former primary as a replica of whoever took over).
         * See {@link RedisServer.Builder#persistence(boolean)}. Default: no persistence.
         *
         * @param enabled whether every node keeps its data and cluster state across restarts
         * @return this builder
         */
        public Builder persistence(boolean enabled) {
            this.persistence = enabled;
            return this;
        }

        /**
         * Runs this redis-server binary instead of the one {@link RedisServer#binary()} finds.
         *
         * @param redisServer the redis-server executable, for every node
         * @return this builder
         */
        public Builder binary(Path redisServer) {
            this.binary = Objects.requireNonNull(redisServer, "redisServer");
            return this;
        }

        /**
         * Appends raw arguments for every node, e.g. {@code arg("--maxmemory", "10mb")}; may be
         * called repeatedly. Do not pass authentication or port options: the group talks to its
         * nodes with {@link #password(String)} (if any) on the ports it picked.
         *
         * @param extraArgs the arguments, passed to every node's redis-server after the group's own
         * @return this builder
         * @throws IllegalArgumentException if an argument is null
         */
        public Builder arg(String... extraArgs) {
            Objects.requireNonNull(extraArgs, "extraArgs");
            if (Arrays.asList(extraArgs).contains(null)) {
                throw new IllegalArgumentException("extra arguments must not contain null: " + Arrays.toString(extraArgs));
            }
            this.extraArgs.addAll(Arrays.asList(extraArgs));
            return this;
        }

        /**
         * Starts the nodes, forms the cluster and returns once it is healthy (see the class
         * comment). The builder may be reused.
         *
         * @return the healthy cluster; close it to kill every node
         * @throws IllegalStateException if a node does not start or the cluster does not become
         *     healthy within 60 seconds; everything started is closed again
         */
        public RedisClusterGroup start() {
            return RedisClusterGroup.launch(new Settings(primaries, replicasPerPrimary, nodeTimeout, persistence,
                    password, binary, List.copyOf(extraArgs)));
        }
    }

    private record Settings(int primaries, int replicasPerPrimary, Duration nodeTimeout, boolean persistence,
            String password, Path binary, List<String> extraArgs) {
    }

    /** What a primary looked like just before {@link #killPrimary} killed it. */
    private record KillRecord(BitSet slots, List<RedisServer> replicas) {
    }

    /** One line of {@code CLUSTER NODES}. */
    private record NodeLine(String id, Set<String> flags, String masterId, boolean connected, List<String> ranges) {

        boolean isPrimary() {
            return flags.contains("master");
        }

        boolean isBroken() {
            return flags.stream().anyMatch(BROKEN_FLAGS::contains);
        }

        BitSet slots() {
            BitSet slots = new BitSet(SLOT_COUNT);
            for (String range : ranges) {
                int dash = range.indexOf('-');
                int from = Integer.parseInt(dash < 0 ? range : range.substring(0, dash));
                int to = dash < 0 ? from : Integer.parseInt(range.substring(dash + 1));
                slots.set(from, to + 1);
            }
            return slots;
        }

        /** Role, primary and slots: what all nodes must agree on. */
        String canonical() {
            return (isPrimary() ? "primary" : "replica of " + masterId) + " slots " + String.join(",", ranges);
        }
    }

    private RedisClusterGroup(Settings settings, List<RedisServer> nodes) {
        this.settings = settings;
        this.nodes = List.copyOf(nodes);
    }

    /**
     * Starts a cluster of 3 primaries without replicas.
     *
     * @return the healthy cluster; close it to kill every node
     * @throws IllegalStateException if a node does not start or the cluster does not become healthy
     *     within 60 seconds
     */
    public static RedisClusterGroup start() {
        return builder().start();
    }

    /**
     * Options for a cluster: primaries, replicas per primary, node timeout, persistence, binary, raw
     * arguments.
     *
     * @return a new builder with the defaults of {@link #start()}
     */
    public static Builder builder() {
        return new Builder();
    }

    private static RedisClusterGroup launch(Settings settings) {
        List<RedisServer> started = new ArrayList<>();
        try {
            int total = settings.primaries() * (1 + settings.replicasPerPrimary());
            for (int i = 0; i < total; i++) {
                started.add(startNode(settings));
            }
            RedisClusterGroup group = new RedisClusterGroup(settings, started);
            group.form();
            return group;
        } catch (RuntimeException e) {
            for (RedisServer node : started) {
                try {
                    node.close();
                } catch (RuntimeException closeFailure) {
                    e.addSuppressed(closeFailure);
                }
            }
            throw e;
        }
    }

    /**
     * Starts one node. Redis refuses cluster mode on ports above 55535 (its bus port, port + 10000,
     * would not exist), and the free port {@link RedisServer} picks may be one of them: then it
     * simply tries another.
     */
    private static RedisServer startNode(Settings settings) {
        RedisServer.Builder builder = RedisServer.builder()
                .persistence(settings.persistence())
                .arg("--cluster-enabled", "yes",
                        "--cluster-config-file", "nodes.conf",
                        "--cluster-node-timeout", Long.toString(settings.nodeTimeout().toMillis()),
                        "--cluster-replica-validity-factor", "0",
                        "--cluster-allow-replica-migration", "no",
                        "--repl-diskless-sync-delay", "0")
                .arg(settings.extraArgs().toArray(new String[0]));
        if (settings.binary() != null) {
            builder.binary(settings.binary());
        }
        if (settings.password() != null) {
            builder.password(settings.password()).arg("--masterauth", settings.password());
        }
        IllegalStateException lastTooHigh = null;
        for (int attempt = 0; attempt < START_ATTEMPTS; attempt++) {
            try {
                return builder.start();
            } catch (IllegalStateException e) {
                if (!String.valueOf(e.getMessage()).contains(PORT_TOO_HIGH)) {
                    throw e;
                }
                lastTooHigh = e;
            }
        }
        throw new IllegalStateException("no free port of 127.0.0.1 at or below 55535 (needed for the cluster bus)"
                + " after " + START_ATTEMPTS + " attempts", lastTooHigh);
    }

    private void form() {
        for (int i = 0; i < nodes.size(); i++) {
            RedisServer node = nodes.get(i);
            String id = (String) node.execute("CLUSTER", "MYID");
            ids.put(node, id);
            byId.put(id, node);
            // Distinct epochs up front, as redis-cli does, so that no epoch collision has to be resolved.
            node.execute("CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1));
        }
        int primaryCount = settings.primaries();
        for (int i = 0; i < primaryCount; i++) {
            int from = (int) ((long) SLOT_COUNT * i / primaryCount);
            int to = (int) ((long) SLOT_COUNT * (i + 1) / primaryCount) - 1;
            addSlots(nodes.get(i), from, to);
        }
        // Every pair meets directly: waiting for gossip to introduce them takes seconds.
        for (int i = 0; i < nodes.size(); i++) {
            for (RedisServer other : nodes.subList(i + 1, nodes.size())) {
                nodes.get(i).execute("CLUSTER", "MEET", HOST, Integer.toString(other.port()));
            }
        }
        await("every node knows every other node", FORM_DEADLINE, this::meshProblem);
        Map<String, String> expectedPrimary = new TreeMap<>();
        for (int k = primaryCount; k < nodes.size(); k++) {
            RedisServer replica = nodes.get(k);
            RedisServer primary = nodes.get((k - primaryCount) % primaryCount);
            replica.execute("CLUSTER", "REPLICATE", ids.get(primary));
            expectedPrimary.put(ids.get(replica), ids.get(primary));
        }
        await("the cluster is formed", FORM_DEADLINE, () -> healthProblem(view -> {
            for (Map.Entry<String, String> expected : expectedPrimary.entrySet()) {
                NodeLine replica = view.get(expected.getKey());
                if (replica.isPrimary() || !expected.getValue().equals(replica.masterId())) {
                    return byId.get(expected.getKey()) + " is not yet a replica of " + byId.get(expected.getValue());
                }
            }
            return null;
        }));
    }

    private static void addSlots(RedisServer primary, int from, int to) {
        try {
            primary.execute("CLUSTER", "ADDSLOTSRANGE", Integer.toString(from), Integer.toString(to));
        } catch (RedisServer.ErrorReply e) {
            if (!e.getMessage().toLowerCase(Locale.ROOT).contains("unknown subcommand")) {
                throw e;
            }
            // Redis 6 has no ADDSLOTSRANGE: name every slot.
            List<String> command = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
            for (int slot = from; slot <= to; slot++) {
                command.add(Integer.toString(slot));
            }
            primary.execute(command.toArray(new String[0]));
        }
    }

    /**
     * The URIs of the running primaries ({@code redis://127.0.0.1:PORT}), for a cluster client to
     * start from.
     *
     * @return the URIs of {@link #primaries()}, in the same order
     */
    public List<String> seedUris() {
        return primaries().stream().map(RedisServer::uri).toList();
    }

    /**
     * Every node this group started, running or not, in start order: the primaries first (in slot
     * order), then the replicas. Roles may have changed since; see {@link #primaries()}.
     *
     * @return an unmodifiable list of every node
     */
    public List<RedisServer> nodes() {
        return nodes;
    }

    /**
     * The running nodes that the cluster currently counts as primaries (not failed), in {@link
     * #nodes()} order.
     *
     * @return a new list of the primaries; a paused primary stays in it until the cluster marks it
     *     failed
     */
    public List<RedisServer> primaries() {
        requireOpen();
        Map<String, NodeLine> view = view();
        List<RedisServer> primaries = new ArrayList<>();
        for (RedisServer node : nodes) {
            NodeLine line = view.get(ids.get(node));
            if (node.isRunning() && line != null && line.isPrimary() && !line.isBroken()) {
                primaries.add(node);
            }
        }
        return primaries;
    }

    /**
     * The running replicas of {@code primary} according to the cluster (possibly none), in {@link
     * #nodes()} order.
     *
     * @param primary a node of this cluster
     * @return a new list of its running replicas; empty if it has none
     * @throws IllegalArgumentException if {@code primary} is not a node of this cluster
     */
    public List<RedisServer> replicasOf(RedisServer primary) {
        requireOpen();
        return replicasIn(view(), requireMember(primary));
    }

    /**
     * The (first) running replica of {@code primary}; also works once {@code primary} is dead but
     * not yet replaced.
     *
     * @param primary a node of this cluster
     * @return the first of {@link #replicasOf(RedisServer)}
     * @throws IllegalStateException if it has none
     * @throws IllegalArgumentException if {@code primary} is not a node of this cluster
     */
    public RedisServer replicaOf(RedisServer primary) {
        List<RedisServer> replicas = replicasOf(primary);
        if (replicas.isEmpty()) {
            throw new IllegalStateException(primary + " has no running replica");
        }
        return replicas.get(0);
    }

    /**
     * The hash slot of a key, as Redis computes it: CRC16 (XMODEM) of the key's UTF-8 bytes modulo
     * 16384, where a key with a non-empty hash tag ({@code "{user1000}.following"}) hashes only the
     * part between its first <code>{</code> and the first <code>}</code> after it.
     *
     * @param key the key
     * @return the slot, from 0 to 16383
     */
    public static int slotOf(String key) {
        return slotOf(Objects.requireNonNull(key, "key").getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The hash slot of a binary key; see {@link #slotOf(String)}.
     *
     * @param key the key's bytes
     * @return the slot, from 0 to 16383
     */
    public static int slotOf(byte[] key) {
        Objects.requireNonNull(key, "key");
        int from = 0;
        int to = key.length;
        int open = indexOf(key, (byte) '{', 0);
        if (open >= 0) {
            int close = indexOf(key, (byte) '}', open + 1);
            if (close > open + 1) {
                from = open + 1;
                to = close;
            }
        }
        return crc16(key, from, to) & (SLOT_COUNT - 1);
    }

    private static int indexOf(byte[] bytes, byte wanted, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == wanted) {
                return i;
            }
        }
        return -1;
    }

    /** CRC-16/XMODEM: polynomial 0x1021, initial value 0, no reflection. */
    private static int crc16(byte[] bytes, int from, int to) {
        int crc = 0;
        for (int i = from; i < to; i++) {
            crc ^= (bytes[i] & 0xff) << 8;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
            crc &= 0xffff;
        }
        return crc;
    }

    /**
     * The primary that owns {@code slot} according to the cluster; right after a primary died this
     * may still be that dead primary, until a replica has taken over.
     *
     * @param slot the hash slot, from 0 to 16383
     * @return the owner, running or not
     * @throws IllegalArgumentException if {@code slot} is out of range
     * @throws IllegalStateException if no node owns the slot
     */
    public RedisServer primaryForSlot(int slot) {
        requireOpen();
        checkSlot(slot);
        for (NodeLine line : view().values()) {
            if (line.isPrimary() && line.slots().get(slot)) {
                RedisServer owner = byId.get(line.id());
                if (owner != null) {
                    return owner;
                }
            }
        }
        throw new IllegalStateException("no node of this cluster owns slot " + slot);
    }

    /**
     * The primary that owns the slot of {@code key}; see {@link #primaryForSlot(int)}.
     *
     * @param key the key, hash tag included
     * @return the owner of {@link #slotOf(String) its slot}, running or not
     * @throws IllegalStateException if no node owns the slot
     */
    public RedisServer primaryFor(String key) {
        return primaryForSlot(slotOf(key));
    }

    /**
     * Moves {@code slot}, with its keys, to the primary {@code target}, the way
     * {@code redis-cli --cluster reshard} does, so it may run while clients use the slot: the target
     * is set IMPORTING and the owner MIGRATING (clients are then redirected with {@code ASK} for
     * keys already moved), the keys are moved in batches of 100 with {@code MIGRATE ... KEYS} until
     * {@code CLUSTER GETKEYSINSLOT} finds none, and {@code CLUSTER SETSLOT ... NODE} assigns the
     * slot on every primary. Returns once the cluster is healthy and every node sees {@code target}
     * owning the slot. Does nothing if {@code target} already owns it. Keys are handled as UTF-8
     * strings.
     *
     * @param slot the hash slot to move, from 0 to 16383
     * @param target the primary to move it to
     * @throws IllegalArgumentException if {@code slot} is out of range, or {@code target} is not a
     *     running primary of this cluster
     * @throws IllegalStateException if the slot's owner is not running, or the cluster does not
     *     settle within 30 seconds
     * @throws RedisServer.ErrorReply if Redis refuses a step (the slot may be left half-migrated)
     */
    public synchronized void migrateSlot(int slot, RedisServer target) {
        requireOpen();
        checkSlot(slot);
        String targetId = requireMember(target);
        if (!isLive(target) || !view(target).get(targetId).isPrimary()) {
            throw new IllegalArgumentException(target + " is not a running primary");
        }
        RedisServer source = primaryForSlot(slot);
        if (source == target) {
            return;
        }
        if (!isLive(source)) {
            throw new IllegalStateException("slot " + slot + " belongs to " + source + ", which is not running");
        }
        String slotArg = Integer.toString(slot);
        target.execute("CLUSTER", "SETSLOT", slotArg, "IMPORTING", ids.get(source));
        source.execute("CLUSTER", "SETSLOT", slotArg, "MIGRATING", targetId);
        while (true) {
            List<?> keys = (List<?>) source.execute("CLUSTER", "GETKEYSINSLOT", slotArg, Integer.toString(MIGRATE_BATCH));
            if (keys.isEmpty()) {
                break;
            }
            List<String> command = new ArrayList<>(List.of("MIGRATE", HOST, Integer.toString(target.port()), "", "0",
                    Long.toString(MIGRATE_TIMEOUT.toMillis()), "KEYS"));
            keys.forEach(key -> command.add((String) key));
            source.execute(MIGRATE_TIMEOUT.plus(PROBE_TIMEOUT), command.toArray(new String[0]));
        }
        // Target first, then source, as the Redis documentation advises; the others just learn sooner.
        target.execute("CLUSTER", "SETSLOT", slotArg, "NODE", targetId);
        source.execute("CLUSTER", "SETSLOT", slotArg, "NODE", targetId);
        for (RedisServer primary : primaries()) {
            if (primary != target && primary != source && isLive(primary)) {
                primary.execute("CLUSTER", "SETSLOT", slotArg, "NODE", targetId);
            }
        }
        await("slot " + slot + " moves to " + target, SETTLE_DEADLINE, () -> healthProblem(view -> {
            NodeLine owner = view.get(targetId);
            return owner.slots().get(slot) ? null : "not every node sees " + target + " owning slot " + slot;
        }));
    }

    /**
     * Kills the running primary {@code primary} with SIGKILL, after noting its slots and replicas
     * for {@link #awaitPromotion}. Returns at once, before the cluster notices.
     *
     * @param primary a running primary of this cluster
     * @return {@code primary}, for {@code awaitPromotion(killPrimary(p), deadline)}
     * @throws IllegalArgumentException if it is not a running primary of this cluster
     */
    public synchronized RedisServer killPrimary(RedisServer primary) {
        requireOpen();
        String id = requireMember(primary);
        if (!isLive(primary)) {
            throw new IllegalArgumentException(primary + " is not running (or paused)");
        }
        Map<String, NodeLine> ownView = view(primary);
        NodeLine line = ownView.get(id);
        if (!line.isPrimary()) {
            throw new IllegalArgumentException(primary + " is not a primary: " + line.canonical());
        }
        killed.put(primary, new KillRecord(line.slots(), replicasIn(ownView, id)));
        primary.kill();
        return primary;
    }

    /**
     * Waits until a replica of {@code killedPrimary} (killed, or paused long enough to be failed
     * over) has been promoted: it is a primary, every live node sees it owning all the slots the
     * dead primary had, and the cluster is healthy again on all live nodes.
     *
     * @param killedPrimary a primary of this cluster that was killed (best with {@link
     *     #killPrimary}, which notes its slots and replicas) or is paused
     * @param deadline how long to wait for the promotion and for the cluster to be healthy
     * @return the promoted replica
     * @throws IllegalStateException if {@code killedPrimary} is still running and not paused, had
     *     no slots or no replica, or the promotion does not happen within {@code deadline}
     */
    public RedisServer awaitPromotion(RedisServer killedPrimary, Duration deadline) {
        requireOpen();
        String id = requireMember(killedPrimary);
        Objects.requireNonNull(deadline, "deadline");
        if (isLive(killedPrimary)) {
            throw new IllegalStateException(killedPrimary + " is still running; kill it first, e.g. with killPrimary");
        }
        KillRecord record = killed.get(killedPrimary);
        if (record == null) {
            Map<String, NodeLine> view = view();
            NodeLine line = view.get(id);
            if (line == null || !line.isPrimary() || line.slots().isEmpty()) {
                throw new IllegalStateException("the cluster no longer shows " + killedPrimary + " as a primary with"
                        + " slots (already replaced?); kill primaries with killPrimary so their replicas are known");
            }
            record = new KillRecord(line.slots(), replicasIn(view, id));
        }
        if (record.slots().isEmpty()) {
            throw new IllegalStateException(killedPrimary + " owned no slots, so Redis promotes none of its replicas");
        }
        if (record.replicas().isEmpty()) {
            throw new IllegalStateException(killedPrimary + " had no replica to promote");
        }
        KillRecord known = record;
        RedisServer[] promoted = new RedisServer[1];
        await("a replica of " + killedPrimary + " takes over its slots", deadline, () -> healthProblem(view -> {
            for (RedisServer candidate : known.replicas()) {
                NodeLine line = view.get(ids.get(candidate));
                if (line == null || !line.isPrimary()) {
                    continue;
                }
                BitSet missing = (BitSet) known.slots().clone();
                missing.andNot(line.slots());
                if (missing.isEmpty()) {
                    promoted[0] = candidate;
                    return null;
                }
            }
            return "no replica of " + killedPrimary + " owns its slots yet";
        }));
        killed.remove(killedPrimary);
        return promoted[0];
    }

    /**
     * {@link #killPrimary Kills} {@code primary} and {@link #awaitPromotion waits} (30 seconds plus
     * 5 node timeouts) for one of its replicas to take over.
     *
     * @param primary a running primary of this cluster, with at least one replica
     * @return the promoted replica
     * @throws IllegalArgumentException if {@code primary} is not a running primary of this cluster
     * @throws IllegalStateException if it had no slots or no replica, or no replica took over in
     *     time
     */
    public RedisServer failover(RedisServer primary) {
        return awaitPromotion(killPrimary(primary), SETTLE_DEADLINE.plus(settings.nodeTimeout().multipliedBy(5)));
    }

    /**
     * Waits until the cluster is healthy: every running, unpaused node reports
     * {@code cluster_state:ok}, they all agree on slot owners and roles, the slots are all owned by
     * running nodes, and every running replica's replication link is up. For tests that change the
     * cluster themselves.
     *
     * @param deadline how long to wait
     * @throws IllegalStateException if that does not happen within {@code deadline}
     */
    public void awaitHealthy(Duration deadline) {
        requireOpen();
        await("the cluster is healthy", Objects.requireNonNull(deadline, "deadline"), () -> healthProblem(view -> null));
    }

    /**
     * {@code FLUSHALL} on every running primary, each followed by {@code WAIT} for its connected
     * replicas (up to 5 seconds), so replicas are normally empty too when this returns.
     */
    public void flushAll() {
        requireOpen();
        for (RedisServer primary : primaries()) {
            try (RespConnection connection = RespConnection.open(HOST, primary.port(), false, FLUSH_WAIT.plus(PROBE_TIMEOUT))) {
                String replication = String.valueOf(connection.call("INFO", "replication"));
                connection.call("FLUSHALL");
                long replicas = Long.parseLong(field(replication, "connected_slaves", "0"));
                if (replicas > 0) {
                    connection.call("WAIT", Long.toString(replicas), Long.toString(FLUSH_WAIT.toMillis()));
                }
            } catch (IOException e) {
                throw new UncheckedIOException("FLUSHALL on " + primary + " failed: " + e, e);
            }
        }
    }

    /**
     * The {@code cluster-node-timeout} the nodes run with.
     *
     * @return the node timeout, in whole milliseconds, as given to {@link Builder#nodeTimeout}
     *     (default 2 seconds)
     */
    public Duration nodeTimeout() {
        return settings.nodeTimeout();
    }

    /** Kills every node and deletes their directories. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        RuntimeException failure = null;
        for (RedisServer node : nodes) {
            try {
                node.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        killed.clear();
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return "RedisClusterGroup[" + settings.primaries() + " primaries x " + settings.replicasPerPrimary()
                + " replicas, ports " + nodes.stream().map(node -> Integer.toString(node.port())).toList() + "]";
    }

    // ---------------------------------------------------------------- cluster state

    /** Running and not paused: a node that can answer. */
    private static boolean isLive(RedisServer node) {
        return node.isRunning() && !Signals.isStopped(node.pid());
    }

    private List<RedisServer> liveNodes() {
        return nodes.stream().filter(RedisClusterGroup::isLive).toList();
    }

    /** The cluster as the first live node that answers sees it. */
    private Map<String, NodeLine> view() {
        RuntimeException lastFailure = null;
        for (RedisServer node : liveNodes()) {
            try {
                return view(node);
            } catch (UncheckedIOException | RedisServer.ErrorReply e) {
                lastFailure = e;
            }
        }
        throw new IllegalStateException("no node of " + this + " answers", lastFailure);
    }

    private static Map<String, NodeLine> view(RedisServer node) {
        return parseNodes(String.valueOf(node.execute(PROBE_TIMEOUT, "CLUSTER", "NODES")));
    }

    /**
     * Parses {@code CLUSTER NODES}: {@code id addr flags master ping pong epoch link slot...}, where
     * a slot entry is {@code 5461}, {@code 0-5460} or, while migrating, {@code [5461->-id]} (skipped).
     */
    private static Map<String, NodeLine> parseNodes(String text) {
        Map<String, NodeLine> lines = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            String[] fields = line.strip().split(" ");
            if (fields.length < 8) {
                continue;
            }
            List<String> ranges = new ArrayList<>();
            for (int i = 8; i < fields.length; i++) {
                if (!fields[i].startsWith("[")) {
                    ranges.add(fields[i]);
                }
            }
            lines.put(fields[0], new NodeLine(fields[0], Set.of(fields[2].split(",")), fields[3],
                    fields[7].equals("connected"), ranges));
        }
        return lines;
    }

    private List<RedisServer> replicasIn(Map<String, NodeLine> view, String primaryId) {
        List<RedisServer> replicas = new ArrayList<>();
        for (RedisServer node : nodes) {
            NodeLine line = view.get(ids.get(node));
            if (node.isRunning() && line != null && !line.isPrimary() && primaryId.equals(line.masterId())) {
                replicas.add(node);
            }
        }
        return replicas;
    }

    /** Null once every node knows every other one with a working cluster bus link, else what is missing. */
    private String meshProblem() {
        for (RedisServer node : nodes) {
            Map<String, NodeLine> view = view(node);
            for (RedisServer other : nodes) {
                NodeLine line = view.get(ids.get(other));
                if (line == null || line.isBroken() || !line.connected()) {
                    return node + " does not know " + other + " yet: " + line;
                }
            }
        }
        return null;
    }

    /**
     * Null when the cluster is healthy (see {@link #awaitHealthy}) and {@code extra} accepts the
     * agreed view, else what is wrong.
     */
    private String healthProblem(Function<Map<String, NodeLine>, String> extra) {
        List<RedisServer> live = liveNodes();
        if (live.isEmpty()) {
            return "no node is running";
        }
        Map<String, String> agreed = null;
        Map<String, NodeLine> agreedView = null;
        RedisServer agreedBy = null;
        for (RedisServer node : live) {
            String info = String.valueOf(node.execute(PROBE_TIMEOUT, "CLUSTER", "INFO"));
            if (!info.contains("cluster_state:ok")) {
                return node + " reports cluster_state:" + field(info, "cluster_state", "?");
            }
            Map<String, NodeLine> view = view(node);
            Map<String, String> canonical = new TreeMap<>();
            for (RedisServer other : live) {
                NodeLine line = view.get(ids.get(other));
                if (line == null || line.isBroken() || !line.connected()) {
                    return node + " sees " + other + " as " + line;
                }
                canonical.put(line.id(), line.canonical());
            }
            if (agreed == null) {
                agreed = canonical;
                agreedView = view;
                agreedBy = node;
            } else if (!agreed.equals(canonical)) {
                return node + " and " + agreedBy + " disagree: " + canonical + " vs " + agreed;
            }
        }
        BitSet covered = new BitSet(SLOT_COUNT);
        for (String id : agreed.keySet()) {
            covered.or(agreedView.get(id).slots());
        }
        if (covered.cardinality() != SLOT_COUNT) {
            return (SLOT_COUNT - covered.cardinality()) + " slots are not owned by a running node";
        }
        for (RedisServer node : live) {
            if (!agreedView.get(ids.get(node)).isPrimary()) {
                List<?> role = (List<?>) node.execute(PROBE_TIMEOUT, "ROLE");
                if (role.size() < 4 || !"connected".equals(role.get(3))) {
                    return node + " is not connected to its primary yet: ROLE " + role;
                }
            }
        }
        return extra.apply(agreedView);
    }

    /** Polls {@code problem} until it returns null; a failed command counts as a problem, not an error. */
    private void await(String what, Duration deadline, Supplier<String> problem) {
        long end = System.nanoTime() + deadline.toNanos();
        while (true) {
            String last;
            try {
                last = problem.get();
            } catch (UncheckedIOException | RedisServer.ErrorReply e) {
                last = e.toString();
            }
            if (last == null) {
                return;
            }
            if (System.nanoTime() - end > 0) {
                throw new IllegalStateException("Redis Cluster: " + what + " did not happen within " + deadline
                        + "; last problem: " + last + "\n" + diagnostics());
            }
            try {
                TimeUnit.MILLISECONDS.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting until " + what, e);
            }
        }
    }

    /** CLUSTER NODES as each live node sees it, and where the logs are. */
    private String diagnostics() {
        StringBuilder text = new StringBuilder();
        for (RedisServer node : nodes) {
            text.append(node).append(", log ").append(node.logFile()).append('\n');
            if (isLive(node)) {
                try {
                    text.append(String.valueOf(node.execute(PROBE_TIMEOUT, "CLUSTER", "NODES")).strip().indent(4));
                } catch (RuntimeException e) {
                    text.append("    (CLUSTER NODES failed: ").append(e).append(")\n");
                }
            }
        }
        return text.toString();
    }

    private static String field(String info, String name, String otherwise) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1).strip();
            }
        }
        return otherwise;
    }

    private String requireMember(RedisServer node) {
        Objects.requireNonNull(node, "node");
        String id = ids.get(node);
        if (id == null) {
            throw new IllegalArgumentException(node + " is not a node of " + this);
        }
        return id;
    }

    private static void checkSlot(int slot) {
        if (slot < 0 || slot >= SLOT_COUNT) {
            throw new IllegalArgumentException("slot must be 0.." + (SLOT_COUNT - 1) + ": " + slot);
        }
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("this RedisClusterGroup is closed");
        }
    }
}

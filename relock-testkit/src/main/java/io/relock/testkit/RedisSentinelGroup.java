package io.relock.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A replicated Redis group watched by three Redis Sentinels, all on free ports of 127.0.0.1, for
 * tests: a primary, {@linkplain Builder#replicas(int) N replicas} (default 1) and three sentinels
 * with quorum 2. Every process is a {@link RedisServer} (same binary, see
 * {@link RedisServer#binary()}; sentinels run as {@code redis-server <config> --sentinel}), so
 * nothing outlives the JVM.
 *
 * <pre>{@code
 * try (RedisSentinelGroup group = RedisSentinelGroup.start()) {
 *     RedisClient client = RedisClient.create(group.sentinelUri());   // Lettuce
 *     group.cutReplication();          // the primary now accepts writes its replicas never see
 *     group.restoreReplication();
 *     RedisServer promoted = group.failover();   // SIGKILL the primary, wait for the sentinels
 * }
 * }</pre>
 *
 * <p><b>Replication links.</b> Each replica replicates through its own {@link TcpProxy}
 * ({@code replicaof 127.0.0.1 <proxy port>}), which {@link #cutReplication()} and
 * {@link #restoreReplication()} act on. Sentinels still learn each replica's real address (the
 * primary's {@code INFO replication} lists the port the replica listens on, not the proxy's), and
 * report real addresses to clients. A sentinel that sees a replica's {@code master_port} differ
 * from the primary's would, after {@code failover-timeout}, repoint the replica straight at the
 * primary ({@code +fix-slave-config}), silently bypassing the proxy. To prevent that, sentinels log
 * into the data nodes as an ACL user ({@value #SENTINEL_USER}) that may run
 * {@code REPLICAOF NO ONE} (so they can still promote a replica) but not
 * {@code REPLICAOF <host> <port>}: the group, not the sentinels, points nodes at the primary. That
 * is why {@link #awaitFailover(Duration)} links the other nodes to the new primary itself, through
 * new proxies. Sentinels log the attempts they are denied ({@code +fix-slave-config},
 * {@code +slave-reconf-sent}); that is expected. The default user of every node needs no password
 * unless {@link Builder#password(String)} gives one, nor do the sentinels unless {@link
 * Builder#sentinelPassword(String)} does.
 *
 * <p><b>Restarts.</b> Each data node keeps its link in its configuration file
 * ({@code replicaof 127.0.0.1 <proxy port>}, see {@link RedisServer.Builder#configFile(String)}),
 * so a replica {@linkplain RedisServer#restart() restarted} comes back as a replica behind its
 * proxy. After a failover the killed primary is linked too: restart it once
 * {@link #awaitFailover(Duration)} has returned and it comes back as a replica of the new primary
 * (without persistence, empty, then fully resynchronized). Restarted earlier, it would come back as
 * a second primary, which the sentinels cannot demote.
 *
 * <p>Sentinel settings: {@code down-after-milliseconds} = {@link Builder#downAfter(Duration)}
 * (default 1 s), {@code failover-timeout} = the larger of 3 s and three times that, an INFO
 * refresh of every node each second instead of each ten ({@code SENTINEL DEBUG info-period 1000},
 * Redis 7 and later; older sentinels keep ten), so that what the sentinels report of a replica
 * (its link, a rejoined node) catches up within about a second, {@code
 * resolve-hostnames no}, {@code announce-ip 127.0.0.1}. Data nodes use diskless replication without
 * delay and no persistence.
 *
 * <p>Thread-safe. Linux only, like {@link RedisServer}.
 */
public final class RedisSentinelGroup implements AutoCloseable {

    /** The ACL user sentinels authenticate as on the data nodes. */
    static final String SENTINEL_USER = "relock-sentinel";

    private static final String HOST = "127.0.0.1";
    private static final int SENTINELS = 3;
    private static final int QUORUM = 2;
    private static final Duration STARTUP_DEADLINE = Duration.ofSeconds(30);
    private static final Duration FAILOVER_DEADLINE = Duration.ofSeconds(30);
    private static final Duration QUERY_TIMEOUT = Duration.ofSeconds(2);
    private static final long POLL_MILLIS = 20;

    private final Settings settings;
    private final String monitorPassword;
    private final Object lock = new Object();
    /** Data nodes in start order; the first one was the primary at start. */
    private final List<RedisServer> nodes = new ArrayList<>();
    /** Each node currently linked as a replica, with the proxy it replicates through. */
    private final Map<RedisServer, TcpProxy> uplinks = new LinkedHashMap<>();
    private final List<RedisServer> sentinels = new ArrayList<>();
    /** The primary the links point to: the one at start, then the one each awaitFailover found. */
    private RedisServer linkedPrimary;
    private boolean replicationCut;
    private boolean closed;

    /** Collects options for {@link #start()}; every setter checks its argument at once. */
    public static final class Builder {

        private String masterName = "mymaster";
        private int replicas = 1;
        private Duration downAfter = Duration.ofSeconds(1);
        private String password;
        private String sentinelPassword;

        private Builder() {
        }

        /**
         * The name the sentinels monitor the group under. Default {@code "mymaster"}.
         *
         * @param name the master name: letters, digits, {@code '.'}, {@code '_'} and {@code '-'}
         * @return this builder
         * @throws IllegalArgumentException if {@code name} is empty or has other characters
         */
        public Builder masterName(String name) {
            Objects.requireNonNull(name, "name");
            if (!name.matches("[A-Za-z0-9._-]+")) {
                throw new IllegalArgumentException("master name must be non-empty and consist of letters, digits,"
                        + " '.', '_' and '-': '" + name + "'");
            }
            this.masterName = name;
            return this;
        }

        /**
         * How many replicas to start next to the primary. Default 1; with 0 no failover can happen.
         *
         * @param count the number of replicas, 0 or more
         * @return this builder
         * @throws IllegalArgumentException if {@code count} is negative
         */
        public Builder replicas(int count) {
            if (count < 0) {
                throw new IllegalArgumentException("replica count must not be negative: " + count);
            }
            this.replicas = count;
            return this;
        }

        /**
         * The sentinels' {@code down-after-milliseconds}: how long the primary must be unreachable
         * before a failover starts. Default 1 second. {@code failover-timeout} is the larger of 3
         * seconds and three times this.
         *
         * @param downAfter the time, from 1 ms to {@code Integer.MAX_VALUE / 3} ms (about 8 days);
         *     used in whole milliseconds
         * @return this builder
         * @throws IllegalArgumentException if {@code downAfter} is out of that range
         */
        public Builder downAfter(Duration downAfter) {
            Objects.requireNonNull(downAfter, "downAfter");
            if (downAfter.toMillis() < 1 || downAfter.toMillis() > Integer.MAX_VALUE / 3) {
                throw new IllegalArgumentException("downAfter must be between 1 ms and about 8 days: " + downAfter);
            }
            this.downAfter = downAfter;
            return this;
        }

        /**
         * The password of the data nodes' default user ({@code requirepass}; the replicas use it as
         * {@code masterauth}): {@link #nodes()}' URIs carry it, and every node's {@link
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
         * The sentinels' password ({@code requirepass}, and {@code sentinel sentinel-pass} for
         * talking to each other), which may differ from the data nodes': {@link #sentinelUris()}
         * carry it. Default: none.
         *
         * @param password the password; non-empty, without control characters
         * @return this builder
         * @throws IllegalArgumentException if {@code password} is empty or has a control character
         */
        public Builder sentinelPassword(String password) {
            this.sentinelPassword = RedisServer.Builder.requirePassword("sentinel password", password);
            return this;
        }

        /**
         * Starts the primary and its replicas, links the replicas through their proxies, starts the
         * sentinels and returns once every replica's link is up and every sentinel knows the
         * primary, every replica and the two other sentinels (so a failover can happen at once).
         * The builder may be reused.
         *
         * @return the running group; close it to stop every process
         * @throws IllegalStateException if the group does not come up within 30 seconds; whatever
         *     was started is stopped
         */
        public RedisSentinelGroup start() {
            RedisSentinelGroup group = new RedisSentinelGroup(new Settings(masterName, replicas, downAfter, password,
                    sentinelPassword));
            try {
                group.startAll();
                return group;
            } catch (RuntimeException e) {
                try {
                    group.close();
                } catch (RuntimeException closing) {
                    e.addSuppressed(closing);
                }
                throw e;
            }
        }
    }

    private record Settings(String masterName, int replicas, Duration downAfter, String password,
            String sentinelPassword) {

        long failoverTimeoutMillis() {
            return Math.max(3000, 3 * downAfter.toMillis());
        }
    }

    private RedisSentinelGroup(Settings settings) {
        this.settings = settings;
        byte[] secret = new byte[16];
        new SecureRandom().nextBytes(secret);
        this.monitorPassword = HexFormat.of().formatHex(secret);
    }

    /**
     * Starts a group named {@code "mymaster"} with one replica and {@code down-after-milliseconds} 1000.
     *
     * @return the running group, ready for a failover; close it to stop every process
     * @throws IllegalStateException if the group does not come up within 30 seconds
     */
    public static RedisSentinelGroup start() {
        return builder().start();
    }

    /**
     * Options for a group: master name, number of replicas, sentinels' down-after time.
     *
     * @return a new builder with the defaults of {@link #start()}
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The name the sentinels monitor the group under, e.g. {@code "mymaster"}.
     *
     * @return the master name given to the builder
     */
    public String masterName() {
        return settings.masterName();
    }

    /**
     * One {@code redis://127.0.0.1:PORT} URI per sentinel, in start order.
     *
     * @return an unmodifiable list of the sentinels' URIs
     */
    public List<String> sentinelUris() {
        return sentinels().stream().map(RedisServer::uri).toList();
    }

    /**
     * All sentinels in Lettuce's form:
     * {@code redis-sentinel://127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3#mymaster}.
     *
     * @return the URI naming every sentinel and the master name
     */
    public String sentinelUri() {
        return "redis-sentinel://"
                + sentinels().stream().map(s -> HOST + ":" + s.port()).collect(Collectors.joining(","))
                + "#" + settings.masterName();
    }

    /**
     * The current primary as the sentinels report it ({@code SENTINEL GET-MASTER-ADDR-BY-NAME}):
     * the address a majority of the sentinels that answer agree on.
     *
     * @return the data node at that address
     * @throws IllegalStateException if the sentinels disagree (a failover is under way), none
     *     answers, or the address is none of this group's nodes
     */
    public RedisServer primary() {
        requireOpen();
        Map<Integer, Integer> votes = new HashMap<>();
        int answers = 0;
        for (RedisServer sentinel : sentinels()) {
            Integer port = reportedPrimaryPort(sentinel);
            if (port != null) {
                answers++;
                votes.merge(port, 1, Integer::sum);
            }
        }
        int needed = answers / 2 + 1;
        for (Map.Entry<Integer, Integer> vote : votes.entrySet()) {
            if (answers > 0 && vote.getValue() >= needed) {
                RedisServer node = nodeOnPort(vote.getKey());
                if (node == null) {
                    throw new IllegalStateException("the sentinels report 127.0.0.1:" + vote.getKey()
                            + ", which is none of this group's nodes " + nodes());
                }
                return node;
            }
        }
        throw new IllegalStateException("the sentinels do not agree on a primary (ports reported, with counts: "
                + votes + ", answers: " + answers + " of " + sentinels.size() + ")");
    }

    /**
     * Every data node but the primary the group links them to, in start order, running or not:
     * each replicates (or, once restarted, will replicate) through its own proxy. After
     * {@link #awaitFailover(Duration)} the promoted node leaves this list and the killed primary
     * joins it.
     *
     * @return an unmodifiable snapshot of the replicas
     */
    public List<RedisServer> replicas() {
        synchronized (lock) {
            return List.copyOf(uplinks.keySet());
        }
    }

    /**
     * Every data node (primary and replicas, running or not), in start order.
     *
     * @return an unmodifiable snapshot of the data nodes; the first was the primary at start
     */
    public List<RedisServer> nodes() {
        synchronized (lock) {
            return List.copyOf(nodes);
        }
    }

    /**
     * The three sentinels, in start order.
     *
     * @return an unmodifiable snapshot of the sentinels
     */
    public List<RedisServer> sentinels() {
        synchronized (lock) {
            return List.copyOf(sentinels);
        }
    }

    /**
     * Cuts every replica's link to the primary: open replication connections are reset and new
     * ones too, until {@link #restoreReplication()}. The primary keeps accepting writes, which the
     * replicas do not see; sentinels still reach every node and start no failover. Links made
     * later (by {@link #awaitFailover(Duration)}) start cut as well.
     */
    public void cutReplication() {
        synchronized (lock) {
            requireOpen();
            replicationCut = true;
            uplinks.values().forEach(TcpProxy::cut);
        }
    }

    /**
     * Lets replication through again; replicas reconnect within about a second and catch up
     * (usually with a partial resynchronization). See {@link #awaitReplicated(Duration)}.
     */
    public void restoreReplication() {
        synchronized (lock) {
            requireOpen();
            replicationCut = false;
            uplinks.values().forEach(TcpProxy::restore);
        }
    }

    /**
     * Delays every replica's link to the primary by {@code latency} in each direction (the
     * replicas see writes that much later), until {@link #restoreReplication()}. Lifts a cut.
     *
     * @param latency the delay added in each direction, zero or more; zero means plain forwarding
     * @throws IllegalArgumentException if {@code latency} is negative
     */
    public void delayReplication(Duration latency) {
        synchronized (lock) {
            requireOpen();
            replicationCut = false;
            uplinks.values().forEach(proxy -> proxy.delay(latency));
        }
    }

    /**
     * Kills the current {@link #primary()} with SIGKILL (nothing is flushed) and returns it at
     * once, without waiting for the sentinels. Follow with {@link #awaitFailover(Duration)}; after
     * that, {@link RedisServer#restart()} brings the killed node back as a replica.
     *
     * @return the killed node, no longer running
     * @throws IllegalStateException if the sentinels report a primary other than the one the
     *     group last linked its replicas to (call {@link #awaitFailover(Duration)} first)
     */
    public RedisServer killPrimary() {
        synchronized (lock) {
            requireOpen();
            RedisServer current = primary();
            if (current != linkedPrimary) {
                throw new IllegalStateException("the sentinels report " + current + " as primary, but the group's"
                        + " replicas follow " + linkedPrimary + "; call awaitFailover() first");
            }
            current.kill();
            return current;
        }
    }

    /**
     * Waits until every running sentinel reports the same primary, other than the one the group
     * last knew (the primary at start, or the one the previous call returned), has finished its
     * failover and has heard from the new primary, and that node answers {@code role:master}; then
     * links every other node to it through a new proxy (cut if replication is
     * {@linkplain #cutReplication() cut}) and returns it. A node that is not running (such as the
     * killed primary) gets the link in its configuration file and uses it when
     * {@linkplain RedisServer#restart() restarted}. Works after {@link #killPrimary()} and after any
     * other failover ({@code SENTINEL FAILOVER}, a paused primary). Does not wait for the new links
     * to be up: use {@link #awaitReplicated(Duration)}.
     *
     * <p>With two or more replicas this takes {@code failover-timeout} longer: the sentinel leading
     * the failover cannot repoint the other replicas (see the class comment) and ends the failover
     * only when that timeout expires. Should the sentinels fail over twice in a row (rare; see the
     * sentinels' logs), the node returned is the last one promoted.
     *
     * @param deadline how long to wait for the sentinels to agree on the new primary
     * @return the promoted node, now the primary the other nodes are linked to
     * @throws IllegalStateException if that does not happen within {@code deadline}; the message
     *     says what each sentinel reported
     */
    public RedisServer awaitFailover(Duration deadline) {
        Objects.requireNonNull(deadline, "deadline");
        requireOpen();
        RedisServer previous;
        synchronized (lock) {
            previous = linkedPrimary;
        }
        long end = System.nanoTime() + deadline.toNanos();
        while (true) {
            requireOpen();
            StringBuilder seen = new StringBuilder();
            RedisServer promoted = agreedNewPrimary(previous, seen);
            if (promoted != null) {
                synchronized (lock) {
                    requireOpen();
                    if (linkedPrimary == previous) {
                        relinkTo(promoted);
                    }
                    return linkedPrimary;
                }
            }
            if (System.nanoTime() - end > 0) {
                throw new IllegalStateException("no failover away from " + previous + " within " + deadline
                        + ": " + seen + "\n" + sentinelLogTails());
            }
            pause();
        }
    }

    /**
     * {@link #killPrimary()} then {@link #awaitFailover(Duration)} with a 30-second deadline.
     *
     * @return the promoted node, now the primary
     */
    public RedisServer failover() {
        killPrimary();
        return awaitFailover(FAILOVER_DEADLINE);
    }

    /**
     * Waits until every running {@linkplain #replicas() replica} is connected to the primary
     * (through its proxy) and has processed everything the primary had written when this method
     * was called (compares {@code INFO replication} offsets).
     *
     * @param deadline how long to wait for the replicas to catch up
     * @throws IllegalStateException if that does not happen within {@code deadline} (e.g.
     *     replication is cut; the message gives each replica's state), or if the primary is not
     *     running (after {@link #killPrimary()}, call {@link #awaitFailover(Duration)} first)
     */
    public void awaitReplicated(Duration deadline) {
        Objects.requireNonNull(deadline, "deadline");
        RedisServer primary;
        Map<RedisServer, TcpProxy> links;
        synchronized (lock) {
            requireOpen();
            primary = linkedPrimary;
            links = new LinkedHashMap<>(uplinks);
        }
        if (!primary.isRunning()) {
            throw new IllegalStateException("the primary " + primary + " is not running; after killPrimary(),"
                    + " call awaitFailover() first");
        }
        long target = Long.parseLong(info(primary, "replication").getOrDefault("master_repl_offset", "0"));
        long end = System.nanoTime() + deadline.toNanos();
        while (true) {
            List<String> behind = new ArrayList<>();
            for (Map.Entry<RedisServer, TcpProxy> link : links.entrySet()) {
                RedisServer replica = link.getKey();
                if (!replica.isRunning()) {
                    continue;
                }
                String lag = lagOf(replica, link.getValue().port(), target);
                if (lag != null) {
                    behind.add(replica.port() + ": " + lag);
                }
            }
            if (behind.isEmpty()) {
                return;
            }
            if (System.nanoTime() - end > 0) {
                throw new IllegalStateException("replicas did not catch up with primary " + primary.port()
                        + " (offset " + target + ") within " + deadline + ": " + behind);
            }
            pause();
        }
    }

    /** Kills every process and closes every proxy, deleting their directories. Idempotent. */
    @Override
    public void close() {
        List<AutoCloseable> all = new ArrayList<>();
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            all.addAll(sentinels);
            all.addAll(uplinks.values());
            all.addAll(nodes);
            uplinks.clear();
        }
        RuntimeException failure = null;
        for (AutoCloseable closeable : all) {
            try {
                closeable.close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = new IllegalStateException("closing the sentinel group failed", e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        synchronized (lock) {
            return "RedisSentinelGroup[" + settings.masterName() + ", primary "
                    + (linkedPrimary == null ? "none" : linkedPrimary.port())
                    + ", replicas " + uplinks.keySet().stream().map(r -> r.port() + "").toList()
                    + ", sentinels " + sentinels.stream().map(s -> s.port() + "").toList()
                    + (replicationCut ? ", replication cut" : "") + (closed ? ", closed" : "") + "]";
        }
    }

    // ---------------------------------------------------------------------------------------------

    private void startAll() {
        RedisServer primary = startDataNode();
        synchronized (lock) {
            linkedPrimary = primary;
        }
        for (int i = 0; i < settings.replicas(); i++) {
            RedisServer replica = startDataNode();
            synchronized (lock) {
                link(replica, primary);
            }
        }
        awaitReplicated(STARTUP_DEADLINE);
        String config = sentinelConfig(primary.port());
        for (int i = 0; i < SENTINELS; i++) {
            RedisServer.Builder builder = RedisServer.builder().configFile(config).arg("--sentinel");
            if (settings.sentinelPassword() != null) {
                builder.password(settings.sentinelPassword());
            }
            RedisServer sentinel = builder.start();
            synchronized (lock) {
                sentinels.add(sentinel);
            }
            try {
                sentinel.execute(QUERY_TIMEOUT, "SENTINEL", "DEBUG", "info-period", "1000");
            } catch (RedisServer.ErrorReply olderRedis) {
                // Before Redis 7: the default ten seconds; the sentinels just see changes later.
            }
        }
        awaitSentinelsReady();
    }

    private RedisServer startDataNode() {
        // The user is declared in the file, not on the command line: the file is rewritten with it
        // (CONFIG REWRITE) and Redis 7 refuses to start with a user declared twice.
        String config = "# data node of a relock-testkit RedisSentinelGroup; the group rewrites its replicaof\n"
                // Sentinels may promote (REPLICAOF NO ONE) but not repoint: see the class comment.
                + "user " + SENTINEL_USER + " on >" + monitorPassword + " ~* &* +@all"
                + " -replicaof -slaveof +replicaof|no +slaveof|no\n"
                + (settings.password() == null ? "" : "masterauth " + quoted(settings.password()) + "\n");
        RedisServer.Builder builder = RedisServer.builder()
                .configFile(config)
                .arg("--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0");
        if (settings.password() != null) {
            builder.password(settings.password());
        }
        RedisServer node = builder.start();
        synchronized (lock) {
            nodes.add(node);
        }
        return node;
    }

    private String sentinelConfig(int primaryPort) {
        String name = settings.masterName();
        return "sentinel resolve-hostnames no\n"
                + "sentinel announce-ip " + HOST + "\n"
                + "sentinel monitor " + name + " " + HOST + " " + primaryPort + " " + QUORUM + "\n"
                + "sentinel down-after-milliseconds " + name + " " + settings.downAfter().toMillis() + "\n"
                + "sentinel failover-timeout " + name + " " + settings.failoverTimeoutMillis() + "\n"
                + "sentinel parallel-syncs " + name + " 1\n"
                + "sentinel auth-user " + name + " " + SENTINEL_USER + "\n"
                + "sentinel auth-pass " + name + " " + monitorPassword + "\n"
                + (settings.sentinelPassword() == null ? ""
                        : "sentinel sentinel-pass " + quoted(settings.sentinelPassword()) + "\n");
    }

    /** {@code value} as a double-quoted argument of a redis.conf line. */
    private static String quoted(String value) {
        return "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /** Until each sentinel sees the primary up, every replica connected and the other sentinels. */
    private void awaitSentinelsReady() {
        long end = System.nanoTime() + STARTUP_DEADLINE.toNanos();
        while (true) {
            String problem = sentinelsNotReady();
            if (problem == null) {
                return;
            }
            if (System.nanoTime() - end > 0) {
                throw new IllegalStateException("the sentinels did not discover the group within " + STARTUP_DEADLINE
                        + ": " + problem + "\n" + sentinelLogTails());
            }
            pause();
        }
    }

    private String sentinelsNotReady() {
        String name = settings.masterName();
        for (RedisServer sentinel : sentinels()) {
            try {
                Map<String, String> master = pairs(sentinel.execute(QUERY_TIMEOUT, "SENTINEL", "MASTER", name));
                if (!"master".equals(master.get("flags"))
                        || !String.valueOf(SENTINELS - 1).equals(master.get("num-other-sentinels"))) {
                    return "sentinel " + sentinel.port() + " sees " + master;
                }
                List<?> replicas = (List<?>) sentinel.execute(QUERY_TIMEOUT, "SENTINEL", "REPLICAS", name);
                long ready = replicas.stream().map(RedisSentinelGroup::pairs)
                        .filter(r -> "slave".equals(r.get("flags")) && "ok".equals(r.get("master-link-status")))
                        .count();
                if (ready != settings.replicas()) {
                    return "sentinel " + sentinel.port() + " sees replicas " + replicas;
                }
            } catch (UncheckedIOException | RedisServer.ErrorReply e) {
                return "sentinel " + sentinel.port() + ": " + e.getMessage();
            }
        }
        return null;
    }

    /**
     * Points {@code node} at {@code target} through a new proxy, replacing its old one, and records
     * the link in the node's configuration file so that it survives a restart. Holds the lock.
     */
    private void link(RedisServer node, RedisServer target) {
        TcpProxy old = uplinks.remove(node);
        if (old != null) {
            old.close();
        }
        TcpProxy proxy = TcpProxy.start(HOST, target.port());
        if (replicationCut) {
            proxy.cut();
        }
        uplinks.put(node, proxy);
        String proxyPort = Integer.toString(proxy.port());
        if (node.isRunning()) {
            node.execute("REPLICAOF", HOST, proxyPort);
            node.execute("CONFIG", "REWRITE");
        } else {
            rewriteReplicaOf(node, "replicaof " + HOST + " " + proxyPort);
        }
    }

    /** Replaces the replicaof line of a stopped node's configuration file. */
    private static void rewriteReplicaOf(RedisServer node, String replicaOf) {
        Path file = node.dataDir().resolve(RedisServer.CONFIG_FILE);
        try {
            List<String> lines = new ArrayList<>();
            for (String line : Files.readAllLines(file)) {
                String directive = line.strip().toLowerCase(Locale.ROOT);
                if (!directive.startsWith("replicaof ") && !directive.startsWith("slaveof ")) {
                    lines.add(line);
                }
            }
            lines.add(replicaOf);
            Files.write(file, lines);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot rewrite " + file, e);
        }
    }

    /** After a failover: the promoted node loses its uplink, every other node follows it. */
    private void relinkTo(RedisServer promoted) {
        TcpProxy own = uplinks.remove(promoted);
        if (own != null) {
            own.close();
        }
        // The sentinel that promoted it rewrote its file already (REPLICAOF NO ONE); make sure of it.
        promoted.execute("CONFIG", "REWRITE");
        linkedPrimary = promoted;
        for (RedisServer node : nodes) {
            if (node != promoted) {
                link(node, promoted);
            }
        }
    }

    /**
     * The node all running sentinels have switched to, if it is not {@code previous}, each
     * sentinel has settled on it and it says role:master; else null.
     *
     * <p>"Settled" means the sentinel's master entry has flags exactly {@code master} (no failover
     * under way, not down) and a PONG from the new primary arrived since the switch ({@code
     * last-ping-sent} 0). The second condition matters: on {@code +switch-master} a sentinel resets
     * the entry as if a PING were pending since that instant, but may wait up to a second before
     * reconnecting; with a {@code down-after-milliseconds} of about a second it can then flag the
     * new primary {@code +sdown}, and votes left over from the failover just finished turn that
     * into {@code +odown} and a second, spurious failover. Returning only once every sentinel has
     * heard from the new primary closes that window.
     */
    private RedisServer agreedNewPrimary(RedisServer previous, StringBuilder seen) {
        Integer agreed = null;
        boolean settled = true;
        for (RedisServer sentinel : sentinels()) {
            if (!sentinel.isRunning()) {
                continue;
            }
            Map<String, String> master;
            try {
                master = pairs(sentinel.execute(QUERY_TIMEOUT, "SENTINEL", "MASTER", settings.masterName()));
            } catch (UncheckedIOException | RedisServer.ErrorReply e) {
                seen.append("sentinel ").append(sentinel.port()).append(": ").append(e.getMessage()).append("; ");
                return null;
            }
            seen.append("sentinel ").append(sentinel.port()).append(" reports ").append(master.get("ip")).append(':')
                    .append(master.get("port")).append(" flags ").append(master.get("flags"))
                    .append(master.containsKey("failover-state") ? " " + master.get("failover-state") : "")
                    .append(" last-ping-sent ").append(master.get("last-ping-sent")).append("; ");
            Integer port = HOST.equals(master.get("ip")) ? Integer.valueOf(master.get("port")) : null;
            if (port == null || (agreed != null && !agreed.equals(port))) {
                return null;
            }
            agreed = port;
            settled &= "master".equals(master.get("flags")) && "0".equals(master.get("last-ping-sent"));
        }
        if (agreed == null || agreed == previous.port() || !settled) {
            return null;
        }
        RedisServer node = nodeOnPort(agreed);
        if (node == null || !node.isRunning()) {
            seen.append("not a running node of this group");
            return null;
        }
        try {
            String role = info(node, "replication").get("role");
            seen.append("its role: ").append(role);
            return "master".equals(role) ? node : null;
        } catch (UncheckedIOException | RedisServer.ErrorReply e) {
            seen.append("its INFO failed: ").append(e.getMessage());
            return null;
        }
    }

    /** The primary's port as this sentinel reports it, or null if it does not answer. */
    private Integer reportedPrimaryPort(RedisServer sentinel) {
        try {
            Object reply = sentinel.execute(QUERY_TIMEOUT,
                    "SENTINEL", "GET-MASTER-ADDR-BY-NAME", settings.masterName());
            if (reply instanceof List<?> address && address.size() == 2 && HOST.equals(address.get(0))) {
                return Integer.valueOf(String.valueOf(address.get(1)));
            }
            return null;
        } catch (UncheckedIOException | RedisServer.ErrorReply e) {
            return null;
        }
    }

    /** Null if the replica is linked through {@code proxyPort} and has reached {@code target}; else why not. */
    private static String lagOf(RedisServer replica, int proxyPort, long target) {
        try {
            Map<String, String> info = info(replica, "replication");
            if (!"slave".equals(info.get("role"))) {
                return "role " + info.get("role");
            }
            if (!String.valueOf(proxyPort).equals(info.get("master_port"))) {
                return "replicates from port " + info.get("master_port") + ", not its proxy " + proxyPort;
            }
            if (!"up".equals(info.get("master_link_status"))) {
                return "link " + info.get("master_link_status");
            }
            long offset = Long.parseLong(info.getOrDefault("slave_repl_offset", "-1"));
            return offset >= target ? null : "offset " + offset;
        } catch (UncheckedIOException | RedisServer.ErrorReply e) {
            return e.getMessage();
        }
    }

    private RedisServer nodeOnPort(int port) {
        for (RedisServer node : nodes()) {
            if (node.port() == port) {
                return node;
            }
        }
        return null;
    }

    private static Map<String, String> info(RedisServer server, String section) {
        Map<String, String> values = new HashMap<>();
        for (String line : String.valueOf(server.execute(QUERY_TIMEOUT, "INFO", section)).split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#")) {
                values.put(line.substring(0, colon), line.substring(colon + 1));
            }
        }
        return values;
    }

    /** A flat RESP array [k1, v1, k2, v2, ...] as a map. */
    private static Map<String, String> pairs(Object reply) {
        Map<String, String> map = new LinkedHashMap<>();
        if (reply instanceof List<?> list) {
            for (int i = 0; i + 1 < list.size(); i += 2) {
                map.put(String.valueOf(list.get(i)), String.valueOf(list.get(i + 1)));
            }
        }
        return map;
    }

    private String sentinelLogTails() {
        StringBuilder logs = new StringBuilder();
        for (RedisServer sentinel : sentinels()) {
            logs.append("--- last lines of sentinel ").append(sentinel.port()).append(" log:\n")
                    .append(tail(sentinel.logFile()));
        }
        return logs.toString();
    }

    private static String tail(Path file) {
        try {
            List<String> lines = Files.readAllLines(file);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size())) + "\n";
        } catch (IOException | RuntimeException e) {
            return "(unreadable: " + e + ")\n";
        }
    }

    private void requireOpen() {
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException("this RedisSentinelGroup is closed");
            }
        }
    }

    /** The polling interval of the waits above; each wait also has a deadline. */
    private static void pause() {
        try {
            TimeUnit.MILLISECONDS.sleep(POLL_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}

package io.relock.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * N independent Redis masters on free ports of 127.0.0.1 (no replication between them), as
 * Redlock runs on, for tests. Each master is reached directly ({@link #uris()}) or through a
 * {@link TcpProxy} of its own ({@link #proxiedUris()}), which {@link #partition(int)} and {@link
 * #heal(int)} act on. Every process is a {@link RedisServer}, so nothing outlives the JVM.
 *
 * <pre>{@code
 * try (RedisMasterGroup masters = RedisMasterGroup.start(3)) {
 *     Relock relock = Relock.builder().redlock(masters.proxiedUris()).build();
 *     masters.partition(0);               // master 0 unreachable: timeouts, not errors
 *     masters.heal(0);
 *     masters.master(1).restartWithoutData();   // as after losing its disk
 * }
 * }</pre>
 */
public final class RedisMasterGroup implements AutoCloseable {
    private final List<RedisServer> masters = new ArrayList<>();
    private final List<TcpProxy> proxies = new ArrayList<>();

    private RedisMasterGroup() {
    }

    /**
     * Starts {@code n} masters with the test kit's defaults (no persistence).
     *
     * @param n how many masters, at least 1 (Redlock wants an odd number of at least three)
     * @return the running group, each master behind a proxy of its own; close it to stop them all
     * @throws IllegalArgumentException if {@code n} is below 1
     */
    public static RedisMasterGroup start(int n) {
        return start(n, b -> b);
    }

    /**
     * Starts {@code n} masters, each built by {@code custom} applied to a fresh {@link
     * RedisServer#builder()} (for example to turn persistence on).
     *
     * @param n how many masters, at least 1
     * @param custom applied once per master to a fresh builder; returns the builder to start from
     * @return the running group, each master behind a proxy of its own; close it to stop them all.
     *     If a master or proxy fails to start, those already started are stopped and the failure is
     *     rethrown
     * @throws IllegalArgumentException if {@code n} is below 1
     */
    public static RedisMasterGroup start(int n, UnaryOperator<RedisServer.Builder> custom) {
        if (n < 1) {
            throw new IllegalArgumentException("a master group needs at least one master, got " + n);
        }
        RedisMasterGroup group = new RedisMasterGroup();
        try {
            for (int i = 0; i < n; i++) {
                RedisServer server = custom.apply(RedisServer.builder()).start();
                group.masters.add(server);
                group.proxies.add(TcpProxy.start(server.host(), server.port()));
            }
        } catch (RuntimeException e) {
            group.close();
            throw e;
        }
        return group;
    }

    /**
     * How many masters.
     *
     * @return the number of masters, as given to {@code start}
     */
    public int size() {
        return masters.size();
    }

    /**
     * Master {@code i}, to kill, pause, restart or query directly.
     *
     * @param i the master's index, from 0 to {@link #size()} - 1
     * @return the master's server
     * @throws IndexOutOfBoundsException if there is no master {@code i}
     */
    public RedisServer master(int i) {
        return masters.get(i);
    }

    /**
     * Every master, in order.
     *
     * @return an unmodifiable list of the masters' servers
     */
    public List<RedisServer> masters() {
        return List.copyOf(masters);
    }

    /**
     * The masters' own URIs, bypassing the proxies.
     *
     * @return a new array holding each master's {@link RedisServer#uri()}, in order
     */
    public String[] uris() {
        return masters.stream().map(RedisServer::uri).toArray(String[]::new);
    }

    /**
     * URIs through each master's proxy: what {@link #partition(int)} cuts off.
     *
     * @return a new array holding each proxy's {@link TcpProxy#uri()} (without credentials), in
     *     master order
     */
    public String[] proxiedUris() {
        return proxies.stream().map(TcpProxy::uri).toArray(String[]::new);
    }

    /**
     * The proxy in front of master {@code i}.
     *
     * @param i the master's index, from 0 to {@link #size()} - 1
     * @return the proxy, to add latency or cut connections
     * @throws IndexOutOfBoundsException if there is no master {@code i}
     */
    public TcpProxy proxy(int i) {
        return proxies.get(i);
    }

    /**
     * Makes master {@code i} unreachable through its proxy: bytes are dropped both ways, so clients
     * see timeouts (see {@link TcpProxy#blackhole()}).
     *
     * @param i the master's index, from 0 to {@link #size()} - 1
     */
    public void partition(int i) {
        proxies.get(i).blackhole();
    }

    /**
     * Ends {@link #partition(int)}: plain forwarding again.
     *
     * @param i the master's index, from 0 to {@link #size()} - 1
     */
    public void heal(int i) {
        proxies.get(i).restore();
    }

    /** Runs {@code FLUSHALL} on every running master. */
    public void flushAll() {
        for (RedisServer m : masters) {
            if (m.isRunning()) {
                m.execute("FLUSHALL");
            }
        }
    }

    /** Stops every proxy and master. Idempotent. */
    @Override
    public void close() {
        for (TcpProxy p : proxies) {
            p.close();
        }
        for (RedisServer m : masters) {
            m.close();
        }
    }

    /** The masters as {@link RedisServer#toString()} shows them: passwords hidden. */
    @Override
    public String toString() {
        return "RedisMasterGroup" + masters;
    }
}

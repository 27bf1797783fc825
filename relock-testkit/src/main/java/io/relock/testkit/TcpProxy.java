package io.relock.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on a free port of 127.0.0.1 that forwards to a target (usually a
 * {@link RedisServer}) and can inject network faults: {@link #cut()}, {@link #blackhole()},
 * {@link #delay(Duration)}, undone by {@link #restore()}. Each of these replaces the previous
 * fault. Bytes in each direction are forwarded in order.
 *
 * <pre>{@code
 * try (TcpProxy proxy = TcpProxy.start(redis.host(), redis.port())) {
 *     RedisClient client = RedisClient.create(proxy.uri());
 *     proxy.blackhole();   // the client's commands now time out
 *     proxy.restore();
 * }
 * }</pre>
 *
 * <p>Each connection uses four daemon threads (a reader and a writer per direction); fine for
 * the dozens of connections a test opens. Thread-safe.
 */
public final class TcpProxy implements AutoCloseable {

    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    private static final int CHUNK_SIZE = 16 * 1024;
    private static final AtomicInteger PROXY_IDS = new AtomicInteger();

    private enum Mode { FORWARD, BLACKHOLE, CUT }

    private final InetSocketAddress target;
    private final ServerSocket listener;
    private final ExecutorService threads;
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private final Set<Socket> parked = ConcurrentHashMap.newKeySet();
    private volatile Mode mode = Mode.FORWARD;
    private volatile long delayNanos;
    private volatile boolean closed;

    private TcpProxy(InetSocketAddress target) throws IOException {
        this.target = target;
        this.listener = new ServerSocket();
        listener.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
        int id = PROXY_IDS.incrementAndGet();
        AtomicInteger threadIds = new AtomicInteger();
        this.threads = Executors.newCachedThreadPool(task -> {
            Thread thread = new Thread(task, "relock-proxy-" + id + "-" + threadIds.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        threads.execute(this::acceptLoop);
    }

    /**
     * Starts a proxy on a free port of 127.0.0.1 forwarding to {@code targetHost:targetPort}.
     * The target is connected to once per accepted client; it need not be up yet.
     *
     * @param targetHost the host to forward to, a name or an address
     * @param targetPort the port to forward to, 1 to 65535
     * @return the running proxy, forwarding; close it to stop it
     * @throws IllegalArgumentException if {@code targetPort} is out of range
     * @throws UncheckedIOException if the proxy cannot listen
     */
    public static TcpProxy start(String targetHost, int targetPort) {
        Objects.requireNonNull(targetHost, "targetHost");
        if (targetPort < 1 || targetPort > 65535) {
            throw new IllegalArgumentException("targetPort must be 1..65535: " + targetPort);
        }
        try {
            return new TcpProxy(new InetSocketAddress(targetHost, targetPort));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a proxy to " + targetHost + ":" + targetPort, e);
        }
    }

    /**
     * The port the proxy listens on.
     *
     * @return the proxy's port on 127.0.0.1
     */
    public int port() {
        return listener.getLocalPort();
    }

    /**
     * {@code redis://127.0.0.1:<proxy port>}, without credentials.
     *
     * @return the URI that reaches the target through this proxy
     */
    public String uri() {
        return "redis://127.0.0.1:" + port();
    }

    /**
     * Resets every open connection now (clients see a reset or end of stream on their next read)
     * and resets new connections as soon as they are accepted, until {@link #restore()}.
     */
    public void cut() {
        mode = Mode.CUT;
        for (Link link : links) {
            link.abort();
        }
        releaseParked();
    }

    /**
     * Keeps connections open but silently drops all bytes in both directions, as an unreachable
     * network would; clients see timeouts, not errors. New connections are accepted and treated
     * the same, even if the target is down. The target closing a connection is not passed on
     * either. Bytes dropped here are
     * gone: after {@link #restore()} such a connection's protocol stream may be out of step, which
     * clients usually handle by timing out and reconnecting.
     */
    public void blackhole() {
        mode = Mode.BLACKHOLE;
    }

    /**
     * Forwards everything with {@code latency} added to every chunk of bytes, in both directions,
     * preserving order. {@code Duration.ZERO} means plain forwarding. Lifts a cut or blackhole.
     *
     * @param latency the delay added to each chunk, zero or more
     * @throws IllegalArgumentException if {@code latency} is negative
     */
    public void delay(Duration latency) {
        Objects.requireNonNull(latency, "latency");
        if (latency.isNegative()) {
            throw new IllegalArgumentException("latency must not be negative: " + latency);
        }
        delayNanos = latency.toNanos();
        mode = Mode.FORWARD;
        releaseParked();
    }

    /** Plain forwarding again, for new connections and for existing ones that were not cut. */
    public void restore() {
        delayNanos = 0;
        mode = Mode.FORWARD;
        releaseParked();
    }

    /** Stops listening and closes every connection. Idempotent. */
    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException ignored) {
            // Closing is all we wanted.
        }
        for (Link link : links) {
            link.abort();
        }
        releaseParked();
        threads.shutdownNow();
    }

    @Override
    public String toString() {
        return "TcpProxy[127.0.0.1:" + port() + " -> " + target.getHostString() + ":" + target.getPort() + ", " + mode + "]";
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("relock-testkit: proxy " + port() + " stopped accepting: " + e);
                }
                return;
            }
            if (mode == Mode.CUT) {
                reset(client);
                continue;
            }
            spawn(() -> connect(client), client);
        }
    }

    private void connect(Socket client) {
        Socket upstream = new Socket();
        try {
            upstream.connect(target, (int) CONNECT_TIMEOUT.toMillis());
            upstream.setTcpNoDelay(true);
            client.setTcpNoDelay(true);
        } catch (IOException e) {
            closeQuietly(upstream);
            if (mode == Mode.BLACKHOLE) {
                park(client);
            } else {
                reset(client);  // the target is down: as close to "connection refused" as a proxy gets
            }
            return;
        }
        Link link = new Link(client, upstream);
        links.add(link);
        if (mode == Mode.CUT || closed) {
            link.abort();
            return;
        }
        link.start();
    }

    /**
     * Holds a client connection that has no target behind it (the target was down during a
     * blackhole), discarding what it sends, so that the client times out as it would behind a
     * real partition. Leaving the blackhole resets it: there is nothing to forward it to.
     */
    private void park(Socket client) {
        parked.add(client);
        if (mode != Mode.BLACKHOLE || closed) {
            releaseParked();
            return;
        }
        spawn(() -> {
            byte[] discard = new byte[CHUNK_SIZE];
            try {
                InputStream in = client.getInputStream();
                while (in.read(discard) >= 0) {
                    // dropped, as everything is in a blackhole
                }
            } catch (IOException e) {
                // Reset when the blackhole ends, or by the client.
            }
            parked.remove(client);
            closeQuietly(client);
        }, client);
    }

    /**
     * Runs {@code task} on the proxy's threads, or, when {@link #close()} has already stopped them
     * (a connection accepted just as the proxy closed), closes {@code sockets} instead.
     */
    private void spawn(Runnable task, Socket... sockets) {
        try {
            threads.execute(task);
        } catch (RejectedExecutionException e) {
            for (Socket socket : sockets) {
                closeQuietly(socket);
            }
        }
    }

    private void releaseParked() {
        for (Socket client : parked) {
            parked.remove(client);
            reset(client);
        }
    }

    /** One proxied connection: a reader thread and a writer thread per direction. */
    private final class Link {
        private static final byte[] END = new byte[0];

        private final Socket client;
        private final Socket upstream;
        private final BlockingQueue<Chunk> toUpstream = new LinkedBlockingQueue<>();
        private final BlockingQueue<Chunk> toClient = new LinkedBlockingQueue<>();
        private final AtomicBoolean closed = new AtomicBoolean();

        Link(Socket client, Socket upstream) {
            this.client = client;
            this.upstream = upstream;
        }

        void start() {
            spawn(() -> read(client, toUpstream, false), client, upstream);
            spawn(() -> write(upstream, toUpstream), client, upstream);
            spawn(() -> read(upstream, toClient, true), client, upstream);
            spawn(() -> write(client, toClient), client, upstream);
        }

        private void read(Socket from, BlockingQueue<Chunk> queue, boolean fromTarget) {
            byte[] buffer = new byte[CHUNK_SIZE];
            try {
                InputStream in = from.getInputStream();
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    if (mode == Mode.FORWARD) {
                        queue.add(new Chunk(Arrays.copyOf(buffer, n), System.nanoTime() + delayNanos));
                    }
                }
            } catch (IOException e) {
                // Reset by the peer, or closed by us: either way this direction is over.
            }
            if (fromTarget && mode == Mode.BLACKHOLE && !closed.get()) {
                return;  // a partitioned client must not learn that the target went away
            }
            queue.add(new Chunk(END, 0));
        }

        private void write(Socket to, BlockingQueue<Chunk> queue) {
            try {
                OutputStream out = to.getOutputStream();
                while (true) {
                    Chunk chunk = queue.take();
                    if (chunk.bytes() == END) {
                        break;
                    }
                    long wait = chunk.dueNanos() - System.nanoTime();
                    if (wait > 0) {
                        TimeUnit.NANOSECONDS.sleep(wait);  // injected latency, not a wait for a condition
                    }
                    if (mode == Mode.FORWARD) {
                        out.write(chunk.bytes());
                        out.flush();
                    }
                }
            } catch (IOException | InterruptedException e) {
                // The other side is gone or the proxy is closing.
            }
            close();
        }

        /** Closes both sockets after an end of stream, letting already-written bytes arrive. */
        private void close() {
            if (closed.compareAndSet(false, true)) {
                links.remove(this);
                closeQuietly(client);
                closeQuietly(upstream);
                wakeWriters();
            }
        }

        /** Closes both sockets with a TCP reset, so that peers notice at once. */
        void abort() {
            if (closed.compareAndSet(false, true)) {
                links.remove(this);
                reset(client);
                reset(upstream);
                wakeWriters();
            }
        }

        private void wakeWriters() {
            toUpstream.add(new Chunk(END, 0));
            toClient.add(new Chunk(END, 0));
        }
    }

    private record Chunk(byte[] bytes, long dueNanos) {
    }

    private static void reset(Socket socket) {
        try {
            socket.setSoLinger(true, 0);
        } catch (IOException ignored) {
            // Already closed; a plain close below is all that is left.
        }
        closeQuietly(socket);
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // Nothing more to do for a socket we are discarding.
        }
    }
}

package io.relock.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real {@code redis-server} process listening on a free port of 127.0.0.1, for tests.
 *
 * <p>{@link #start()} gives a server without persistence; {@link #builder()} adds persistence,
 * a password, an ACL user, TLS, a configuration file or raw arguments (a configuration file plus
 * {@code --sentinel} starts a Redis Sentinel, see {@link Builder#configFile(String)}; for a whole
 * replicated group watched by sentinels see {@link RedisSentinelGroup}). Which binary runs is
 * decided once per JVM (see {@link #binary()}). Each server has its own temporary directory
 * ({@link #dataDir()}), holding its data files and its {@code redis.log}.
 *
 * <p>Lifecycle: {@link #stop()} shuts down gracefully, {@link #kill()} sends SIGKILL,
 * {@link #restart()} starts again on the same port, {@link #pause()}/{@link #resume()} freeze and
 * thaw the process. {@link #close()} kills and deletes everything and is the only method that
 * makes the object unusable. A server still running when the JVM exits is killed by a shutdown
 * hook; one left behind by a JVM that was itself killed is killed the next time the test kit is
 * used on the machine.
 *
 * <p>Lifecycle methods are thread-safe. {@link #execute} may be called concurrently with them and
 * with itself; each call uses its own connection.
 *
 * <p>Linux only (signals are sent with {@code kill}, process states are read from {@code /proc}).
 */
public final class RedisServer implements AutoCloseable {

    private static final String HOST = "127.0.0.1";
    private static final String LOG_FILE = "redis.log";
    private static final String OUTPUT_FILE = "redis.out";
    /** The name of the {@link Builder#configFile(String) configuration file} in the data directory. */
    static final String CONFIG_FILE = "redis.conf";
    private static final Duration STARTUP_DEADLINE = Duration.ofSeconds(10);
    private static final Duration EXIT_DEADLINE = Duration.ofSeconds(10);
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(1);
    private static final int FREE_PORT_ATTEMPTS = 5;
    private static final int LOG_TAIL_LINES = 40;

    private static Boolean tlsSupported;
    private static String binaryVersion;

    private final Settings settings;
    private final Path binary;
    private final TlsMaterial tlsMaterial;
    private final Path dir;
    private volatile int port;
    private volatile Process process;
    private Path pidFile;
    private boolean paused;
    private boolean closed;

    /** An error reply from Redis; the message is the reply text, e.g. {@code "NOAUTH Authentication required."}. */
    public static final class ErrorReply extends RuntimeException {

        /**
         * Creates an error carrying the reply text as its message.
         *
         * @param message the error reply's text, without the leading {@code -}, e.g. {@code
         *     "WRONGTYPE Operation against a key holding the wrong kind of value"}
         */
        public ErrorReply(String message) {
            super(message);
        }
    }

    /** Collects options for {@link #start()}; every setter checks its argument at once. */
    public static final class Builder {

        private boolean persistence;
        private String password;
        private String aclUser;
        private String aclPassword;
        private List<String> aclRules = List.of("~*", "&*", "+@all");
        private boolean tls;
        private final List<String> extraArgs = new ArrayList<>();
        private Path binary;
        private String configFile;
        private final Map<String, String> environment = new LinkedHashMap<>();

        private Builder() {
        }

        /**
         * Sets an environment variable of the redis-server process, on top of this JVM's
         * environment; kept across {@link RedisServer#restart()}. For example {@code LD_PRELOAD}, to
         * run the server with a library that fakes its clock.
         *
         * @param name the variable's name; replaces an earlier value given for the same name
         * @param value the variable's value; may be empty, not null
         * @return this builder
         * @throws IllegalArgumentException if {@code name} is blank or contains {@code '='}
         */
        public Builder environment(String name, String value) {
            Objects.requireNonNull(value, "value");
            if (name == null || name.isBlank() || name.indexOf('=') >= 0) {
                throw new IllegalArgumentException("an environment variable name must be non-blank without '=': '"
                        + name + "'");
            }
            environment.put(name, value);
            return this;
        }

        /**
         * With {@code true}, the server keeps an append-only file ({@code appendfsync always}) in its
         * data directory, so acknowledged writes survive {@link RedisServer#stop()},
         * {@link RedisServer#kill()} and {@link RedisServer#restart()}. Default: no persistence.
         *
         * @param enabled whether to keep an append-only file
         * @return this builder
         */
        public Builder persistence(boolean enabled) {
            this.persistence = enabled;
            return this;
        }

        /**
         * Sets {@code requirepass}: the default user needs this password.
         *
         * @param password the password; non-empty, without control characters (spaces, {@code #},
         *     {@code @} and other URI delimiters are fine: {@link RedisServer#uri()} percent-encodes them)
         * @return this builder
         * @throws IllegalArgumentException if {@code password} is null, empty or contains a control
         *     character
         */
        public Builder password(String password) {
            this.password = requirePassword("password", password);
            return this;
        }

        /**
         * Creates an ACL user with all permissions on all keys and channels. Unless
         * {@link #password(String)} is also set, the default user is disabled, so every client must
         * authenticate as this user. {@link RedisServer#execute} and {@link RedisServer#uri()} use it.
         *
         * @param user the user's name; non-empty, without whitespace, not {@code default}
         * @param password the user's password; non-empty, without control characters
         * @return this builder
         * @throws IllegalArgumentException if {@code user} is null, empty or contains whitespace, or
         *     is {@code default}, or {@code password} is null, empty or contains a control character
         */
        public Builder aclUser(String user, String password) {
            return aclUser(user, password, "~* &* +@all");
        }

        /**
         * Like {@link #aclUser(String, String)}, but the user gets only {@code rules}: ACL rules as
         * {@code ACL SETUSER} takes them, separated by spaces (for example {@code "~app:* +@read"}).
         * {@link RedisServer#execute} then runs as that user too. The test kit needs {@code PING}
         * and {@code INFO} of it (to see that the server is up and has loaded its data); a server
         * whose {@code SHUTDOWN} the user may not send is stopped with a signal.
         *
         * @param user the user's name; non-empty, without whitespace, not {@code default}
         * @param password the user's password; non-empty, without control characters
         * @param rules the user's ACL rules, separated by spaces
         * @return this builder
         * @throws IllegalArgumentException if {@code rules} is blank, {@code user} is null, empty or
         *     contains whitespace, {@code password} is null, empty or contains a control character,
         *     or {@code user} is {@code default}
         */
        public Builder aclUser(String user, String password, String rules) {
            requireToken("ACL user", user);
            if (user.equals("default")) {
                throw new IllegalArgumentException("ACL user 'default' is the built-in user; use password(...) for it");
            }
            Objects.requireNonNull(rules, "rules");
            if (rules.isBlank()) {
                throw new IllegalArgumentException("ACL rules must not be blank; \"~* &* +@all\" allows everything");
            }
            this.aclUser = user;
            this.aclPassword = requirePassword("ACL password", password);
            this.aclRules = List.of(rules.trim().split("\\s+"));
            return this;
        }

        /**
         * With {@code true}, the server accepts only TLS connections, with a self-signed certificate
         * generated by the {@code openssl} command. Check {@link RedisServer#tlsSupported()} first.
         *
         * @param enabled whether the server speaks TLS only
         * @return this builder
         */
        public Builder tls(boolean enabled) {
            this.tls = enabled;
            return this;
        }

        /**
         * Appends raw command-line arguments, e.g. {@code arg("--maxmemory", "10mb")}; may be called
         * repeatedly.
         *
         * @param extraArgs the arguments, passed to redis-server as they are, after the test kit's own
         * @return this builder
         * @throws IllegalArgumentException if an argument is null
         */
        public Builder arg(String... extraArgs) {
            Objects.requireNonNull(extraArgs, "extraArgs");
            for (String arg : extraArgs) {
                if (arg == null) {
                    throw new IllegalArgumentException("extra arguments must not contain null: " + Arrays.toString(extraArgs));
                }
            }
            this.extraArgs.addAll(Arrays.asList(extraArgs));
            return this;
        }

        /**
         * Writes {@code content} to {@code redis.conf} in the server's {@link RedisServer#dataDir()
         * data directory} before the process starts, and passes that file to redis-server as its
         * first argument. The options the test kit sets on the command line ({@code --port},
         * {@code --bind}, {@code --dir}, {@code --logfile}, ...) and {@link #arg(String...)} follow
         * it, so they override the file. The file is written once, when the server is first started,
         * and kept across {@link RedisServer#restart()}: redis-server may rewrite it ({@code CONFIG
         * REWRITE}), and a sentinel records its state there, as in a real deployment.
         *
         * <p>This is how to start a Redis Sentinel with the same binary (a sentinel refuses to run
         * without a writable configuration file):
         *
         * <pre>{@code
         * RedisServer sentinel = RedisServer.builder()
         *         .configFile("sentinel monitor mymaster 127.0.0.1 " + primary.port() + " 1\n")
         *         .arg("--sentinel")
         *         .start();
         * }</pre>
         *
         * {@link RedisServer#execute}, {@link RedisServer#stop()} and the other lifecycle methods
         * work on a sentinel as on a server; persistence and TLS options make no sense for one.
         *
         * <p>{@code CONFIG REWRITE} also writes every ACL user into the file. Redis 7 then refuses
         * to restart if the command line declares one of them again ({@code "Duplicate user
         * found"}), so a server that rewrites its configuration should get its users from the file,
         * not from {@link #aclUser} or {@code arg("--user", ...)}.
         *
         * @param content the file's text, in redis.conf syntax; replaces content given earlier
         * @return this builder
         */
        public Builder configFile(String content) {
            this.configFile = Objects.requireNonNull(content, "content");
            return this;
        }

        /**
         * Runs this binary instead of the one {@link RedisServer#binary()} finds.
         *
         * @param redisServer the redis-server executable
         * @return this builder
         */
        public Builder binary(Path redisServer) {
            this.binary = Objects.requireNonNull(redisServer, "redisServer");
            return this;
        }

        /**
         * Starts a server with these options and returns once it answers PING. The builder may be
         * reused; later changes do not affect servers already started.
         *
         * @return the running server; close it to kill it and delete its data directory
         * @throws IllegalStateException if the server does not come up; the message includes the
         *     tail of its log
         */
        public RedisServer start() {
            return RedisServer.launch(new Settings(persistence, password, aclUser, aclPassword, aclRules, tls,
                    List.copyOf(extraArgs), binary, configFile, Map.copyOf(environment)));
        }

        /**
         * A password as redis-server takes it on its command line (each argument is quoted, so
         * spaces and {@code #} are fine; Redis 6.2 and 7 alike) and in AUTH. Never quoted in the
         * message.
         */
        static String requirePassword(String what, String value) {
            if (value == null || value.isEmpty() || value.chars().anyMatch(Character::isISOControl)) {
                throw new IllegalArgumentException(what + " must be non-empty without control characters");
            }
            return value;
        }

        private static String requireToken(String what, String value) {
            if (value == null || value.isEmpty() || value.chars().anyMatch(Character::isWhitespace)) {
                throw new IllegalArgumentException(what + " must be non-empty without whitespace: '" + value + "'");
            }
            return value;
        }
    }

    private record Settings(boolean persistence, String password, String aclUser, String aclPassword,
            List<String> aclRules, boolean tls, List<String> extraArgs, Path binary, String configFile, Map<String, String> environment) {
    }

    /** Thrown inside this class when redis-server could not bind its port. */
    private static final class PortTaken extends RuntimeException {
        PortTaken(String message) {
            super(message);
        }
    }

    private RedisServer(Settings settings) {
        ProcessJanitor.ensureInitialized();
        this.settings = settings;
        this.binary = settings.binary() != null ? settings.binary() : binary();
        this.tlsMaterial = settings.tls() ? TlsMaterial.get() : null;
        try {
            Files.createDirectories(ProcessJanitor.BASE_DIR);
            this.dir = Files.createTempDirectory(ProcessJanitor.BASE_DIR, "redis-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a data directory under " + ProcessJanitor.BASE_DIR, e);
        }
        ProcessJanitor.deleteOnExit(dir);
    }

    /**
     * Starts a server on a free port, without persistence or authentication.
     *
     * @return the running server, answering PING; close it to kill it and delete its data directory
     * @throws IllegalStateException if the server does not come up; the message includes the tail
     *     of its log
     */
    public static RedisServer start() {
        return builder().start();
    }

    /**
     * Options for a server: persistence, password, ACL user, TLS, raw arguments.
     *
     * @return a new builder with the defaults of {@link #start()}
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The redis-server binary this JVM uses: the file named by the environment variable
     * {@code RELOCK_REDIS_SERVER}, else {@code redis-server} on the PATH, else the binary shipped in
     * the embedded-redis jar, extracted to {@code ${java.io.tmpdir}/relock-testkit/bin}. Decided on
     * first use and logged once to System.err.
     *
     * @return the path of the redis-server executable, the same for every call
     * @throws IllegalStateException if none applies (e.g. no binary for this OS/architecture)
     */
    public static Path binary() {
        return RedisBinary.get();
    }

    /**
     * The version of {@link #binary()} as it prints it, such as {@code "6.2.11"}: found once, by
     * running it with {@code --version}.
     *
     * @return the version, as {@code major.minor.patch}
     * @throws IllegalStateException if the binary does not print one
     */
    public static synchronized String binaryVersion() {
        if (binaryVersion == null) {
            String printed = ExternalCommand.runOrFail(null, List.of(binary().toString(), "--version"));
            Matcher v = Pattern.compile("v=(\\d+\\.\\d+\\.\\d+)").matcher(printed);
            if (!v.find()) {
                throw new IllegalStateException(binary() + " --version printed no version: " + printed.strip());
            }
            binaryVersion = v.group(1);
        }
        return binaryVersion;
    }

    /**
     * Whether {@link #binary()} is at least version {@code major.minor}: for a test of what only a
     * newer server has to skip itself on an older one, saying so.
     *
     * @param major the least major version, e.g. 7 for 7.2
     * @param minor the least minor version within {@code major}, e.g. 2 for 7.2
     * @return whether the binary's version is {@code major.minor} or later
     * @throws IllegalStateException if the binary does not print its version
     */
    public static boolean binaryAtLeast(int major, int minor) {
        String[] parts = binaryVersion().split("\\.");
        int ma = Integer.parseInt(parts[0]);
        return ma > major || (ma == major && Integer.parseInt(parts[1]) >= minor);
    }

    /**
     * Whether {@link Builder#tls(boolean) TLS servers} can be started: {@code openssl} is installed
     * and {@link #binary()} was built with TLS. Found out once, by trying, then cached.
     *
     * @return whether a TLS server started and answered PING; when not, the reason is printed to
     *     System.err
     */
    public static synchronized boolean tlsSupported() {
        if (tlsSupported == null) {
            tlsSupported = probeTls();
        }
        return tlsSupported;
    }

    private static boolean probeTls() {
        try (RedisServer probe = builder().tls(true).start()) {
            return "PONG".equals(probe.execute("PING"));
        } catch (RuntimeException e) {
            String reason = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
            System.err.println("relock-testkit: TLS servers are not available: " + reason);
            return false;
        }
    }

    private static RedisServer launch(Settings settings) {
        RedisServer server = new RedisServer(settings);
        try {
            server.writeConfigFile();
            server.startOnFreePort();
            return server;
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    /**
     * Always {@code "127.0.0.1"}.
     *
     * @return the address the server listens on
     */
    public String host() {
        return HOST;
    }

    /**
     * The port, fixed for the life of this object (a restart reuses it); the TLS port when TLS is on.
     *
     * @return the port the server listens on
     */
    public int port() {
        return port;
    }

    /**
     * A URI for Redis clients such as Lettuce: {@code redis://127.0.0.1:PORT}, with
     * {@code user:password@} or {@code :password@} when the server needs them, and
     * {@code rediss://...?verifyPeer=NONE} when TLS is on.
     *
     * @return the URI, with the credentials URL-encoded
     */
    public String uri() {
        StringBuilder uri = new StringBuilder(settings.tls() ? "rediss://" : "redis://");
        if (settings.aclUser() != null) {
            uri.append(encode(settings.aclUser())).append(':').append(encode(settings.aclPassword())).append('@');
        } else if (settings.password() != null) {
            uri.append(':').append(encode(settings.password())).append('@');
        }
        uri.append(HOST).append(':').append(port);
        if (settings.tls()) {
            uri.append("?verifyPeer=NONE");
        }
        return uri.toString();
    }

    /**
     * The pid of the current (or, once stopped, the last) redis-server process.
     *
     * @return the operating system's process id
     */
    public long pid() {
        return process.pid();
    }

    /**
     * The server's temporary directory: data files, {@code redis.log}. Deleted by {@link #close()}.
     *
     * @return the directory, under {@code ${java.io.tmpdir}/relock-testkit}
     */
    public Path dataDir() {
        return dir;
    }

    /**
     * The server's log file, kept across restarts; handy when a test fails.
     *
     * @return {@code redis.log} in the {@link #dataDir() data directory}
     */
    public Path logFile() {
        return dir.resolve(LOG_FILE);
    }

    /**
     * Runs one command on a fresh connection with a 5-second connect/read timeout, authenticating
     * first when the server needs it and speaking TLS when it is on.
     *
     * @param args the command and its arguments, e.g. {@code "SET", "k", "v"}; at least one, none
     *     null (checked as for {@link #execute(Duration, String...)})
     * @return a {@code Long}, a {@code String} (status or bulk, UTF-8), a {@code List<Object>} of
     *     such values (an error inside an array, e.g. from EXEC, appears as an {@link ErrorReply}
     *     element), or {@code null}
     * @throws ErrorReply if Redis answers with an error
     * @throws UncheckedIOException if the server cannot be reached, closes the connection, or does
     *     not answer in time (cause: {@link java.net.SocketTimeoutException})
     */
    public Object execute(String... args) {
        return execute(COMMAND_TIMEOUT, args);
    }

    /**
     * Like {@link #execute(String...)} with {@code timeout} instead of 5 seconds for connect and read.
     *
     * @param timeout bounds the connect, the TLS handshake and each read of the reply
     * @param args the command and its arguments; at least one, none null
     * @return the reply, as for {@link #execute(String...)}
     * @throws IllegalArgumentException if {@code args} is empty or contains null
     * @throws ErrorReply if Redis answers with an error
     * @throws UncheckedIOException if the server cannot be reached, closes the connection, or does
     *     not answer in time
     */
    public Object execute(Duration timeout, String... args) {
        Objects.requireNonNull(timeout, "timeout");
        if (args == null || args.length == 0 || Arrays.asList(args).contains(null)) {
            throw new IllegalArgumentException("a command without null arguments is needed, got "
                    + Arrays.toString(args));
        }
        try (RespConnection connection = connect(timeout)) {
            return connection.call(args);
        } catch (IOException e) {
            throw new UncheckedIOException(args[0] + " to redis at " + HOST + ":" + port + " failed: " + e, e);
        }
    }

    private RespConnection connect(Duration timeout) throws IOException {
        RespConnection connection = RespConnection.open(HOST, port, settings.tls(), timeout);
        try {
            if (settings.aclUser() != null) {
                connection.call("AUTH", settings.aclUser(), settings.aclPassword());
            } else if (settings.password() != null) {
                connection.call("AUTH", settings.password());
            }
            return connection;
        } catch (IOException | RuntimeException e) {
            connection.close();
            throw e;
        }
    }

    /**
     * Shuts the server down with {@code SHUTDOWN} (which flushes the append-only file when
     * persistence is on; without persistence nothing is saved) and waits for the process to exit.
     * A paused server is resumed first. Does nothing if the server is not running.
     */
    public synchronized void stop() {
        Process current = process;
        if (current == null || closed) {
            return;
        }
        if (current.isAlive()) {
            if (paused) {
                Signals.resume(current.pid());
                paused = false;
            }
            try {
                execute(settings.persistence() ? new String[] {"SHUTDOWN"} : new String[] {"SHUTDOWN", "NOSAVE"});
            } catch (UncheckedIOException expected) {
                // A successful SHUTDOWN closes the connection instead of replying.
            } catch (ErrorReply refused) {
                current.destroyForcibly();
            }
            if (!awaitExit(current)) {
                current.destroyForcibly();
                awaitExitOrFail(current);
            }
        }
        afterExit();
    }

    /** Kills the server with SIGKILL (nothing is flushed) and waits for the process to exit. */
    public synchronized void kill() {
        Process current = process;
        if (current == null) {
            return;
        }
        if (current.isAlive()) {
            current.destroyForcibly();
            awaitExitOrFail(current);
        }
        afterExit();
    }

    /**
     * Stops the server if it is running, then starts it again on the same port and returns once it
     * answers PING. With persistence the data directory is kept, so the data survives; without it
     * the data is gone.
     *
     * @throws IllegalStateException if the server does not come back (message includes the log tail)
     */
    public synchronized void restart() {
        restart(!settings.persistence());
    }

    /**
     * Like {@link #restart()}, but always without the data: the data directory is emptied first,
     * persistence or not, as after losing a disk or a host.
     */
    public synchronized void restartWithoutData() {
        restart(true);
    }

    private void restart(boolean withoutData) {
        requireOpen();
        stop();
        if (withoutData) {
            deleteDataFiles();
        }
        long deadline = System.nanoTime() + STARTUP_DEADLINE.toNanos();
        while (true) {
            try {
                launchOn(port);
                return;
            } catch (PortTaken e) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("cannot restart redis: port " + port + " stays in use", e);
                }
                pollPause(50);
            }
        }
    }

    /**
     * Freezes the server with SIGSTOP: connections stay open but nothing is answered, as with a
     * long GC pause or a hung host. Returns once the kernel reports the process stopped.
     */
    public synchronized void pause() {
        requireRunning();
        Signals.stop(process.pid());
        paused = true;
    }

    /** Thaws a {@link #pause() paused} server with SIGCONT; does nothing if it is not paused. */
    public synchronized void resume() {
        requireRunning();
        if (paused) {
            Signals.resume(process.pid());
            paused = false;
        }
    }

    /**
     * Whether the process is alive (a paused server counts as running).
     *
     * @return {@code true} from start until the process exits (stopped, killed or crashed)
     */
    public boolean isRunning() {
        Process current = process;
        return current != null && current.isAlive();
    }

    /** Kills the server if running and deletes its data directory. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        kill();
        closed = true;
        ProcessJanitor.deleteRecursively(dir);
        ProcessJanitor.forgetPath(dir);
    }

    /** {@link #uri()} with the password shown as {@code ***}: test output should not carry it either. */
    @Override
    public String toString() {
        String uri = uri();
        int at = uri.lastIndexOf('@');
        if (at >= 0) {
            int colon = uri.indexOf(':', uri.indexOf("://") + 3);
            uri = uri.substring(0, colon) + ":***" + uri.substring(at);
        }
        return "RedisServer[" + uri + (isRunning() ? ", pid " + pid() : ", not running") + "]";
    }

    private void writeConfigFile() {
        if (settings.configFile() == null) {
            return;
        }
        Path file = dir.resolve(CONFIG_FILE);
        try {
            Files.writeString(file, settings.configFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    private void startOnFreePort() {
        PortTaken lastRace = null;
        for (int attempt = 0; attempt < FREE_PORT_ATTEMPTS; attempt++) {
            try {
                launchOn(freePort());
                return;
            } catch (PortTaken e) {
                lastRace = e;
            }
        }
        throw new IllegalStateException("redis-server lost the race for a free port " + FREE_PORT_ATTEMPTS
                + " times", lastRace);
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(HOST, 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find a free port on " + HOST, e);
        }
    }

    private synchronized void launchOn(int candidatePort) {
        long logOffset = sizeOf(dir.resolve(LOG_FILE));
        long outputOffset = sizeOf(dir.resolve(OUTPUT_FILE));
        List<String> command = commandLine(candidatePort);
        Process started;
        try {
            ProcessBuilder builder = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(OUTPUT_FILE).toFile()));
            builder.environment().putAll(settings.environment());
            started = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + binary, e);
        }
        ProcessJanitor.adopt(started);
        Path startedPidFile = ProcessJanitor.recordServer(started, dir);
        port = candidatePort;
        String failure = awaitReady(started);
        if (failure == null) {
            process = started;
            pidFile = startedPidFile;
            paused = false;
            return;
        }
        started.destroyForcibly();
        awaitExit(started);
        ProcessJanitor.release(started);
        ProcessJanitor.forgetServer(startedPidFile);
        String log = tail(dir.resolve(LOG_FILE), logOffset) + tail(dir.resolve(OUTPUT_FILE), outputOffset);
        if (log.contains("Address already in use") || failure.startsWith("port taken")) {
            throw new PortTaken("port " + candidatePort + ": " + failure);
        }
        throw new IllegalStateException("redis-server failed to start on port " + candidatePort + ": " + failure
                + "\ncommand: " + String.join(" ", command)
                + "\nlast lines of " + LOG_FILE + " and " + OUTPUT_FILE + ":\n" + log);
    }

    /** Polls with PING until the new process answers; returns null when ready, else why not. */
    private String awaitReady(Process started) {
        long deadline = System.nanoTime() + STARTUP_DEADLINE.toNanos();
        Exception lastError = null;
        while (true) {
            if (!started.isAlive()) {
                return "the process exited with code " + started.exitValue();
            }
            try (RespConnection connection = connect(PROBE_TIMEOUT)) {
                if ("PONG".equals(connection.call("PING"))) {
                    // Another server that grabbed the port first would answer PING too.
                    String info = String.valueOf(connection.call("INFO", "server"));
                    if (info.contains("process_id:" + started.pid() + "\r\n")) {
                        return null;
                    }
                    return "port taken by another redis-server";
                }
            } catch (IOException | ErrorReply e) {
                lastError = e;  // not listening yet, or still loading its data
            }
            if (System.nanoTime() - deadline > 0) {
                return "no answer to PING within " + STARTUP_DEADLINE.toSeconds() + " s (last error: " + lastError + ")";
            }
            try {
                started.waitFor(20, TimeUnit.MILLISECONDS);  // also wakes up at once if the process dies
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "interrupted while waiting for the server";
            }
        }
    }

    private List<String> commandLine(int listenPort) {
        List<String> command = new ArrayList<>(List.of(binary.toString()));
        if (settings.configFile() != null) {
            command.add(dir.resolve(CONFIG_FILE).toString());
        }
        command.addAll(List.of("--bind", HOST, "--daemonize", "no",
                "--dir", dir.toString(), "--logfile", dir.resolve(LOG_FILE).toString()));
        if (tlsMaterial != null) {
            command.addAll(List.of("--port", "0", "--tls-port", Integer.toString(listenPort),
                    "--tls-cert-file", tlsMaterial.serverCert.toString(),
                    "--tls-key-file", tlsMaterial.serverKey.toString(),
                    "--tls-ca-cert-file", tlsMaterial.caCert.toString(),
                    "--tls-auth-clients", "no"));
        } else {
            command.addAll(List.of("--port", Integer.toString(listenPort)));
        }
        command.addAll(List.of("--save", ""));
        if (settings.persistence()) {
            command.addAll(List.of("--appendonly", "yes", "--appendfsync", "always"));
        } else {
            command.addAll(List.of("--appendonly", "no"));
        }
        if (settings.password() != null) {
            command.addAll(List.of("--requirepass", settings.password()));
        }
        if (settings.aclUser() != null) {
            command.addAll(List.of("--user", settings.aclUser(), "on", ">" + settings.aclPassword()));
            command.addAll(settings.aclRules());
            if (settings.password() == null) {
                command.addAll(List.of("--user", "default", "off"));
            }
        }
        command.addAll(settings.extraArgs());
        return command;
    }

    private void afterExit() {
        ProcessJanitor.release(process);
        if (pidFile != null) {
            ProcessJanitor.forgetServer(pidFile);
            pidFile = null;
        }
        paused = false;
    }

    private void deleteDataFiles() {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (!name.equals(LOG_FILE) && !name.equals(OUTPUT_FILE)
                        && !(name.equals(CONFIG_FILE) && settings.configFile() != null)) {
                    ProcessJanitor.deleteRecursively(entry);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot clear " + dir, e);
        }
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("this RedisServer is closed");
        }
    }

    private void requireRunning() {
        requireOpen();
        if (!isRunning()) {
            throw new IllegalStateException("redis-server on port " + port + " is not running");
        }
    }

    private static boolean awaitExit(Process target) {
        try {
            return target.waitFor(EXIT_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void awaitExitOrFail(Process target) {
        if (!awaitExit(target)) {
            throw new IllegalStateException("redis-server " + target.pid() + " did not exit within " + EXIT_DEADLINE);
        }
    }

    private static void pollPause(long millis) {
        try {
            TimeUnit.MILLISECONDS.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static long sizeOf(Path file) {
        try {
            return Files.exists(file) ? Files.size(file) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    /** The last lines written to {@code file} after {@code offset}. */
    private static String tail(Path file, long offset) {
        if (!Files.exists(file)) {
            return "";
        }
        try {
            byte[] all = Files.readAllBytes(file);
            int from = (int) Math.min(offset, all.length);
            List<String> lines = new String(all, from, all.length - from, StandardCharsets.UTF_8).lines().toList();
            List<String> last = lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size());
            return last.isEmpty() ? "" : String.join("\n", last) + "\n";
        } catch (IOException e) {
            return "(cannot read " + file + ": " + e + ")\n";
        }
    }

    private static String encode(String value) {
        StringBuilder encoded = new StringBuilder();
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "-._~".indexOf(c) >= 0) {
                encoded.append(c);
            } else {
                encoded.append('%').append(String.format("%02X", b & 0xff));
            }
        }
        return encoded.toString();
    }
}

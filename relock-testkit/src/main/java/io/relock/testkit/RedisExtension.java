package io.relock.testkit;

import java.util.Objects;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension that runs one {@link RedisServer} per test class.
 *
 * <pre>{@code
 * class MyLockTest {
 *     @RegisterExtension
 *     static final RedisExtension redis = new RedisExtension();
 *
 *     @Test
 *     void something(RedisServer server) {      // or redis.server()
 *         server.execute("SET", "k", "v");
 *     }
 * }
 * }</pre>
 *
 * <p>Register it in a <em>static</em> field (or with {@code @ExtendWith(RedisExtension.class)}):
 * the server starts before the first test of the class and is closed after the last one, and
 * {@code @Nested} classes share it. Tests of a class share the server and its data, so clear what
 * you rely on (e.g. {@code FLUSHALL}) or use distinct keys. A test may stop, kill, pause or
 * restart the server; a later test of the same class gets it in whatever state it was left.
 *
 * <p>Test constructor and method parameters of type {@link RedisServer} resolve to this server.
 * Register at most one RedisExtension per class when using parameters, or JUnit will report
 * competing resolvers.
 */
public final class RedisExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

    private final RedisServer.Builder builder;
    private RedisServer server;
    private int activeClasses;

    /** A server without persistence or authentication. */
    public RedisExtension() {
        this(RedisServer.builder());
    }

    /**
     * A server started from {@code builder}, e.g. {@code RedisServer.builder().password("secret")}.
     *
     * @param builder the configured builder; {@link RedisServer.Builder#start()} is called on it
     *     each time the extension starts a server
     */
    public RedisExtension(RedisServer.Builder builder) {
        this.builder = Objects.requireNonNull(builder, "builder");
    }

    /**
     * A server with an append-only file, whose data survives {@link RedisServer#restart()}.
     *
     * @return a new extension, to register in a static field
     */
    public static RedisExtension withPersistence() {
        return new RedisExtension(RedisServer.builder().persistence(true));
    }

    /**
     * The server of the current test class, started on first use if JUnit has not started it yet
     * (as happens for constructor parameters with {@code Lifecycle.PER_CLASS}).
     *
     * @return the running (or stopped, killed or paused, if a test left it so) server
     */
    public synchronized RedisServer server() {
        if (server == null) {
            server = builder.start();
        }
        return server;
    }

    @Override
    public synchronized void beforeAll(ExtensionContext context) {
        activeClasses++;
        server();
    }

    @Override
    public synchronized void afterAll(ExtensionContext context) {
        // @Nested classes run beforeAll/afterAll again on the same extension; only the outermost closes.
        activeClasses--;
        if (activeClasses <= 0 && server != null) {
            activeClasses = 0;
            server.close();
            server = null;
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == RedisServer.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return server();
    }
}

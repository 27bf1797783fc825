package io.relock.jedis;

import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;
import io.relock.spi.CommandNotSentException;
import io.relock.spi.RedisReplyException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionFactory;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * relock's driver on Jedis. Jedis is synchronous, so each call runs on one of a few daemon threads
 * ({@code relock-jedis-N-worker-M}, as many as the pool has connections) that borrows a pooled
 * connection for the length of the command; the caller gets a future at once and never waits.
 * Notifications arrive on one more connection, held by a thread of its own ({@code
 * relock-jedis-N-pubsub}) that reconnects and subscribes again when the connection drops.
 *
 * <p>Failures: an error reply completes the future with {@link RedisReplyException}; a connection
 * that cannot be opened completes it with {@link CommandNotSentException} (the command never left);
 * one that is lost, or does not answer within the socket timeout, with Jedis's {@code
 * JedisConnectionException} (or another non-reply exception). A command whose
 * future was already completed before a worker reached it (relock-core's command timeout expired
 * while it queued, or the caller cancelled) is not sent at all.
 *
 * <p>Ordering: two calls in flight at the same time may run on different connections and so reach
 * Redis in either order; a call made after another's future completed always runs after it.
 */
public final class JedisDriver implements RedisDriver {
  private static final Logger log = LoggerFactory.getLogger(JedisDriver.class);
  /** Connections (and worker threads) per driver unless told otherwise: Jedis's pool default. */
  public static final int DEFAULT_CONNECTIONS = 8;
  private static final AtomicInteger DRIVERS = new AtomicInteger();

  private final HostAndPort endpoint;
  private final JedisClientConfig config;
  private final String where;
  private final String threadPrefix;
  private final ConnectionPool pool;
  private final ThreadPoolExecutor workers;
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile Runnable reconnectListener = () -> {};
  private ChannelSubscriber subscriber;

  private JedisDriver(HostAndPort endpoint, JedisClientConfig config, int connections, String where) {
    this.endpoint = endpoint;
    this.config = config;
    this.where = where;
    this.threadPrefix = "relock-jedis-" + DRIVERS.incrementAndGet();

    ConnectionPoolConfig poolConfig = new ConnectionPoolConfig();
    poolConfig.setMaxTotal(connections);
    poolConfig.setMaxIdle(connections);
    poolConfig.setMinIdle(0);
    poolConfig.setJmxEnabled(false);
    // Each worker holds at most one connection, so a borrow waits only while one is being opened.
    poolConfig.setMaxWait(Duration.ofMillis(Math.max(1, config.getConnectionTimeoutMillis()) * 2L));
    this.pool = new ConnectionPool(new ConnectionFactory(new KeepAliveSocketFactory(endpoint, config), config), poolConfig);

    AtomicInteger n = new AtomicInteger();
    this.workers = new ThreadPoolExecutor(connections, connections, 30, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(), r -> {
          Thread t = new Thread(r, threadPrefix + "-worker-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
    this.workers.allowCoreThreadTimeOut(true);
  }

  /**
   * Connects to {@code uri} ({@code redis://[[user]:password@]host[:port][/db]}, or {@code
   * rediss://} with an optional {@code ?verifyPeer=NONE|CA|FULL}, default {@code FULL}) with {@value
   * #DEFAULT_CONNECTIONS} pooled connections, the settings' connect and command timeouts as Jedis's
   * connection and socket timeouts, and the settings' client name. Checks the server with a PING
   * before returning.
   *
   * @throws IllegalArgumentException if the URI is malformed (the message never shows the password)
   * @throws redis.clients.jedis.exceptions.JedisException if Redis cannot be reached or refuses the
   *     credentials
   */
  public static JedisDriver connect(String uri, DriverSettings settings) {
    RedisUri parsed = RedisUri.parse(uri);
    if (parsed.tls && parsed.verifyPeer == RedisUri.PeerVerification.NONE) {
      log.warn("TLS to {} does not verify the server's certificate (verifyPeer=NONE): the connection is "
          + "encrypted, but anyone on the network path can pose as the server", parsed.endpoint());
    }
    return start(parsed.endpoint(), parsed.clientConfig(settings), DEFAULT_CONNECTIONS, parsed.toString());
  }

  /**
   * Connects with Jedis settings of your own (a trust store, a credentials provider, RESP3, ...) and
   * a pool of {@code connections} connections worked by as many threads. Timeouts come from {@code
   * config}: its socket timeout bounds each command.
   *
   * @throws IllegalArgumentException if {@code connections} is less than 1
   * @throws redis.clients.jedis.exceptions.JedisException if Redis cannot be reached
   */
  public static JedisDriver connect(HostAndPort endpoint, JedisClientConfig config, int connections) {
    if (connections < 1) {
      throw new IllegalArgumentException("connections must be at least 1, not " + connections);
    }
    return start(endpoint, config, connections, endpoint.toString());
  }

  private static JedisDriver start(HostAndPort endpoint, JedisClientConfig config, int connections, String where) {
    JedisDriver driver = new JedisDriver(endpoint, config, connections, where);
    try (Connection c = driver.borrow()) {
      c.ping();
    } catch (RuntimeException e) {
      driver.close();
      throw e;
    }
    return driver;
  }

  /**
   * {@inheritDoc}
   *
   * <p>Replies of other shapes than an array are returned as a one-element list.
   */
  @Override
  public CompletableFuture<List<Object>> evalSha(String sha1, List<String> keys, List<String> args) {
    CommandArguments command = new CommandArguments(Protocol.Command.EVALSHA)
        .add(sha1).add(keys.size()).addObjects(keys).addObjects(args);
    return run(command, JedisDriver::scriptReply);
  }

  @Override
  public CompletableFuture<String> scriptLoad(String script) {
    CommandArguments command = new CommandArguments(Protocol.Command.SCRIPT).add(Protocol.Keyword.LOAD).add(script);
    return run(command, reply -> (String) value(reply));
  }

  /**
   * {@inheritDoc}
   *
   * <p>The listener runs on the driver's pub/sub thread; a listener that throws is logged and the
   * message dropped. The future fails if the first connection attempt fails; attempts go on until
   * {@link #close()} all the same.
   *
   * @throws IllegalStateException if called a second time
   */
  @Override
  public synchronized CompletableFuture<Void> subscribe(String channel, Consumer<String> listener) {
    if (closed.get()) {
      return CompletableFuture.failedFuture(new IllegalStateException("the Jedis driver is closed"));
    }
    if (subscriber != null) {
      throw new IllegalStateException("the Jedis driver subscribes to one channel; already subscribed");
    }
    subscriber = new ChannelSubscriber(new KeepAliveSocketFactory(endpoint, config), config, channel, listener,
        this::reconnected, threadPrefix + "-pubsub", where);
    return subscriber.start();
  }

  /**
   * {@inheritDoc}
   *
   * <p>Jedis's pooled connections report nothing when they reconnect; the notification connection
   * does, when it subscribes again after losing the connection, which is when Redis is reachable
   * again for the commands too.
   */
  @Override
  public void onReconnect(Runnable listener) {
    reconnectListener = Objects.requireNonNull(listener, "listener");
  }

  private void reconnected() {
    if (closed.get()) {
      return;
    }
    try {
      reconnectListener.run();
    } catch (RuntimeException e) {
      log.warn("the reconnect listener failed", e); // this thread is the only one that hears grants
    }
  }

  private <T> CompletableFuture<T> run(CommandArguments command, Function<Object, T> convert) {
    CompletableFuture<T> future = new CompletableFuture<>();
    if (closed.get()) {
      future.completeExceptionally(new IllegalStateException("the Jedis driver is closed"));
      return future;
    }
    try {
      workers.execute(new Call<>(command, convert, future));
    } catch (RejectedExecutionException e) {
      future.completeExceptionally(new IllegalStateException("the Jedis driver is closed", e));
    }
    return future;
  }

  /** One command on its way to a worker; holds the future so that close() can fail it. */
  private final class Call<T> implements Runnable {
    final CommandArguments command;
    final Function<Object, T> convert;
    final CompletableFuture<T> future;

    Call(CommandArguments command, Function<Object, T> convert, CompletableFuture<T> future) {
      this.command = command;
      this.convert = convert;
      this.future = future;
    }

    @Override
    public void run() {
      if (future.isDone()) {
        return; // timed out or cancelled while queued: its caller has moved on
      }
      Connection c;
      try {
        c = borrow();
      } catch (RuntimeException e) {
        future.completeExceptionally(new CommandNotSentException(e.getMessage(), e)); // no connection, nothing sent
        return;
      }
      Object reply;
      try {
        reply = c.executeCommand(command);
      } catch (JedisDataException e) {
        future.completeExceptionally(new RedisReplyException(e.getMessage(), e));
        return;
      } catch (JedisConnectionException e) {
        // Jedis drops the broken connection. The idle ones most likely broke with it (a restart,
        // a failover), and only a command would find out: drop them now rather than one failed
        // call each.
        pool.clear();
        future.completeExceptionally(e);
        return;
      } catch (RuntimeException e) {
        future.completeExceptionally(e);
        return;
      } finally {
        giveBack(c);
      }
      try {
        future.complete(convert.apply(reply));
      } catch (RuntimeException e) {
        future.completeExceptionally(e);
      }
    }
  }

  /**
   * A pooled connection. Errors opening one (AUTH or SELECT refused included) are connection
   * failures, not replies to the caller's command.
   */
  private Connection borrow() {
    try {
      return pool.getResource();
    } catch (RuntimeException e) {
      throw new JedisConnectionException("could not open a connection to " + where + ": " + describe(e), e);
    }
  }

  /**
   * The innermost useful message: Jedis wraps pool and socket failures ("Could not get a resource
   * from the pool", "Failed to connect to any host") around the one that says what happened.
   */
  private static String describe(Throwable e) {
    Throwable t = e;
    while (true) {
      if (t.getSuppressed().length > 0) {
        t = t.getSuppressed()[0];
      } else if (t.getCause() != null && t.getCause() != t) {
        t = t.getCause();
      } else {
        break;
      }
    }
    String message = t.getMessage();
    return t.getClass().getSimpleName() + (message == null ? "" : ": " + message);
  }

  /** Returns a connection to the pool (which closes it if broken); a reply already read stands. */
  private void giveBack(Connection c) {
    try {
      c.close();
    } catch (RuntimeException e) {
      log.debug("returning a connection to the pool for {} failed: {}", where, e.getMessage());
    }
  }

  /** EVALSHA's reply as the SPI wants it: a list of Long, String, null and nested lists. */
  @SuppressWarnings("unchecked")
  private static List<Object> scriptReply(Object reply) {
    Object converted = value(reply);
    if (converted instanceof List<?> list) {
      return (List<Object>) list;
    }
    List<Object> single = new ArrayList<>(1);
    single.add(converted);
    return single;
  }

  /** Jedis's raw RESP2 values (byte[] for bulk and status strings) converted to the SPI's types. */
  private static Object value(Object raw) {
    if (raw == null || raw instanceof Long) {
      return raw;
    }
    if (raw instanceof byte[] bytes) {
      return new String(bytes, StandardCharsets.UTF_8);
    }
    if (raw instanceof List<?> list) {
      List<Object> converted = new ArrayList<>(list.size());
      for (Object element : list) {
        converted.add(value(element));
      }
      return converted;
    }
    if (raw instanceof JedisDataException error) {
      // An error reply inside an array; relock's scripts never return one, so fail the call.
      throw new RedisReplyException(error.getMessage(), error);
    }
    if (raw instanceof String s) {
      return s;
    }
    throw new IllegalStateException("unexpected reply element of type " + raw.getClass().getName());
  }

  /**
   * Stops the pub/sub thread (after an UNSUBSCRIBE), fails calls still queued with {@link
   * IllegalStateException}, and closes the pool. Calls already running finish within the socket
   * timeout on connections that are then closed. Idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    ChannelSubscriber s;
    synchronized (this) {
      s = subscriber;
    }
    if (s != null) {
      s.close();
    }
    for (Runnable queued : workers.shutdownNow()) {
      if (queued instanceof Call<?> call) {
        call.future.completeExceptionally(new IllegalStateException("the Jedis driver was closed before the call ran"));
      }
    }
    try {
      pool.close();
    } catch (RuntimeException e) {
      log.debug("closing the Jedis pool for {} failed: {}", where, e.getMessage());
    }
  }
}

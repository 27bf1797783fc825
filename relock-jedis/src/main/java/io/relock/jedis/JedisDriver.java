package io.relock.jedis;

import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;
import io.relock.spi.CommandNotSentException;
import io.relock.spi.RedisReplyException;
import io.relock.spi.RedisTarget;
import io.relock.spi.RedisUri;
import io.relock.spi.ReplicatedReply;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionFactory;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisSocketFactory;
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
 * JedisConnectionException} (or another non-reply exception). A call that no worker started
 * within the command timeout fails with {@link CommandNotSentException} and is never sent; one a
 * worker started fails only once its exchange has ended (see {@link QueuedCall}).
 *
 * <p>Ordering: two calls in flight at the same time may run on different connections and so reach
 * Redis in either order; a call made after another's future completed always runs after it.
 *
 * <p>Sentinel ({@link #connect(RedisTarget, DriverSettings)}): every connection, pooled or pub/sub,
 * goes to the primary the sentinels name when it is opened. A command answered {@code READONLY}
 * (its node was demoted to a replica) or failing on a lost connection makes the pool drop its
 * connections, so the next ones go where the sentinels say; when the sentinels name another
 * primary than before, or a command met {@code READONLY}, the pub/sub connection is moved to the
 * primary they name, and the {@linkplain #onReconnect reconnect listener} runs once it has
 * subscribed there.
 */
public final class JedisDriver implements RedisDriver {
  private static final Logger log = LoggerFactory.getLogger(JedisDriver.class);
  /** Connections (and worker threads) per driver unless told otherwise: Jedis's pool default. */
  public static final int DEFAULT_CONNECTIONS = 8;
  private static final AtomicInteger DRIVERS = new AtomicInteger();

  /** Where connections go: a fixed endpoint, or the {@link SentinelPrimary}. */
  private final Supplier<HostAndPort> endpoint;
  /** Non-null behind Sentinel. */
  private final SentinelPrimary sentinels;
  private final JedisClientConfig config;
  private final String where;
  private final String threadPrefix;
  private final ConnectionPool pool;
  private final CallWorkers workers;
  private final AtomicBoolean closed = new AtomicBoolean();
  /** Failovers seen: a connection borrowed before one is not given back to the pool. */
  private final AtomicLong failovers = new AtomicLong();
  /** Whether a worker is asking the sentinels after a READONLY reply (one at a time is enough). */
  private final AtomicBoolean checkingPrimary = new AtomicBoolean();
  private volatile Runnable reconnectListener = () -> {};
  private volatile ChannelSubscriber subscriber;

  private JedisDriver(HostAndPort endpoint, SentinelPrimary sentinels, JedisClientConfig config, int connections,
      String where) {
    this.endpoint = sentinels != null ? sentinels : () -> endpoint;
    this.sentinels = sentinels;
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
    JedisSocketFactory sockets = sentinels != null
        ? KeepAliveSocketFactory.toPrimaryOf(sentinels, config)
        : new KeepAliveSocketFactory(endpoint, config);
    this.pool = new ConnectionPool(new ConnectionFactory(sockets, config), poolConfig);
    if (sentinels != null) {
      sentinels.onChange(this::primaryMoved);
    }

    this.workers = new CallWorkers(connections, threadPrefix, config.getSocketTimeoutMillis());
  }

  /**
   * Connects to {@code uri} ({@code redis://[[user]:password@]host[:port][/db]}, or {@code
   * rediss://} with an optional {@code ?verifyPeer=NONE|CA|FULL}, default {@code FULL}) with {@value
   * #DEFAULT_CONNECTIONS} pooled connections, the settings' connect and command timeouts as Jedis's
   * connection and socket timeouts, and the settings' client name. Checks the server with a PING
   * before returning.
   *
   * @param uri the server's URI, in the form above
   * @param settings the connect and command timeouts, and the name to give the connections
   * @return the connected driver, its server answered
   * @throws IllegalArgumentException if the URI is not one {@link RedisUri} reads (the message
   *     never shows the password)
   * @throws redis.clients.jedis.exceptions.JedisException if Redis cannot be reached or refuses the
   *     credentials
   */
  public static JedisDriver connect(String uri, DriverSettings settings) {
    RedisUri parsed = RedisUri.parse(uri);
    warnIfUnverified(parsed);
    return start(JedisClientConfigs.endpoint(parsed), null, JedisClientConfigs.client(parsed, settings),
        DEFAULT_CONNECTIONS, parsed.toString());
  }

  /**
   * Connects to {@code target}: a {@link RedisTarget.Kind#SINGLE SINGLE} server as {@link
   * #connect(String, DriverSettings)} does, or a {@link RedisTarget.Kind#SENTINEL SENTINEL}-managed
   * primary, with {@value #DEFAULT_CONNECTIONS} pooled connections.
   *
   * <p>Behind Sentinel, each connection the driver opens (to the pool, or for notifications when it
   * reconnects) goes to the primary that the sentinels name at that moment: {@code SENTINEL
   * GET-MASTER-ADDR-BY-NAME masterName}, asked of the sentinels in the order given, the first that
   * answers deciding. Each sentinel URI's credentials and TLS settings apply to that sentinel; the
   * first sentinel URI's TLS settings and database apply to the primary, and so do its credentials
   * unless the target has {@link RedisTarget#primaryCredentials() primary credentials} of its own
   * (in the {@code redis-sentinel://} form all sentinels share one set). After a failover the driver follows the new
   * primary as the class description says. Checks the primary with a PING before returning.
   *
   * @param target a {@link RedisTarget.Kind#SINGLE SINGLE} or {@link RedisTarget.Kind#SENTINEL
   *     SENTINEL} target
   * @param settings the connect and command timeouts, and the name to give the connections
   * @return the connected driver, its server or primary answered
   * @throws NullPointerException if {@code target} or {@code settings} is null
   * @throws IllegalArgumentException if a URI is malformed (the message never shows a password)
   * @throws UnsupportedOperationException for a {@link RedisTarget.Kind#CLUSTER CLUSTER} target: use
   *     {@link JedisClusterDriver#connect(RedisTarget, DriverSettings)}
   * @throws redis.clients.jedis.exceptions.JedisException if no sentinel names the primary (the
   *     message names the master and each sentinel tried, with why it failed, never a password),
   *     or the primary cannot be reached or refuses the credentials
   */
  public static JedisDriver connect(RedisTarget target, DriverSettings settings) {
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(settings, "settings");
    switch (target.kind()) {
      case SINGLE -> {
        return connect(target.nodes().get(0), settings);
      }
      case SENTINEL -> {
        List<RedisUri> uris = target.nodes().stream().map(RedisUri::parse).toList();
        List<SentinelPrimary.Sentinel> sentinels = new ArrayList<>(uris.size());
        for (RedisUri uri : uris) {
          warnIfUnverified(uri);
          sentinels.add(new SentinelPrimary.Sentinel(JedisClientConfigs.endpoint(uri),
              JedisClientConfigs.sentinel(uri, settings), uri.toString()));
        }
        SentinelPrimary primary = new SentinelPrimary(target.masterName(), sentinels);
        RedisUri primaryUri = target.primaryCredentials() == null ? uris.get(0)
            : uris.get(0).withCredentials(target.primaryCredentials().user(), target.primaryCredentials().password());
        return start(null, primary, JedisClientConfigs.client(primaryUri, settings), DEFAULT_CONNECTIONS,
            target.toString());
      }
      default -> throw new UnsupportedOperationException("JedisDriver connects to one primary; for a Redis Cluster use "
          + "JedisClusterDriver.connect (or JedisDriverFactory, which picks it)");
    }
  }

  /**
   * Connects to the primary that the sentinels at {@code sentinels} know as {@code masterName},
   * with Jedis settings of your own, following it across failovers as {@link #connect(RedisTarget,
   * DriverSettings)} does.
   *
   * @param masterName the name the sentinels know the primary by
   * @param sentinels the sentinels' addresses, asked in this order; at least one
   * @param sentinelConfig how to talk to the sentinels (credentials, TLS, timeouts); leave its
   *     database at 0, sentinels have no databases
   * @param primaryConfig how to talk to the primary; its socket timeout bounds each command
   * @param connections pooled connections to the primary, and worker threads
   * @return the connected driver, its primary answered
   * @throws IllegalArgumentException if {@code sentinels} is empty or {@code connections} is less
   *     than 1
   * @throws redis.clients.jedis.exceptions.JedisException if no sentinel names the primary, or the
   *     primary cannot be reached
   */
  public static JedisDriver connectSentinel(String masterName, List<HostAndPort> sentinels,
      JedisClientConfig sentinelConfig, JedisClientConfig primaryConfig, int connections) {
    Objects.requireNonNull(masterName, "masterName");
    Objects.requireNonNull(sentinelConfig, "sentinelConfig");
    Objects.requireNonNull(primaryConfig, "primaryConfig");
    if (connections < 1) {
      throw new IllegalArgumentException("connections must be at least 1, not " + connections);
    }
    if (sentinels.isEmpty()) {
      throw new IllegalArgumentException("at least one sentinel is needed");
    }
    SentinelPrimary primary = new SentinelPrimary(masterName, sentinels.stream()
        .map(s -> new SentinelPrimary.Sentinel(s, sentinelConfig, s.toString())).toList());
    return start(null, primary, primaryConfig, connections, primary.toString());
  }

  private static void warnIfUnverified(RedisUri uri) {
    if (uri.tls() && uri.verifyPeer() == RedisUri.PeerVerification.NONE) {
      log.warn("TLS to {} does not verify the server's certificate (verifyPeer=NONE): the connection is "
          + "encrypted, but anyone on the network path can pose as the server", uri.hostAndPort());
    }
  }

  /**
   * Connects with Jedis settings of your own (a trust store, a credentials provider, RESP3, ...) and
   * a pool of {@code connections} connections worked by as many threads. Timeouts come from {@code
   * config}: its socket timeout bounds each command.
   *
   * @param endpoint the server's host and port
   * @param config how to talk to the server (credentials, TLS, timeouts, client name, ...)
   * @param connections pooled connections to the server, and worker threads; at least 1
   * @return the connected driver, its server answered
   * @throws IllegalArgumentException if {@code connections} is less than 1
   * @throws redis.clients.jedis.exceptions.JedisException if Redis cannot be reached
   */
  public static JedisDriver connect(HostAndPort endpoint, JedisClientConfig config, int connections) {
    if (connections < 1) {
      throw new IllegalArgumentException("connections must be at least 1, not " + connections);
    }
    return start(endpoint, null, config, connections, endpoint.toString());
  }

  private static JedisDriver start(HostAndPort endpoint, SentinelPrimary sentinels, JedisClientConfig config,
      int connections, String where) {
    JedisDriver driver = new JedisDriver(endpoint, sentinels, config, connections, where);
    // A server that accepted the connection but is slow to answer (paused for a moment, a busy
    // machine) is given the connect timeout, as Lettuce's handshake is; each try waits one command
    // timeout. One that refuses the connection or the credentials fails at once.
    long giveUpAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, config.getConnectionTimeoutMillis()));
    while (true) {
      try (Connection c = driver.borrow()) {
        c.ping();
        return driver;
      } catch (RuntimeException e) {
        if (!(answeredTooSlowly(e) && System.nanoTime() - giveUpAt < 0)) {
          driver.close();
          throw e;
        }
      }
    }
  }

  /** Whether {@code e} is a read that timed out: the server took the connection, then did not answer in time. */
  private static boolean answeredTooSlowly(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.net.SocketTimeoutException && !String.valueOf(t.getMessage()).contains("onnect")) {
        return true;
      }
    }
    return false;
  }

  /**
   * Replies of other shapes than an array are returned as a one-element list.
   */
  @Override
  public CompletableFuture<List<Object>> evalSha(String sha1, List<String> keys, List<String> args) {
    CommandArguments command = JedisCalls.evalSha(sha1, keys, args);
    return run(c -> JedisCalls.scriptReply(c.executeCommand(command)));
  }

  /**
   * Both commands go, one after the other, on one pooled connection and one worker thread, and
   * the {@code WAIT} occupies both until it answers (at most {@code timeout}, which is added to the
   * socket timeout for it): while it waits, that connection and that worker serve no other call,
   * so a client making many such calls at once has that many fewer for the rest (renewals and
   * releases included). No {@code WAIT} is sent if the script fails. Failures as for {@link
   * #evalSha}: an error reply to the script completes the future with {@link RedisReplyException},
   * one to the {@code WAIT} (such as a replica's refusal) with {@link IllegalStateException}, since
   * the script has run by then; no connection to be had with {@link CommandNotSentException}.
   */
  @Override
  public CompletableFuture<ReplicatedReply> evalShaReplicated(String sha1, List<String> keys, List<String> args,
      int replicas, Duration timeout) {
    if (replicas < 0) {
      return CompletableFuture.failedFuture(new IllegalArgumentException("replicas must be 0 or more, not " + replicas));
    }
    CommandArguments command = JedisCalls.evalSha(sha1, keys, args);
    return run(c -> JedisCalls.evalShaThenWait(c, command, replicas, timeout));
  }

  /** {@code true}: {@link #evalShaReplicated} sends {@code WAIT}. */
  @Override
  public boolean supportsReplicaAcks() {
    return true;
  }

  @Override
  public CompletableFuture<String> scriptLoad(String script) {
    CommandArguments command = JedisCalls.scriptLoad(script);
    return run(c -> (String) JedisCalls.value(c.executeCommand(command)));
  }

  /**
   * The listener runs on the driver's pub/sub thread; a listener that throws is logged and the
   * message dropped. The future fails if the first connection attempt fails (an error reply, such
   * as an ACL's refusal, as {@link RedisReplyException}); attempts go on until {@link #close()} all
   * the same. Called again with the same channel, it hands the messages to the new listener and
   * completes once the subscription holds (at once if it does now).
   *
   * @throws IllegalStateException if called with another channel than before
   */
  @Override
  public synchronized CompletableFuture<Void> subscribe(String channel, Consumer<String> listener) {
    if (closed.get()) {
      return CompletableFuture.failedFuture(new IllegalStateException("the Jedis driver is closed"));
    }
    if (subscriber != null) {
      return subscriber.again(channel, listener);
    }
    subscriber = new ChannelSubscriber(endpoint, config, channel, listener, this::reconnected,
        threadPrefix + "-pubsub", where);
    return subscriber.start();
  }

  /**
   * Jedis's pooled connections report nothing when they reconnect; the notification connection
   * does, when it subscribes again after losing the connection, which is when Redis is reachable
   * again for the commands too. Behind Sentinel it also does once it has moved to a new primary.
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

  /** What a call does with the connection it borrowed. */
  @FunctionalInterface
  private interface Exchange<T> {
    T on(Connection c);
  }

  private <T> CompletableFuture<T> run(Exchange<T> exchange) {
    CompletableFuture<T> future = new CompletableFuture<>();
    if (closed.get()) {
      future.completeExceptionally(new IllegalStateException("the Jedis driver is closed"));
      return future;
    }
    // Not written after a command timeout from now: relock-core counts an extending call as able to
    // run in Redis for a bounded time after it was sent, and a call that waited that long for a
    // worker and then for a new connection (a slow connect) must not land later than that.
    long writeBy = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(1, config.getSocketTimeoutMillis()));
    try {
      workers.execute(() -> exchange(exchange, writeBy), future);
    } catch (RejectedExecutionException e) {
      future.completeExceptionally(new IllegalStateException("the Jedis driver is closed", e));
    }
    return future;
  }

  /**
   * One call on a borrowed connection: an error reply completes it with {@link
   * RedisReplyException}, a connection that cannot be had with {@link CommandNotSentException}.
   */
  private <T> T exchange(Exchange<T> exchange, long writeBy) {
    Connection c;
    try {
      c = borrow();
    } catch (RuntimeException e) {
      throw new CommandNotSentException(e.getMessage(), e); // no connection, nothing sent
    }
    if (System.nanoTime() - writeBy > 0) {
      c.close(); // back to the pool, unused
      throw new CommandNotSentException("a connection came only after the command timeout of "
          + config.getSocketTimeoutMillis() + " ms; not sent", null);
    }
    long failoversBefore = failovers.get();
    boolean demoted = false;
    try {
      return exchange.on(c);
    } catch (JedisDataException e) {
      if (isDemoted(e)) {
        // The node is a replica now: this connection and the idle ones go to the old primary.
        demoted = true;
        c.setBroken();
        failoverSeen();
      }
      throw new RedisReplyException(e.getMessage(), e);
    } catch (JedisConnectionException e) {
      // Jedis drops the broken connection. The idle ones most likely broke with it (a restart,
      // a failover), and only a command would find out: drop them now rather than one failed
      // call each.
      pool.clear();
      throw e;
    } finally {
      giveBack(c, failoversBefore);
      if (demoted) {
        movePubSubToPrimary();
      }
    }
  }

  /**
   * Whether an error reply says the node is no longer a primary: {@code READONLY} (a write on a
   * replica), or {@code WAIT} refused on a replica.
   */
  private static boolean isDemoted(JedisDataException e) {
    String m = RedisReplyException.unwrapScriptError(e.getMessage());
    return m != null && (m.startsWith("READONLY") || m.startsWith("ERR WAIT cannot be used with replica"));
  }

  /** The node was demoted, or the sentinels name another primary: drop the pooled connections. */
  private void failoverSeen() {
    failovers.incrementAndGet();
    pool.clear();
  }

  /** Called by {@link SentinelPrimary} (on the thread that asked) when the sentinels name a new primary. */
  private void primaryMoved(HostAndPort primary) {
    failoverSeen();
    ChannelSubscriber s = subscriber;
    if (s != null) {
      s.leaveUnlessOn(primary);
    }
  }

  /**
   * After a {@code READONLY} reply behind Sentinel: asks the sentinels where the primary is now
   * and moves the pub/sub connection there if it is elsewhere (it cannot tell on its own). One
   * worker asks at a time; the others, meeting the same failover, need not.
   */
  private void movePubSubToPrimary() {
    if (sentinels == null || closed.get() || !checkingPrimary.compareAndSet(false, true)) {
      return;
    }
    try {
      HostAndPort primary = sentinels.get(); // if it changed, primaryMoved has moved the subscriber
      ChannelSubscriber s = subscriber;
      if (s != null) {
        s.leaveUnlessOn(primary); // it may have reconnected to the old primary before the sentinels knew
      }
    } catch (RuntimeException e) {
      log.debug("asking the sentinels for the primary after a READONLY reply failed: {}", e.getMessage());
    } finally {
      checkingPrimary.set(false);
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
   * from the pool", "Failed to connect to any host") around the one that says what happened. The
   * driver's own {@link SentinelPrimary.Unreachable} already says it, causes included.
   */
  static String describe(Throwable e) {
    Throwable t = e;
    while (!(t instanceof SentinelPrimary.Unreachable)) {
      if (t.getSuppressed().length > 0) {
        t = t.getSuppressed()[0];
      } else if (t.getCause() != null && t.getCause() != t) {
        t = t.getCause();
      } else {
        break;
      }
    }
    String message = t.getMessage();
    if (t instanceof SentinelPrimary.Unreachable) {
      return message;
    }
    return t.getClass().getSimpleName() + (message == null ? "" : ": " + message);
  }

  /**
   * Returns a connection to the pool (which closes it if broken, or if a failover was seen since
   * it was borrowed: it may go to the old primary); a reply already read stands.
   */
  private void giveBack(Connection c, long failoversBefore) {
    if (failovers.get() != failoversBefore) {
      c.setBroken();
    }
    try {
      c.close();
    } catch (RuntimeException e) {
      log.debug("returning a connection to the pool for {} failed: {}", where, e.getMessage());
    }
  }

  /**
   * {@code true}: a call not started within the command timeout fails unsent ({@link QueuedCall}),
   * and a command on the wire is bounded by the socket timeout, so core adds no timeout of its
   * own, which could fail a call while a worker still sends it.
   */
  @Override
  public boolean timesOutCommands() {
    return true;
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
    for (QueuedCall<?> call : workers.shutdownNow()) {
      call.future.completeExceptionally(new IllegalStateException("the Jedis driver was closed before the call ran"));
    }
    try {
      pool.close();
    } catch (RuntimeException e) {
      log.debug("closing the Jedis pool for {} failed: {}", where, e.getMessage());
    }
  }
}

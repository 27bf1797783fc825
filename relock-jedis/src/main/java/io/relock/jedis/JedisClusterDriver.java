package io.relock.jedis;

import io.relock.spi.CommandNotSentException;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;
import io.relock.spi.RedisReplyException;
import io.relock.spi.RedisTarget;
import io.relock.spi.RedisUri;
import io.relock.spi.ReplicatedReply;
import io.relock.spi.ServerInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisClusterInfoCache;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisAskDataException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisMovedDataException;
import redis.clients.jedis.providers.ClusterConnectionProvider;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * relock's driver on a Redis Cluster, with Jedis. As {@link JedisDriver} does, it runs each call on
 * one of a few daemon threads ({@code relock-jedis-N-worker-M}) that borrows a connection for the
 * length of the call, here from the pool of the node that serves the call's slot; the caller gets
 * a future at once. Jedis's {@link ClusterConnectionProvider} keeps the slot map ({@code CLUSTER
 * SLOTS}) and one pool per node; the driver routes, follows redirects and refreshes the map itself
 * rather than through {@code JedisCluster}, which retries a command after its connection failed and
 * could so run a script twice.
 *
 * <p>Routing: {@code EVALSHA} goes to the primary of its first key's slot. {@code MOVED} makes the
 * worker read the slot map again (on that connection) and send the command to the node named;
 * {@code ASK} sends {@code ASKING} and the command to the importing node; at most {@value
 * #MAX_REDIRECTS} redirects per call. {@code SCRIPT LOAD} goes to every primary. The slot map is
 * also read again, on a daemon thread of its own ({@code relock-jedis-N-topology}), every {@value
 * #PERIODIC_REFRESH_SECONDS} s and soon (at most twice a second) after a connection to a node
 * failed, a {@code CLUSTERDOWN} reply, or a sharded subscription that ended or was redirected: after
 * a failover the dead node cannot say where its slots went.
 *
 * <p>Failures as for {@link JedisDriver}: an error reply completes the future with {@link
 * RedisReplyException} (also a {@code MOVED} or {@code ASK} after too many redirects: the script did
 * not run); no connection to be had with {@link CommandNotSentException}; a connection lost or
 * timed out during the call with Jedis's exception (the script may have run).
 *
 * <p>Notifications: on Redis 7+ ({@link #hasShardedPubSub()}), sharded channels are subscribed on
 * the node of their slot, over one connection and thread per node that has any ({@code
 * relock-jedis-N-shard-host:port}), and follow their slot when it moves or its node fails over
 * (see {@link ShardedSubscriptions}). Before 7, {@link #subscribe} uses a plain {@code SUBSCRIBE}
 * on one node (a cluster broadcasts {@code PUBLISH} to every node), moving to another primary when
 * that connection drops.
 */
public final class JedisClusterDriver implements RedisDriver {
  private static final Logger log = LoggerFactory.getLogger(JedisClusterDriver.class);
  private static final AtomicInteger DRIVERS = new AtomicInteger();
  /** Redirects followed per call before its MOVED or ASK is reported as the reply. */
  static final int MAX_REDIRECTS = 5;
  static final long PERIODIC_REFRESH_SECONDS = 10;
  private static final long REFRESH_SPACING_NANOS = 500_000_000L;

  private final ClusterConnectionProvider slots;
  private final JedisClientConfig config;
  private final String where;
  private final String threadPrefix;
  private final CallWorkers workers;
  private final ScheduledThreadPoolExecutor topology;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicBoolean refreshQueued = new AtomicBoolean();
  private final AtomicLong lastRefresh = new AtomicLong(System.nanoTime() - REFRESH_SPACING_NANOS);
  /** Nodes a command could not reach (or lost the connection to): the next success there is a reconnect. */
  private final Set<HostAndPort> lostNodes = ConcurrentHashMap.newKeySet();
  private final AtomicInteger nextNode = new AtomicInteger();
  private final boolean sharded;
  private final ShardedSubscriptions shardedSubscriptions;
  private volatile Runnable reconnectListener = () -> {};
  private ChannelSubscriber subscriber;

  private JedisClusterDriver(ClusterConnectionProvider slots, JedisClientConfig config, int connections, String where) {
    this.slots = slots;
    this.config = config;
    this.where = where;
    this.threadPrefix = "relock-jedis-cluster-" + DRIVERS.incrementAndGet();
    this.workers = new CallWorkers(connections, threadPrefix, config.getSocketTimeoutMillis());
    this.topology = new ScheduledThreadPoolExecutor(1, r -> daemon(r, threadPrefix + "-topology"));
    this.topology.setRemoveOnCancelPolicy(true);
    int major;
    try {
      major = ServerInfo.majorVersion(infoServer());
    } catch (RuntimeException e) {
      shutdown();
      throw e;
    }
    this.sharded = major >= 7;
    this.shardedSubscriptions = new ShardedSubscriptions(config, this::primaryOf, this::refreshSoon,
        this::reconnected, threadPrefix);
    topology.scheduleWithFixedDelay(this::refreshNow, PERIODIC_REFRESH_SECONDS, PERIODIC_REFRESH_SECONDS,
        TimeUnit.SECONDS);
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  /**
   * Connects to the cluster that {@code target}'s seed nodes belong to, with {@value
   * JedisDriver#DEFAULT_CONNECTIONS} worker threads (and at most as many connections per node). The
   * first seed URI's credentials and TLS settings apply to every node; a cluster has no databases
   * but 0. Reads the slot map from the first seed that answers, and {@code INFO server} from a
   * primary (its {@code redis_version} decides {@link #hasShardedPubSub()}).
   *
   * @param target a {@link RedisTarget.Kind#CLUSTER CLUSTER} target: the seed nodes' URIs
   * @param settings the connect and command timeouts, and the name to give the connections
   * @return the connected driver, the cluster's slot map read
   * @throws NullPointerException if {@code target} or {@code settings} is null
   * @throws IllegalArgumentException if {@code target} is not a {@link RedisTarget.Kind#CLUSTER},
   *     or a URI is malformed or names a database (the message never shows a password)
   * @throws redis.clients.jedis.exceptions.JedisConnectionException if no seed node can be
   *     reached or none serves a slot map (the message names the seeds, passwords hidden, and why
   *     one failed)
   */
  public static JedisClusterDriver connect(RedisTarget target, DriverSettings settings) {
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(settings, "settings");
    if (target.kind() != RedisTarget.Kind.CLUSTER) {
      throw new IllegalArgumentException("not a CLUSTER target: " + target);
    }
    List<RedisUri> uris = target.nodes().stream().map(RedisUri::parse).toList();
    Set<HostAndPort> seeds = new LinkedHashSet<>();
    for (RedisUri uri : uris) {
      if (uri.database() != 0) {
        throw new IllegalArgumentException("a Redis Cluster has only database 0, not " + uri.database() + " (" + uri + ")");
      }
      if (uri.tls() && uri.verifyPeer() == RedisUri.PeerVerification.NONE) {
        log.warn("TLS to {} does not verify the server's certificate (verifyPeer=NONE): the connection is "
            + "encrypted, but anyone on the network path can pose as the server", uri.hostAndPort());
      }
      seeds.add(JedisClientConfigs.endpoint(uri));
    }
    String where = "cluster " + uris;
    JedisClientConfig config = JedisClientConfigs.client(uris.get(0), settings);
    int connections = JedisDriver.DEFAULT_CONNECTIONS;
    ConnectionPoolConfig poolConfig = new ConnectionPoolConfig();
    poolConfig.setMaxTotal(connections);
    poolConfig.setMaxIdle(connections);
    poolConfig.setMinIdle(0);
    poolConfig.setJmxEnabled(false);
    // Each worker holds at most one connection, so a borrow waits only while one is being opened.
    poolConfig.setMaxWait(Duration.ofMillis(Math.max(1, config.getConnectionTimeoutMillis()) * 2L));
    ClusterConnectionProvider provider;
    try {
      provider = new ClusterConnectionProvider(seeds, config, poolConfig);
    } catch (RuntimeException e) {
      throw new JedisConnectionException("could not reach the Redis Cluster through any of its seed nodes "
          + uris + ": " + JedisDriver.describe(e), e);
    }
    try {
      return new JedisClusterDriver(provider, config, connections, where);
    } catch (RuntimeException e) {
      provider.close();
      throw new JedisConnectionException("could not talk to the Redis Cluster at " + uris + ": "
          + JedisDriver.describe(e), e);
    }
  }

  private String infoServer() {
    Connection c = null;
    RuntimeException first = null;
    for (HostAndPort node : primaries()) {
      try {
        c = slots.getConnection(node);
        return (String) JedisCalls.value(c.executeCommand(new CommandArguments(Protocol.Command.INFO).add("server")));
      } catch (RuntimeException e) {
        first = first == null ? e : first;
      } finally {
        if (c != null) {
          c.close();
          c = null;
        }
      }
    }
    throw first != null ? first : new JedisConnectionException("no primary in the slot map of " + where);
  }

  /** {@code true}: core keeps each call to one slot. */
  @Override
  public boolean isClustered() {
    return true;
  }

  /** Whether the node asked at connect runs Redis 7 or later. */
  @Override
  public boolean hasShardedPubSub() {
    return sharded;
  }

  /**
   * {@code true}: a call not started within the command timeout fails unsent ({@link QueuedCall}),
   * and each command on the wire is bounded by the socket timeout (a call that follows redirects
   * takes one per node it meets), so core adds no timeout of its own, which could fail a call
   * while a worker still sends it.
   */
  @Override
  public boolean timesOutCommands() {
    return true;
  }

  @Override
  public CompletableFuture<List<Object>> evalSha(String sha1, List<String> keys, List<String> args) {
    CommandArguments command = JedisCalls.evalSha(sha1, keys, args);
    return run(slotOf(keys), c -> JedisCalls.scriptReply(c.executeCommand(command)));
  }

  /**
   * Both commands go, one after the other, on one connection to the primary of the keys' slot
   * (after any redirect of the script), on one worker, which the {@code WAIT} holds until it
   * answers, as for {@link JedisDriver#evalShaReplicated}. An error reply to the {@code WAIT} (such
   * as a demoted node's refusal) comes as {@link IllegalStateException}: the script has run.
   */
  @Override
  public CompletableFuture<ReplicatedReply> evalShaReplicated(String sha1, List<String> keys, List<String> args,
      int replicas, Duration timeout) {
    if (replicas < 0) {
      return CompletableFuture.failedFuture(new IllegalArgumentException("replicas must be 0 or more, not " + replicas));
    }
    CommandArguments command = JedisCalls.evalSha(sha1, keys, args);
    return run(slotOf(keys), c -> JedisCalls.evalShaThenWait(c, command, replicas, timeout));
  }

  /** {@code true}: {@link #evalShaReplicated} sends {@code WAIT} to the slot's primary. */
  @Override
  public boolean supportsReplicaAcks() {
    return true;
  }

  /**
   * On every primary of the slot map, one after the other on one worker; fails if any failed
   * (with the first failure), completes with the SHA1 otherwise.
   */
  @Override
  public CompletableFuture<String> scriptLoad(String script) {
    CommandArguments command = JedisCalls.scriptLoad(script);
    return submit(() -> {
      String sha = null;
      RuntimeException failure = null;
      for (HostAndPort node : primaries()) {
        try {
          sha = (String) JedisCalls.value(onNode(node, false, c -> c.executeCommand(command)));
        } catch (RuntimeException e) {
          failure = failure == null ? e : failure;
        }
      }
      if (failure != null) {
        throw failure;
      }
      if (sha == null) {
        refreshSoon();
        throw new CommandNotSentException("no primary in the slot map of " + where, null);
      }
      return sha;
    });
  }

  /**
   * On each primary of the slot map, named {@code host:port}, one after the other on one
   * worker; fails with the first failure.
   */
  @Override
  public CompletableFuture<Map<String, List<Object>>> evalShaOnEveryPrimary(String sha1,
      Function<String, List<String>> argsFor) {
    return submit(() -> {
      List<HostAndPort> primaries = primaries();
      if (primaries.isEmpty()) {
        refreshSoon();
        throw new CommandNotSentException("no primary in the slot map of " + where, null);
      }
      Map<String, List<Object>> replies = new java.util.LinkedHashMap<>();
      for (HostAndPort node : primaries) {
        List<String> args = argsFor.apply(node.toString());
        if (args != null) {
          CommandArguments command = JedisCalls.evalSha(sha1, List.of(), args);
          replies.put(node.toString(), onNode(node, false, c -> JedisCalls.scriptReply(c.executeCommand(command))));
        }
      }
      return replies;
    });
  }

  private static int slotOf(List<String> keys) {
    return keys.isEmpty() ? -1 : JedisClusterCRC16.getSlot(keys.get(0));
  }

  /**
   * For servers before Redis 7: a plain {@code SUBSCRIBE} on one primary of the slot map (a
   * cluster broadcasts {@code PUBLISH} to every node), on a thread of its own, that reconnects, to
   * the next primary, when the connection drops. The listener runs on that thread. Called again
   * with the same channel, it hands the messages to the new listener and completes once the
   * subscription holds (at once if it does now).
   *
   * @throws IllegalStateException if called with another channel than before
   */
  @Override
  public synchronized CompletableFuture<Void> subscribe(String channel, Consumer<String> listener) {
    if (closed.get()) {
      return CompletableFuture.failedFuture(new IllegalStateException("the Jedis cluster driver is closed"));
    }
    if (subscriber != null) {
      return subscriber.again(channel, listener);
    }
    subscriber = new ChannelSubscriber(this::anyPrimary, config, channel, listener, this::reconnected,
        threadPrefix + "-pubsub", where);
    return subscriber.start();
  }

  /** A primary of the slot map, another one each time (so a reconnect tries the next node). */
  private HostAndPort anyPrimary() {
    List<HostAndPort> primaries = primaries();
    if (primaries.isEmpty()) {
      refreshSoon();
      throw new JedisConnectionException("no primary in the slot map of " + where);
    }
    return primaries.get(Math.floorMod(nextNode.getAndIncrement(), primaries.size()));
  }

  /**
   * Only on Redis 7+. The listener runs on the thread of the node's subscriber. The future fails
   * if that node cannot be reached (the subscription is retried all the same, and the reconnect
   * listener runs once it took hold).
   */
  @Override
  public CompletableFuture<Void> subscribeSharded(String channel, Consumer<String> listener) {
    if (closed.get()) {
      return CompletableFuture.failedFuture(new IllegalStateException("the Jedis cluster driver is closed"));
    }
    if (!sharded) {
      return RedisDriver.super.subscribeSharded(channel, listener);
    }
    return shardedSubscriptions.subscribe(channel, listener);
  }

  /** Completes once the {@code SUNSUBSCRIBE} is sent (or nothing needed sending). */
  @Override
  public CompletableFuture<Void> unsubscribeSharded(String channel) {
    if (!sharded) {
      return RedisDriver.super.unsubscribeSharded(channel);
    }
    return shardedSubscriptions.unsubscribe(channel);
  }

  /**
   * Runs when a command succeeds on a node that a command could not reach before, when a slot
   * map read after such a failure shows that node's slots served by others (a failover), and when
   * a subscription is confirmed again after its connection was lost or its slot moved.
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
      log.warn("the reconnect listener failed", e);
    }
  }

  // ---- routing ---------------------------------------------------------------------------------

  /** What a call does with the connection it borrowed. */
  @FunctionalInterface
  private interface Exchange<T> {
    T on(Connection c);
  }

  @FunctionalInterface
  private interface Work<T> {
    T call();
  }

  /** Runs {@code exchange} on a worker, on a connection to the primary of {@code slot}, following redirects. */
  private <T> CompletableFuture<T> run(int slot, Exchange<T> exchange) {
    return submit(() -> routed(slot, exchange));
  }

  private <T> CompletableFuture<T> submit(Work<T> work) {
    CompletableFuture<T> future = new CompletableFuture<>();
    if (closed.get()) {
      future.completeExceptionally(new IllegalStateException("the Jedis cluster driver is closed"));
      return future;
    }
    try {
      workers.execute(work::call, future);
    } catch (RejectedExecutionException e) {
      future.completeExceptionally(new IllegalStateException("the Jedis cluster driver is closed", e));
    }
    return future;
  }

  private <T> T routed(int slot, Exchange<T> exchange) {
    HostAndPort target = null;
    boolean asking = false;
    for (int redirects = 0; ; redirects++) {
      HostAndPort node = target != null ? target : slot < 0 ? anyPrimaryOrNotSent() : primaryOrNotSent(slot);
      try {
        return onNode(node, asking, exchange);
      } catch (JedisMovedDataException e) {
        if (redirects >= MAX_REDIRECTS) {
          throw new RedisReplyException(e.getMessage(), e);
        }
        target = e.getTargetNode();
        asking = false;
      } catch (JedisAskDataException e) {
        if (redirects >= MAX_REDIRECTS) {
          throw new RedisReplyException(e.getMessage(), e);
        }
        target = e.getTargetNode();
        asking = true;
      }
    }
  }

  private HostAndPort anyPrimaryOrNotSent() {
    try {
      return anyPrimary();
    } catch (RuntimeException e) {
      throw new CommandNotSentException(e.getMessage(), e);
    }
  }

  private HostAndPort primaryOrNotSent(int slot) {
    HostAndPort node = primaryOf(slot);
    if (node == null) {
      refreshNow(); // on this worker: the call cannot go anywhere without it
      node = primaryOf(slot);
      if (node == null) {
        throw new CommandNotSentException("no primary known for slot " + slot + " of " + where, null);
      }
    }
    return node;
  }

  /** The primary serving {@code slot} in the slot map, or null. */
  private HostAndPort primaryOf(int slot) {
    return slots.getNode(slot);
  }

  /** The primaries of the slot map (each once, in slot order). */
  private List<HostAndPort> primaries() {
    Set<HostAndPort> primaries = new LinkedHashSet<>();
    HostAndPort last = null;
    for (int slot = 0; slot < Protocol.CLUSTER_HASHSLOTS; slot++) {
      HostAndPort node = slots.getNode(slot);
      if (node != null && !node.equals(last)) {
        primaries.add(node);
        last = node;
      }
    }
    return new ArrayList<>(primaries);
  }

  /**
   * One exchange on one node. Redirects are thrown (as Jedis's exceptions) for the caller to
   * follow, after a MOVED has made the slot map be read again; other error replies become {@link
   * RedisReplyException}.
   */
  private <T> T onNode(HostAndPort node, boolean asking, Exchange<T> exchange) {
    Connection c;
    try {
      c = slots.getConnection(node);
    } catch (RuntimeException e) {
      lost(node, null);
      throw new CommandNotSentException("could not open a connection to " + node + " of " + where + ": "
          + JedisDriver.describe(e), e);
    }
    boolean sent = !asking;
    try {
      if (asking) {
        c.executeCommand(Protocol.Command.ASKING);
        sent = true;
      }
      T result = exchange.on(c);
      reached(node);
      return result;
    } catch (JedisMovedDataException e) {
      reached(node);
      slots.renewSlotCache(c); // as the cluster specification recommends; then places subscriptions anew
      topologyChangedSoon();
      throw e;
    } catch (JedisAskDataException e) {
      reached(node);
      throw e;
    } catch (JedisDataException e) {
      reached(node);
      String m = String.valueOf(RedisReplyException.unwrapScriptError(e.getMessage()));
      if (m.startsWith("CLUSTERDOWN") || m.startsWith("READONLY")) {
        refreshSoon();
      }
      throw new RedisReplyException(e.getMessage(), e);
    } catch (JedisConnectionException e) {
      lost(node, c);
      if (!sent) {
        throw new CommandNotSentException("lost the connection to " + node + " before the command was sent: "
            + JedisDriver.describe(e), e);
      }
      throw e;
    } finally {
      try {
        c.close();
      } catch (RuntimeException e) {
        log.debug("returning a connection to the pool for {} failed: {}", node, e.getMessage());
      }
    }
  }

  /** A command succeeded on {@code node} (or got an answer): if it had been lost, that is a reconnect. */
  private void reached(HostAndPort node) {
    if (!lostNodes.isEmpty() && lostNodes.remove(node)) {
      log.info("{} of {} answers again", node, where);
      reconnected();
    }
  }

  /**
   * A connection to {@code node} failed: drop its idle connections (they most likely broke with
   * it), remember it, and read the slot map again soon (it may have failed over).
   */
  private void lost(HostAndPort node, Connection broken) {
    lostNodes.add(node);
    if (broken != null) {
      broken.setBroken();
    }
    Map<String, ConnectionPool> pools = slots.getNodes();
    ConnectionPool pool = pools.get(JedisClusterInfoCache.getNodeKey(node));
    if (pool != null) {
      try {
        pool.clear();
      } catch (RuntimeException e) {
        log.debug("clearing the pool of {} failed: {}", node, e.getMessage());
      }
    }
    refreshSoon();
  }

  // ---- topology --------------------------------------------------------------------------------

  /** Reads the slot map again on the topology thread, at most twice a second. */
  @Override
  public void refreshTopology() {
    refreshSoon();
  }

  /** Reads the slot map again on the topology thread, at most twice a second. */
  private void refreshSoon() {
    if (closed.get() || !refreshQueued.compareAndSet(false, true)) {
      return;
    }
    long wait = Math.max(0, lastRefresh.get() + REFRESH_SPACING_NANOS - System.nanoTime());
    try {
      topology.schedule(this::refreshNow, wait, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      refreshQueued.set(false); // closed meanwhile
    }
  }

  /** After a worker read the slot map: places the subscriptions anew, on the topology thread. */
  private void topologyChangedSoon() {
    try {
      topology.execute(this::topologyChanged);
    } catch (RejectedExecutionException e) {
      // closed meanwhile
    }
  }

  /** Reads the slot map again (from the seeds, then the known nodes), then follows what moved. */
  private void refreshNow() {
    refreshQueued.set(false);
    lastRefresh.set(System.nanoTime());
    if (closed.get()) {
      return;
    }
    try {
      slots.renewSlotCache();
    } catch (RuntimeException e) {
      log.debug("reading the slot map of {} failed: {}", where, e.getMessage());
    }
    topologyChanged();
  }

  private void topologyChanged() {
    if (closed.get()) {
      return;
    }
    try {
      if (!lostNodes.isEmpty()) {
        // A lost node that serves no slot any more has been replaced (a failover): the slots it
        // served can be reached again, through its successor.
        List<HostAndPort> primaries = primaries();
        if (primaries.size() > 0 && lostNodes.removeIf(n -> !primaries.contains(n))) {
          log.info("the slot map of {} no longer has a lost node as primary; its slots are served again", where);
          reconnected();
        }
      }
      if (sharded) {
        shardedSubscriptions.topologyChanged();
      }
    } catch (RuntimeException e) {
      log.warn("following a change of the slot map of {} failed", where, e);
    }
  }

  // ---- replies ---------------------------------------------------------------------------------

  /** Nodes that have a sharded subscriber now (for tests). */
  Set<HostAndPort> shardSubscriberNodes() {
    return shardedSubscriptions.subscribedNodes();
  }

  /**
   * Closes the subscribers, fails calls still queued with {@link IllegalStateException}, and
   * closes the node pools. Calls already running finish within the socket timeout on connections
   * that are then closed. Idempotent.
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
    shardedSubscriptions.close();
    shutdown();
  }

  private void shutdown() {
    closed.set(true);
    topology.shutdownNow();
    for (QueuedCall<?> call : workers.shutdownNow()) {
      call.future.completeExceptionally(new IllegalStateException("the Jedis cluster driver was closed before the call ran"));
    }
    try {
      slots.close();
    } catch (RuntimeException e) {
      log.debug("closing the node pools of {} failed: {}", where, e.getMessage());
    }
  }
}

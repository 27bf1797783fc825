package io.relock.lettuce;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubAdapter;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.relock.spi.CommandNotSentException;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;
import io.relock.spi.RedisTarget;
import io.relock.spi.ReplicatedReply;
import io.relock.spi.ServerInfo;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;

/**
 * relock's driver on a Redis Cluster, with Lettuce's cluster client: scripts go to the primary of
 * their keys' slot (Lettuce follows MOVED and ASK and refreshes its view of the cluster when it
 * meets them, when a node connection drops, and every ten seconds); {@code SCRIPT LOAD} goes to
 * every primary.
 *
 * <p>When a refreshed view shows a slot served by another primary than before (a failover, a
 * migration), the reconnect listener runs: after a failover no connection comes back to say that
 * calls to the failed node's slots may go through again.
 *
 * <p>Grant notifications: on Redis 7+ (sharded pub/sub), each lock's grants are published with
 * {@code SPUBLISH} on a channel of the lock's own slot, and this driver subscribes with {@code
 * SSUBSCRIBE} on the primary that serves it, moving the subscription when the slot moves (Redis
 * then ends it with a {@code SUNSUBSCRIBE} of its own) or the cluster's view changes. Older
 * servers have no sharded pub/sub: the client channel is used with {@code PUBLISH}, which the
 * cluster broadcasts to every node.
 */
public final class LettuceClusterDriver implements RedisDriver {
  private static final Logger log = LoggerFactory.getLogger(LettuceClusterDriver.class);

  private final RedisClusterClient client;
  private final StatefulRedisClusterConnection<String, String> commands;
  private final StatefulRedisClusterPubSubConnection<String, String> pubsub;
  private final boolean sharded;
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile Runnable reconnectListener = () -> {};
  /** Sharded channels wanted, with their listeners. */
  private final Map<String, Consumer<String>> shardedListeners = new ConcurrentHashMap<>();
  /** Where each sharded channel is subscribed now (node id). */
  private final Map<String, String> subscribedOn = new ConcurrentHashMap<>();
  private volatile String channel;
  private volatile Consumer<String> listener;
  private final Disposable topologyEvents;
  /** A second cluster connection for script calls followed by WAIT, opened on first use. */
  private CompletableFuture<StatefulRedisClusterConnection<String, String>> acked;

  /** Node connections that lost their server: their next connect is a reconnect worth reporting. */
  private final Set<RedisChannelHandler<?, ?>> lost = ConcurrentHashMap.newKeySet();
  private final RedisConnectionStateListener connectionListener = new RedisConnectionStateListener() {
    @Override
    public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
      lost.add(connection);
    }

    @Override
    public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress address) {
      // New connections (to nodes not used before, or Lettuce's topology probes) are no news.
      if (lost.remove(connection) && !closed.get()) {
        reconnectListener.run();
      }
    }
  };

  private LettuceClusterDriver(RedisClusterClient client) {
    this.client = client;
    StatefulRedisClusterConnection<String, String> c = null;
    try {
      c = client.connect();
      this.commands = c;
      this.pubsub = client.connectPubSub();
      this.sharded = ServerInfo.majorVersion(c.sync().info("server")) >= 7;
    } catch (RuntimeException e) {
      if (c != null) {
        c.close();
      }
      LettuceSettings.shutdown(client);
      throw e;
    }
    pubsub.setNodeMessagePropagation(true);
    pubsub.addListener(new RedisClusterPubSubAdapter<>() {
      @Override
      public void message(RedisClusterNode node, String ch, String message) {
        Consumer<String> l = listener;
        if (l != null && ch.equals(channel)) {
          l.accept(message);
        }
      }

      @Override
      public void smessage(RedisClusterNode node, String ch, String message) {
        Consumer<String> l = shardedListeners.get(ch);
        if (l != null) {
          l.accept(message);
        }
      }

      @Override
      public void sunsubscribed(RedisClusterNode node, String ch, long count) {
        // Ours, or the server's when the slot moved away from that node: follow the slot.
        subscribedOn.remove(ch, node == null ? "" : node.getNodeId());
        if (shardedListeners.containsKey(ch) && !closed.get()) {
          client.refreshPartitionsAsync().whenComplete((v, e) -> resubscribeMoved());
        }
      }
    });
    client.addListener(connectionListener);
    topologyEvents = client.getResources().eventBus().get()
        .filter(ClusterTopologyChangedEvent.class::isInstance)
        .cast(ClusterTopologyChangedEvent.class)
        .subscribe(event -> {
          resubscribeMoved();
          if (slotsMoved(event) && !closed.get()) {
            // A failover (or a migration): calls that failed on the old node may go through now,
            // and no reconnect comes to say so.
            reconnectListener.run();
          }
        });
  }

  /** Whether some slot has another primary in the event's new view of the cluster than in its old one. */
  static boolean slotsMoved(ClusterTopologyChangedEvent event) {
    return !slotOwners(event.before()).equals(slotOwners(event.after()));
  }

  private static Map<String, Set<Integer>> slotOwners(List<RedisClusterNode> nodes) {
    Map<String, Set<Integer>> owners = new java.util.HashMap<>();
    for (RedisClusterNode node : nodes) {
      if (node.is(RedisClusterNode.NodeFlag.UPSTREAM) && !node.getSlots().isEmpty()) {
        owners.put(node.getNodeId(), new java.util.HashSet<>(node.getSlots()));
      }
    }
    return owners;
  }

  /**
   * Connects to the cluster that {@code target}'s seed nodes belong to. The seeds' credentials and
   * TLS settings apply to every node.
   *
   * @param target a {@link RedisTarget.Kind#CLUSTER} target: the seed nodes' URIs
   * @param settings the command and connect timeouts, and the name to give the connections
   * @return the connected driver; closing it shuts its client down too
   * @throws IllegalArgumentException if {@code target} is not a {@link RedisTarget.Kind#CLUSTER}
   */
  public static LettuceClusterDriver connect(RedisTarget target, DriverSettings settings) {
    if (target.kind() != RedisTarget.Kind.CLUSTER) {
      throw new IllegalArgumentException("not a CLUSTER target: " + target);
    }
    List<RedisURI> seeds = new ArrayList<>();
    for (String node : target.nodes()) {
      RedisURI uri = LettuceUris.of(node);
      uri.setTimeout(LettuceSettings.handshakeTimeout(settings));
      uri.setClientName(settings.clientName());
      seeds.add(uri);
    }
    RedisClusterClient client = RedisClusterClient.create(LettuceSettings.resources(), seeds);
    client.setOptions(ClusterClientOptions.builder()
        .disconnectedBehavior(ClusterClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .timeoutOptions(TimeoutOptions.enabled(settings.commandTimeout()))
        .socketOptions(LettuceSettings.socketOptions(settings))
        .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
            .enableAllAdaptiveRefreshTriggers()
            .adaptiveRefreshTriggersTimeout(Duration.ofMillis(500))
            .enablePeriodicRefresh(Duration.ofSeconds(10))
            .build())
        .build());
    return new LettuceClusterDriver(client);
  }

  @Override
  public boolean isClustered() {
    return true;
  }

  @Override
  public boolean hasShardedPubSub() {
    return sharded;
  }

  @Override
  public boolean timesOutCommands() {
    return true;
  }

  @Override
  @SuppressWarnings("unchecked")
  public CompletableFuture<List<Object>> evalSha(String sha1, List<String> keys, List<String> args) {
    CompletableFuture<List<Object>> f = LettuceDriver.translate(commands.async()
        .<List<Object>>evalsha(sha1, ScriptOutputType.MULTI, keys.toArray(new String[0]), args.toArray(new String[0]))
        .toCompletableFuture());
    f.whenComplete((r, e) -> {
      Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
      if (cause instanceof CommandNotSentException) {
        refreshSoon(); // the slot's node is gone: perhaps a replica took over
      }
    });
    return f;
  }

  /**
   * On each primary of this client's view of the cluster that serves slots, named {@code
   * host:port}, over the cluster connection's connection to that node; all at once.
   */
  @Override
  @SuppressWarnings("unchecked")
  public CompletableFuture<Map<String, List<Object>>> evalShaOnEveryPrimary(String sha1,
      Function<String, List<String>> argsFor) {
    Map<String, CompletableFuture<List<Object>>> calls = new java.util.LinkedHashMap<>();
    for (RedisClusterNode node : commands.getPartitions()) {
      if (!node.is(RedisClusterNode.NodeFlag.UPSTREAM) || node.getSlots().isEmpty()) {
        continue;
      }
      String name = node.getUri().getHost() + ":" + node.getUri().getPort();
      List<String> args = argsFor.apply(name);
      if (args != null) {
        calls.put(name, commands.getConnectionAsync(node.getNodeId())
            .exceptionallyCompose(e -> CompletableFuture.failedFuture(
                new CommandNotSentException("could not connect to " + name + ": " + e.getMessage(), e)))
            .thenCompose(c -> LettuceDriver.translate(c.async().<List<Object>>evalsha(sha1, ScriptOutputType.MULTI,
                new String[0], args.toArray(new String[0])).toCompletableFuture())));
      }
    }
    if (calls.isEmpty() && commands.getPartitions().size() == 0) {
      client.refreshPartitionsAsync();
      return CompletableFuture.failedFuture(new CommandNotSentException("no primary known in the cluster", null));
    }
    return CompletableFuture.allOf(calls.values().toArray(new CompletableFuture<?>[0])).thenApply(done -> {
      Map<String, List<Object>> replies = new java.util.LinkedHashMap<>();
      calls.forEach((name, call) -> replies.put(name, call.join()));
      return replies;
    });
  }

  /** Last time a topology refresh was asked for, to ask at most twice a second. */
  private final AtomicLong lastRefresh = new AtomicLong(System.nanoTime() - REFRESH_SPACING_NANOS);
  private static final long REFRESH_SPACING_NANOS = 500_000_000L;

  /**
   * Asks Lettuce to read the cluster's topology again, at most twice a second: after a node was
   * lost, commands for its slots are refused until Lettuce learns which replica took over.
   */
  private void refreshSoon() {
    long last = lastRefresh.get();
    long now = System.nanoTime();
    if (now - last >= REFRESH_SPACING_NANOS && lastRefresh.compareAndSet(last, now) && !closed.get()) {
      client.refreshPartitionsAsync();
    }
  }

  /** Reads the cluster's topology again, at most twice a second (see refreshSoon). */
  @Override
  public void refreshTopology() {
    refreshSoon();
  }

  /** Loads the script on every primary (Lettuce's cluster SCRIPT LOAD). */
  @Override
  public CompletableFuture<String> scriptLoad(String script) {
    return LettuceDriver.translate(commands.async().scriptLoad(script).toCompletableFuture());
  }

  /**
   * On a second cluster connection of its own, on the node connection of the primary that
   * serves the keys' slot as this client last saw it: a WAIT blocks only other acknowledged
   * acquisitions bound for that node. A slot that moved meanwhile answers MOVED, which core
   * retries; the driver refreshes its view of the cluster first.
   */
  @Override
  @SuppressWarnings("unchecked")
  public CompletableFuture<ReplicatedReply> evalShaReplicated(String sha1, List<String> keys, List<String> args,
      int replicas, Duration timeout) {
    int slot = SlotHash.getSlot(keys.get(0));
    return ackedConnection().thenCompose(cluster -> {
      RedisClusterNode node = cluster.getPartitions().getMasterBySlot(slot);
      if (node == null) {
        client.refreshPartitionsAsync();
        return CompletableFuture.failedFuture(new CommandNotSentException("no primary known for slot " + slot, null));
      }
      return cluster.getConnectionAsync(node.getNodeId()).exceptionallyCompose(e -> CompletableFuture.failedFuture(
          new CommandNotSentException("could not connect to " + node.getUri().getHost() + ":"
              + node.getUri().getPort() + ": " + e.getMessage(), e)));
    }).thenCompose(c -> {
      RedisAsyncCommands<String, String> async = c.async();
      CompletableFuture<List<Object>> script = LettuceDriver.translate(async
          .<List<Object>>evalsha(sha1, ScriptOutputType.MULTI, keys.toArray(new String[0]), args.toArray(new String[0]))
          .toCompletableFuture());
      CompletableFuture<Long> waited = async.waitForReplication(replicas, timeout.toMillis()).toCompletableFuture()
          .exceptionally(e -> {
            throw new IllegalStateException("WAIT failed after the script ran: " + e.getMessage(), e);
          });
      script.whenComplete((r, e) -> {
        if (e != null && String.valueOf(e.getMessage()).contains("MOVED")) {
          client.refreshPartitionsAsync();
        }
      });
      return script.thenCombine(waited, ReplicatedReply::new);
    });
  }

  @Override
  public boolean supportsReplicaAcks() {
    return true;
  }

  private synchronized CompletableFuture<StatefulRedisClusterConnection<String, String>> ackedConnection() {
    if (closed.get()) {
      return CompletableFuture.failedFuture(new CommandNotSentException("the Lettuce cluster driver is closed", null));
    }
    if (acked == null || acked.isCompletedExceptionally()) {
      acked = client.connectAsync(StringCodec.UTF8).exceptionallyCompose(e -> CompletableFuture.failedFuture(
          new CommandNotSentException("could not connect for replica acknowledgements: " + e.getMessage(), e)));
    }
    return acked;
  }

  /**
   * The client channel (for servers without sharded pub/sub, PUBLISH reaches every node; on
   * others, for notices of forced unlocks). Called again, sends {@code SUBSCRIBE} again, which
   * Redis confirms without subscribing twice; the latest listener hears each message.
   */
  @Override
  public CompletableFuture<Void> subscribe(String channel, Consumer<String> listener) {
    this.listener = listener;
    this.channel = channel;
    return LettuceDriver.translate(pubsub.async().subscribe(channel).toCompletableFuture());
  }

  @Override
  public CompletableFuture<Void> subscribeSharded(String channel, Consumer<String> listener) {
    shardedListeners.put(channel, Objects.requireNonNull(listener, "listener"));
    return subscribeOnOwner(channel);
  }

  @Override
  public CompletableFuture<Void> unsubscribeSharded(String channel) {
    shardedListeners.remove(channel);
    String nodeId = subscribedOn.remove(channel);
    if (nodeId == null || closed.get()) {
      return CompletableFuture.completedFuture(null);
    }
    return pubsub.getConnectionAsync(nodeId)
        .thenCompose(c -> c.async().sunsubscribe(channel).toCompletableFuture())
        .thenApply(v -> (Void) null);
  }

  /** SSUBSCRIBE on the primary that serves the channel's slot now. */
  private CompletableFuture<Void> subscribeOnOwner(String channel) {
    RedisClusterNode owner = commands.getPartitions().getMasterBySlot(SlotHash.getSlot(channel));
    if (owner == null) {
      return CompletableFuture.failedFuture(new CommandNotSentException(
          "no primary known for the slot of " + channel, null));
    }
    String nodeId = owner.getNodeId();
    CompletableFuture<StatefulRedisPubSubConnection<String, String>> node = pubsub.getConnectionAsync(nodeId);
    return node.thenCompose(c -> c.async().ssubscribe(channel).toCompletableFuture())
        .thenRun(() -> {
          if (shardedListeners.containsKey(channel)) {
            subscribedOn.put(channel, nodeId);
          }
        });
  }

  /** After the cluster's view changed: subscribe again wherever a channel's slot now lives elsewhere. */
  private void resubscribeMoved() {
    if (closed.get()) {
      return;
    }
    for (String ch : shardedListeners.keySet()) {
      RedisClusterNode owner = commands.getPartitions().getMasterBySlot(SlotHash.getSlot(ch));
      if (owner != null && !owner.getNodeId().equals(subscribedOn.get(ch))) {
        subscribeOnOwner(ch).whenComplete((v, e) -> {
          if (e != null) {
            log.debug("could not subscribe to {} on its new node: {}", ch, e.getMessage());
          } else {
            reconnectListener.run(); // grants published meanwhile were lost: waiters re-check
          }
        });
      }
    }
  }

  @Override
  public void onReconnect(Runnable listener) {
    reconnectListener = Objects.requireNonNull(listener, "listener");
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    topologyEvents.dispose();
    client.removeListener(connectionListener);
    try {
      pubsub.close();
      commands.close();
      CompletableFuture<StatefulRedisClusterConnection<String, String>> a;
      synchronized (this) {
        a = acked;
      }
      if (a != null) {
        a.thenAccept(StatefulRedisClusterConnection::close);
      }
    } finally {
      LettuceSettings.shutdown(client);
    }
  }
}

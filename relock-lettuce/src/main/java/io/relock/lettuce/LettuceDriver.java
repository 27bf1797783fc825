package io.relock.lettuce;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslVerifyMode;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;
import io.relock.spi.CommandNotSentException;
import io.relock.spi.RedisReplyException;
import io.relock.spi.RedisTarget;
import io.relock.spi.RedisUri;
import io.relock.spi.ReplicatedReply;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * relock's driver on Lettuce: one multiplexed connection for scripts and one pub/sub connection
 * for grant notifications, both reconnecting on their own. While disconnected, commands fail at
 * once rather than queue (core retries them once the connection is back, which it learns through
 * {@link #onReconnect}). Both connections use TCP keep-alive probes after {@value
 * LettuceSettings#KEEPALIVE_IDLE_SECONDS} s of silence, so a connection that died without a FIN or RST (a host
 * gone, a NAT entry dropped) is noticed within about half a minute rather than the system default
 * of two hours.
 */
public final class LettuceDriver implements RedisDriver {
  private static final Logger log = LoggerFactory.getLogger(LettuceDriver.class);
  private final RedisClient client;
  private final boolean ownsClient;
  private final RedisURI uri;
  private final StatefulRedisConnection<String, String> commands;
  private volatile StatefulRedisPubSubConnection<String, String> pubsub;
  /** The connection for script calls followed by WAIT, opened on first use (see evalShaReplicated). */
  private CompletableFuture<StatefulRedisConnection<String, String>> acked;
  /** Where each of this driver's connections last connected: after a failover, pub/sub follows commands. */
  private final Map<RedisChannelHandler<?, ?>, SocketAddress> addresses = new ConcurrentHashMap<>();
  private final RedisConnectionStateListener connectionListener = new RedisConnectionStateListener() {
    @Override
    public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress address) {
      addresses.put(connection, address);
      if (connection == commands) {
        followPrimary();
        reconnected();
      }
    }

    @Override
    public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
      if (connection == pubsub) {
        resubscribing.set(true);
      }
    }
  };
  private volatile String channel;
  private volatile Consumer<String> listener;
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile Runnable reconnectListener = () -> {};
  /**
   * Whether the notification connection dropped since Redis last confirmed the subscription: the
   * next confirmation is Lettuce subscribing again on its own, and messages sent meanwhile are lost.
   * Not set by a confirmation that merely repeats an earlier one (core subscribing again after a
   * try that timed out, whose own confirmation may still come).
   */
  private final AtomicBoolean resubscribing = new AtomicBoolean();
  /** The notification connection that has {@link #messages} as a listener; guarded by this. */
  private StatefulRedisPubSubConnection<String, String> listening;
  /** Hands the channel's messages to the listener of the latest {@link #subscribe} call. */
  private final RedisPubSubAdapter<String, String> messages = new RedisPubSubAdapter<>() {
    @Override
    public void message(String c, String message) {
      Consumer<String> l = listener;
      if (l != null && c.equals(channel)) {
        l.accept(message);
      }
    }

    @Override
    public void subscribed(String c, long count) {
      if (c.equals(channel) && resubscribing.compareAndSet(true, false)) {
        reconnected();
      }
    }
  };


  private LettuceDriver(RedisClient client, boolean ownsClient, RedisURI uri) {
    this.client = client;
    this.ownsClient = ownsClient;
    this.uri = uri;
    StatefulRedisConnection<String, String> c = null;
    client.addListener(connectionListener);
    // Both connections open at once: on a cold JVM each takes a few hundred milliseconds, most of
    // it Lettuce setting the connection up, so a new client is ready in the time of the slower one.
    CompletableFuture<StatefulRedisPubSubConnection<String, String>> notifications = null;
    try {
      notifications = client.connectPubSubAsync(StringCodec.UTF8, uri).toCompletableFuture();
      c = client.connect(uri);
      this.commands = c;
      this.pubsub = joinConnect(notifications);
    } catch (RuntimeException e) {
      client.removeListener(connectionListener);
      if (notifications != null) {
        notifications.thenAccept(StatefulRedisPubSubConnection::closeAsync);
      }
      if (c != null) {
        c.close();
      }
      if (ownsClient) {
        LettuceSettings.shutdown(client);
      }
      throw e;
    }
  }

  /** Waits for a connection opened asynchronously, failing as {@code RedisClient.connect} would. */
  private static <T> T joinConnect(CompletableFuture<T> connecting) {
    try {
      return connecting.join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
  }

  /**
   * Connects to {@code uri} with a client of its own, closed with the driver.
   *
   * @param uri the server's URI as relock-core's {@link RedisUri} reads it ({@code redis://} or
   *     {@code rediss://}, optionally with {@code user:password@} and a database)
   * @param settings the command and connect timeouts, and the name to give the connections
   * @return the connected driver; closing it shuts its client down too
   * @throws IllegalArgumentException if {@code uri} is not such a URI (the message never shows the
   *     password)
   */
  public static LettuceDriver connect(String uri, DriverSettings settings) {
    return connect(LettuceUris.of(uri), settings);
  }

  /**
   * Connects to a single server or, for a {@link RedisTarget.Kind#SENTINEL} target, to the primary
   * the sentinels name, following it across failovers: Lettuce asks the sentinels again at every
   * reconnect, and the notification connection moves to wherever the command connection went.
   * Each sentinel URI's credentials apply to that sentinel; the first one's TLS and database apply
   * to the primary, and so do its credentials unless the target has {@link
   * RedisTarget#primaryCredentials() primary credentials} of its own.
   *
   * @param target a {@link RedisTarget.Kind#SINGLE} or {@link RedisTarget.Kind#SENTINEL} target
   * @param settings the command and connect timeouts, and the name to give the connections
   * @return the connected driver; closing it shuts its client down too
   * @throws IllegalArgumentException for a {@link RedisTarget.Kind#CLUSTER} target (see {@link
   *     LettuceClusterDriver})
   */
  public static LettuceDriver connect(RedisTarget target, DriverSettings settings) {
    return switch (target.kind()) {
      case SINGLE -> connect(target.nodes().get(0), settings);
      case SENTINEL -> connect(LettuceUris.sentinel(target), settings);
      case CLUSTER -> throw new IllegalArgumentException(
          "a CLUSTER target needs LettuceClusterDriver.connect(target, settings)");
    };
  }

  private static LettuceDriver connect(RedisURI redisUri, DriverSettings settings) {
    if (redisUri.isSsl() && redisUri.getVerifyMode() == SslVerifyMode.NONE) {
      log.warn("TLS to {}:{} does not verify the server's certificate (verifyPeer=NONE): the connection is "
          + "encrypted, but anyone on the network path can pose as the server", redisUri.getHost(), redisUri.getPort());
    }
    redisUri.setTimeout(LettuceSettings.handshakeTimeout(settings));
    redisUri.setClientName(settings.clientName());
    RedisClient client = new LeanRedisClient(LettuceSettings.resources());
    client.setOptions(ClientOptions.builder()
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .timeoutOptions(TimeoutOptions.enabled(settings.commandTimeout()))
        .socketOptions(LettuceSettings.socketOptions(settings))
        .build());
    return new LettuceDriver(client, true, redisUri);
  }

  /**
   * Uses a client the caller owns and configured (shared client resources, TLS settings, ...); the
   * driver closes only its two connections.
   *
   * @param client the client to connect with; it stays the caller's to shut down
   * @param uri the server to connect to
   * @return the connected driver
   */
  public static LettuceDriver using(RedisClient client, RedisURI uri) {
    return new LettuceDriver(client, false, uri);
  }

  @Override
  @SuppressWarnings("unchecked")
  public CompletableFuture<List<Object>> evalSha(String sha1, List<String> keys, List<String> args) {
    CompletableFuture<List<Object>> f = translate(commands.async()
        .<List<Object>>evalsha(sha1, ScriptOutputType.MULTI, keys.toArray(new String[0]), args.toArray(new String[0]))
        .toCompletableFuture());
    if (!uri.getSentinels().isEmpty()) {
      f.whenComplete((reply, error) -> {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (cause instanceof RedisReplyException r && String.valueOf(r.getMessage()).startsWith("READONLY")) {
          leaveDemotedPrimary();
        }
      });
    }
    return f;
  }

  /** When the last READONLY reply made the driver leave a demoted primary, to do so at most 5 times a second. */
  private final AtomicLong leftAt = new AtomicLong(System.nanoTime() - LEAVE_SPACING_NANOS);
  private static final long LEAVE_SPACING_NANOS = 200_000_000L;

  /**
   * A READONLY reply: the node was demoted to a replica by a failover that left it running, and
   * nothing disconnected this client from it (Sentinel disconnects normal clients only when its
   * own reconfiguration of the node succeeds). Disconnect the command connection from the server
   * side, so that Lettuce reconnects and asks the sentinels where the primary is now; the
   * notification connection follows it there (see followPrimary). The connection for replica
   * acknowledgements is opened afresh on its next use.
   */
  private void leaveDemotedPrimary() {
    long last = leftAt.get();
    long now = System.nanoTime();
    if (now - last < LEAVE_SPACING_NANOS || !leftAt.compareAndSet(last, now) || closed.get()) {
      return;
    }
    log.info("Redis answered READONLY: the primary was demoted; reconnecting through the sentinels");
    RedisAsyncCommands<String, String> async = commands.async();
    async.clientId().thenCompose(id -> async.clientKill(KillArgs.Builder.id(id).skipme(false)));
    CompletableFuture<StatefulRedisConnection<String, String>> old;
    synchronized (this) {
      old = acked;
      acked = null;
    }
    if (old != null) {
      old.thenAccept(StatefulRedisConnection::closeAsync);
    }
  }

  /**
   * Runs on a third connection of its own, opened on first use, so that a WAIT blocks only
   * other acknowledged acquisitions, never renewals, releases or unacknowledged calls. EVALSHA and
   * WAIT go out back to back; Redis answers the WAIT once the replicas caught up with the script's
   * writes.
   */
  @Override
  @SuppressWarnings("unchecked")
  public CompletableFuture<ReplicatedReply> evalShaReplicated(String sha1, List<String> keys, List<String> args,
      int replicas, Duration timeout) {
    return ackedConnection().thenCompose(c -> {
      RedisAsyncCommands<String, String> async = c.async();
      CompletableFuture<List<Object>> script = translate(async
          .<List<Object>>evalsha(sha1, ScriptOutputType.MULTI, keys.toArray(new String[0]), args.toArray(new String[0]))
          .toCompletableFuture());
      // The script has run by the time WAIT answers: an error reply to the WAIT must not read as
      // one to the script (which core takes to mean the script did not run).
      CompletableFuture<Long> waited = async.waitForReplication(replicas, timeout.toMillis()).toCompletableFuture()
          .exceptionally(e -> {
            throw new IllegalStateException("WAIT failed after the script ran: " + e.getMessage(), e);
          });
      return script.thenCombine(waited, ReplicatedReply::new);
    });
  }

  @Override
  public boolean supportsReplicaAcks() {
    return true;
  }

  private synchronized CompletableFuture<StatefulRedisConnection<String, String>> ackedConnection() {
    if (closed.get()) {
      return CompletableFuture.failedFuture(new CommandNotSentException("the Lettuce driver is closed", null));
    }
    if (acked == null || acked.isCompletedExceptionally()) {
      acked = client.connectAsync(StringCodec.UTF8, uri).toCompletableFuture()
          .exceptionallyCompose(e -> CompletableFuture.failedFuture(
              new CommandNotSentException("could not connect for replica acknowledgements: " + e.getMessage(), e)));
    }
    return acked;
  }

  /** True for {@link #connect}: its client fails every command after the command timeout. */
  @Override
  public boolean timesOutCommands() {
    return ownsClient;
  }

  @Override
  public CompletableFuture<String> scriptLoad(String script) {
    return translate(commands.async().scriptLoad(script).toCompletableFuture());
  }

  /**
   * Called again with the same channel (core does so after a try that failed or timed out), sends
   * {@code SUBSCRIBE} again on the same connection, which Redis confirms without subscribing
   * twice; the latest call's listener then hears each message, once.
   *
   * @throws IllegalStateException if called with another channel than before
   */
  @Override
  public CompletableFuture<Void> subscribe(String channel, Consumer<String> listener) {
    synchronized (this) {
      if (this.channel != null && !this.channel.equals(channel)) {
        throw new IllegalStateException("the Lettuce driver subscribes to one channel, " + this.channel
            + "; not also to " + channel);
      }
      this.channel = channel;
      this.listener = listener;
    }
    return subscribeOn(pubsub);
  }

  private CompletableFuture<Void> subscribeOn(StatefulRedisPubSubConnection<String, String> p) {
    String ch;
    synchronized (this) {
      ch = channel;
      if (listening != p) {
        listening = p;
        p.addListener(messages);
      }
    }
    return translate(p.async().subscribe(ch).toCompletableFuture());
  }

  /**
   * After a Sentinel failover that left the old primary running (demoted to a replica), the
   * sentinels disconnect its normal clients but not its pub/sub clients: the command connection
   * moves to the new primary while the notification connection would stay, hearing nothing. When
   * the two part ways, open a new notification connection (Lettuce asks the sentinels where) and
   * drop the old one.
   */
  private void followPrimary() {
    StatefulRedisPubSubConnection<String, String> old;
    SocketAddress now;
    SocketAddress heard;
    synchronized (this) {
      old = pubsub;
      now = addresses.get(commands);
      heard = old == null ? null : addresses.get(old);
      if (uri.getSentinels().isEmpty() || channel == null || moving || now == null || heard == null
          || now.equals(heard) || closed.get()) {
        return;
      }
      moving = true;
    }
    log.info("Redis primary moved to {}; moving the notification connection there from {}", now, heard);
    client.connectPubSubAsync(StringCodec.UTF8, uri).whenComplete((p, error) -> {
      if (error != null) {
        synchronized (this) {
          moving = false;
        }
        log.warn("could not move the notification connection to the new primary: {}", error.getMessage());
        return;
      }
      synchronized (this) {
        pubsub = p;
        moving = false;
      }
      addresses.remove(old);
      old.closeAsync();
      if (closed.get()) {
        p.closeAsync();
        return;
      }
      subscribeOn(p).thenRun(this::reconnected);
    });
  }

  /** Whether a new notification connection is being opened (see followPrimary). */
  private boolean moving;

  @Override
  public void onReconnect(Runnable listener) {
    reconnectListener = Objects.requireNonNull(listener, "listener");
  }

  private void reconnected() {
    if (!closed.get()) {
      reconnectListener.run();
    }
  }

  /**
   * How Lettuce words its refusal of a command while it reconnects (a plain {@code RedisException},
   * with {@code DisconnectedBehavior.REJECT_COMMANDS}): the command was never written.
   */
  private static final String REJECTED_WHILE_DISCONNECTED = "Currently not connected";

  /**
   * Error replies become {@link RedisReplyException}, commands rejected while disconnected {@link
   * CommandNotSentException}; everything else passes through.
   */
  static <T> CompletableFuture<T> translate(CompletableFuture<T> f) {
    return f.handle((value, error) -> {
      if (error == null) {
        return value;
      }
      Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
      if (cause instanceof RedisCommandExecutionException) {
        throw new RedisReplyException(cause.getMessage(), cause);
      }
      if (String.valueOf(cause.getMessage()).startsWith(REJECTED_WHILE_DISCONNECTED)) {
        throw new CommandNotSentException(cause.getMessage(), cause);
      }
      throw cause instanceof RuntimeException r ? r : new CompletionException(cause);
    });
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    client.removeListener(connectionListener);
    try {
      pubsub.close();
      commands.close();
      CompletableFuture<StatefulRedisConnection<String, String>> a;
      synchronized (this) {
        a = acked;
      }
      if (a != null) {
        a.thenAccept(StatefulRedisConnection::close);
      }
    } finally {
      if (ownsClient) {
        LettuceSettings.shutdown(client);
      }
    }
  }
}

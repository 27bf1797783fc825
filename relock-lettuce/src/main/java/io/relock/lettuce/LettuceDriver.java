package io.relock.lettuce;

import io.lettuce.core.ClientOptions;
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
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;
import io.relock.spi.CommandNotSentException;
import io.relock.spi.RedisReplyException;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * relock's driver on Lettuce: one multiplexed connection for scripts and one pub/sub connection
 * for grant notifications, both reconnecting on their own. While disconnected, commands fail at
 * once rather than queue (core retries them once the connection is back, which it learns through
 * {@link #onReconnect}). Both connections use TCP keep-alive probes after {@value
 * #KEEPALIVE_IDLE_SECONDS} s of silence, so a connection that died without a FIN or RST (a host
 * gone, a NAT entry dropped) is noticed within about half a minute rather than the system default
 * of two hours.
 */
public final class LettuceDriver implements RedisDriver {
  private static final Logger log = LoggerFactory.getLogger(LettuceDriver.class);
  private final RedisClient client;
  private final boolean ownsClient;
  private final StatefulRedisConnection<String, String> commands;
  private final StatefulRedisPubSubConnection<String, String> pubsub;
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile Runnable reconnectListener = () -> {};
  /** Whether the pub/sub connection has been subscribed once: later confirmations are resubscriptions. */
  private final AtomicBoolean subscribedOnce = new AtomicBoolean();

  static final int KEEPALIVE_IDLE_SECONDS = 10;
  private static final int KEEPALIVE_INTERVAL_SECONDS = 5;
  private static final int KEEPALIVE_PROBES = 3;

  private LettuceDriver(RedisClient client, boolean ownsClient, RedisURI uri) {
    this.client = client;
    this.ownsClient = ownsClient;
    StatefulRedisConnection<String, String> c = null;
    try {
      c = client.connect(uri);
      this.commands = c;
      this.pubsub = client.connectPubSub(uri);
      this.commands.addListener(new RedisConnectionStateListener() {
        @Override
        public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress address) {
          reconnected();
        }
      });
    } catch (RuntimeException e) {
      if (c != null) {
        c.close();
      }
      if (ownsClient) {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
      throw e;
    }
  }

  /** Connects to {@code uri} with a client of its own, closed with the driver. */
  public static LettuceDriver connect(String uri, DriverSettings settings) {
    RedisURI redisUri = RedisURI.create(uri);
    if (redisUri.isSsl() && redisUri.getVerifyMode() == SslVerifyMode.NONE) {
      log.warn("TLS to {}:{} does not verify the server's certificate (verifyPeer=NONE): the connection is "
          + "encrypted, but anyone on the network path can pose as the server", redisUri.getHost(), redisUri.getPort());
    }
    redisUri.setTimeout(settings.commandTimeout());
    redisUri.setClientName(settings.clientName());
    RedisClient client = RedisClient.create();
    client.setOptions(ClientOptions.builder()
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .timeoutOptions(TimeoutOptions.enabled(settings.commandTimeout()))
        .socketOptions(SocketOptions.builder()
            .connectTimeout(settings.connectTimeout())
            .keepAlive(SocketOptions.KeepAliveOptions.builder().enable()
                .idle(Duration.ofSeconds(KEEPALIVE_IDLE_SECONDS))
                .interval(Duration.ofSeconds(KEEPALIVE_INTERVAL_SECONDS))
                .count(KEEPALIVE_PROBES)
                .build())
            .build())
        .build());
    return new LettuceDriver(client, true, redisUri);
  }

  /**
   * Uses a client the caller owns and configured (shared client resources, TLS settings, ...); the
   * driver closes only its two connections.
   */
  public static LettuceDriver using(RedisClient client, RedisURI uri) {
    return new LettuceDriver(client, false, uri);
  }

  @Override
  @SuppressWarnings("unchecked")
  public CompletableFuture<List<Object>> evalSha(String sha1, List<String> keys, List<String> args) {
    CompletableFuture<List<Object>> f = commands.async()
        .<List<Object>>evalsha(sha1, ScriptOutputType.MULTI, keys.toArray(new String[0]), args.toArray(new String[0]))
        .toCompletableFuture();
    return translate(f);
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

  @Override
  public CompletableFuture<Void> subscribe(String channel, Consumer<String> listener) {
    pubsub.addListener(new RedisPubSubAdapter<>() {
      @Override
      public void message(String ch, String message) {
        if (channel.equals(ch)) {
          listener.accept(message);
        }
      }

      @Override
      public void subscribed(String ch, long count) {
        // Lettuce subscribes again on its own after a reconnect; messages sent meanwhile are lost.
        if (channel.equals(ch) && !subscribedOnce.compareAndSet(false, true)) {
          reconnected();
        }
      }
    });
    return translate(pubsub.async().subscribe(channel).toCompletableFuture());
  }

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
  private static <T> CompletableFuture<T> translate(CompletableFuture<T> f) {
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
    try {
      pubsub.close();
      commands.close();
    } finally {
      if (ownsClient) {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    }
  }
}

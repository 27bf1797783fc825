package io.relock.internal;

import io.relock.spi.CommandNotSentException;
import io.relock.spi.RedisDriver;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Redlock master that could not be reached when the client was built: calls fail at once with
 * {@link CommandNotSentException} (the quorum counts the master as not granting) while a daemon
 * thread tries to connect every second. Once connected, every call goes to the real driver; the
 * subscription made meanwhile is made there, and the reconnect listener runs, so that waiters
 * re-check at once.
 */
final class LateDriver implements RedisDriver {
  private static final Logger log = LoggerFactory.getLogger(LateDriver.class);
  private static final long RETRY_MILLIS = 1000;

  private final String name;
  private final Supplier<RedisDriver> connect;
  private final ScheduledExecutorService retries;
  private volatile RedisDriver connected;
  private volatile String whyNot;
  private volatile boolean closed;
  /** The subscription asked for before connecting; guarded by this, with {@link #connected}. */
  private volatile String channel;
  private volatile Consumer<String> listener;
  private volatile Runnable reconnectListener = () -> {};

  LateDriver(String name, Supplier<RedisDriver> connect, String firstError) {
    this.name = name;
    this.connect = connect;
    this.whyNot = firstError;
    this.retries = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "relock-redlock-connect");
      t.setDaemon(true);
      return t;
    });
    retries.schedule(this::tryConnect, RETRY_MILLIS, TimeUnit.MILLISECONDS);
  }

  private void tryConnect() {
    if (closed) {
      return;
    }
    RedisDriver d;
    try {
      d = connect.get();
    } catch (RuntimeException e) {
      whyNot = String.valueOf(e.getMessage());
      retries.schedule(this::tryConnect, RETRY_MILLIS, TimeUnit.MILLISECONDS);
      return;
    }
    if (closed) {
      d.close();
      return;
    }
    d.onReconnect(() -> reconnectListener.run());
    synchronized (this) {
      if (channel != null) {
        d.subscribe(channel, listener);
      }
      connected = d;
    }
    retries.shutdown();
    log.info("Redlock master {} is reachable now", name);
    reconnectListener.run();
  }

  private <T> CompletableFuture<T> notYet() {
    return CompletableFuture.failedFuture(new CommandNotSentException("not connected yet: " + whyNot, null));
  }

  @Override
  public CompletableFuture<List<Object>> evalSha(String sha1, List<String> keys, List<String> args) {
    RedisDriver d = connected;
    return d != null ? d.evalSha(sha1, keys, args) : notYet();
  }

  @Override
  public CompletableFuture<String> scriptLoad(String script) {
    RedisDriver d = connected;
    return d != null ? d.scriptLoad(script) : notYet();
  }

  /** Subscribes once connected; until then the quorum counts this master as not confirming. */
  @Override
  public CompletableFuture<Void> subscribe(String channel, Consumer<String> listener) {
    RedisDriver d;
    synchronized (this) {
      this.listener = listener;
      this.channel = channel;
      d = connected;
    }
    return d != null ? d.subscribe(channel, listener) : notYet();
  }

  /**
   * Until connected, true: every call fails at once. Then what the connected driver says, so that
   * core bounds its calls only if that driver does not. A timeout of core's own on top of a driver
   * that bounds its calls itself fails a call while the driver may still send it: with the Jedis
   * driver, which sends calls on several connections, the give-back or withdrawal that follows
   * could then reach the master first, and the late call took the lock there for nobody (the
   * Redlock stress run on Jedis, with clients built while a master was paused).
   */
  @Override
  public boolean timesOutCommands() {
    RedisDriver d = connected;
    return d == null || d.timesOutCommands();
  }

  @Override
  public void onReconnect(Runnable listener) {
    this.reconnectListener = listener;
  }

  @Override
  public void close() {
    closed = true;
    retries.shutdownNow();
    RedisDriver d = connected;
    if (d != null) {
      d.close();
    }
  }
}

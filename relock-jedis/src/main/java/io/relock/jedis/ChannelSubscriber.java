package io.relock.jedis;

import io.relock.spi.RedisReplyException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * One channel subscription kept alive on a connection and a daemon thread of its own: Jedis's
 * {@code subscribe} blocks its thread for as long as the subscription lasts. When the connection
 * drops, the thread reconnects after a backoff (doubling from {@value #FIRST_BACKOFF_MS} ms up to
 * {@value #MAX_BACKOFF_MS} ms) and subscribes again, until {@link #close()}.
 *
 * <p>Messages published while the connection is down are lost; relock-core bounds what that costs
 * with its recheck interval. A connection that dies silently (no FIN or RST reaches this host) is
 * noticed only by TCP keep-alive, as with any blocking subscriber.
 *
 * <p>Each connection goes to the node {@code nodes} gives at that moment: behind Sentinel, the
 * primary the sentinels name, asked afresh on every reconnect. A connection to a node that is no
 * longer the primary still works (a replica receives what the primary publishes, late), so it
 * cannot tell from its messages; the driver tells it with {@link #leaveUnlessOn}.
 */
final class ChannelSubscriber {
  private static final Logger log = LoggerFactory.getLogger(ChannelSubscriber.class);
  static final long FIRST_BACKOFF_MS = 50;
  static final long MAX_BACKOFF_MS = 2_000;
  /** How long close() lets Redis confirm the UNSUBSCRIBE before it closes the socket instead. */
  private static final long UNSUBSCRIBE_GRACE_MS = 200;
  private static final long STOP_WAIT_MS = 2_000;

  private final Supplier<HostAndPort> nodes;
  private final JedisClientConfig config;
  private final String channel;
  private volatile Consumer<String> listener;
  private final Runnable resubscribed;
  private final String where;
  private final CompletableFuture<Void> firstSubscription = new CompletableFuture<>();
  /** Complete while Redis has confirmed the subscription on the connection open now; guarded by this. */
  private CompletableFuture<Void> confirmation = new CompletableFuture<>();
  private final CountDownLatch stopping = new CountDownLatch(1);
  private final Thread thread;
  private volatile boolean running = true;
  private volatile Current current;
  private volatile JedisPubSub subscription;

  /** The open connection and the node it goes to. */
  private record Current(Connection connection, HostAndPort node, AtomicBoolean leaving) {}

  /**
   * @param nodes where to connect, asked before each connection (may throw; that attempt then fails)
   * @param resubscribed run (on this subscriber's thread) each time the subscription is confirmed
   *     again after the connection was lost or {@linkplain #leaveUnlessOn left}
   * @param where the endpoint as it may appear in logs (no password)
   */
  ChannelSubscriber(Supplier<HostAndPort> nodes, JedisClientConfig config, String channel, Consumer<String> listener,
      Runnable resubscribed, String threadName, String where) {
    this.nodes = nodes;
    this.config = config;
    this.channel = channel;
    this.listener = listener;
    this.resubscribed = resubscribed;
    this.where = where;
    this.thread = new Thread(this::run, threadName);
    this.thread.setDaemon(true);
  }

  /**
   * Starts the thread; the future completes when Redis first confirms the subscription, and fails
   * if the first try fails (an error reply, such as an ACL's refusal, as {@link
   * RedisReplyException}); the thread tries again all the same.
   */
  CompletableFuture<Void> start() {
    thread.start();
    return firstSubscription;
  }

  /**
   * A second subscription to the same channel, which this one already makes: hands the messages
   * from now on to {@code listener} instead, and completes as {@link #whenSubscribed} does.
   *
   * @throws IllegalStateException if {@code channel} is another channel
   */
  CompletableFuture<Void> again(String channel, Consumer<String> listener) {
    if (!this.channel.equals(channel)) {
      throw new IllegalStateException("the Jedis driver subscribes to one channel, " + this.channel + "; not also to "
          + channel);
    }
    this.listener = listener;
    return whenSubscribed();
  }

  /**
   * Completes once Redis confirms the subscription: at once if it holds now, else at the next
   * confirmation. Never fails, except once closed; the caller bounds its wait.
   */
  synchronized CompletableFuture<Void> whenSubscribed() {
    return confirmation.copy();
  }

  private synchronized void confirmedNow() {
    confirmation.complete(null);
  }

  /** The connection ended: the next confirmation is a new one. */
  private synchronized void unconfirmed() {
    if (confirmation.isDone()) {
      confirmation = new CompletableFuture<>();
    }
  }

  private void run() {
    long backoff = FIRST_BACKOFF_MS;
    boolean lost = false;
    while (running) {
      Forwarder pubsub = new Forwarder(lost);
      HostAndPort node = null;
      Current opened = null;
      try {
        node = nodes.get();
        try (Connection c = new Connection(new KeepAliveSocketFactory(node, config), config)) {
          opened = new Current(c, node, new AtomicBoolean());
          current = opened;
          subscription = pubsub;
          pubsub.at = where(node);
          // close() sets running, then reads current: one of the two sees the other's write.
          if (!running) {
            break;
          }
          pubsub.proceed(c, channel); // returns once unsubscribed, throws when the connection drops
          if (!running) {
            break;
          }
          lost = true;
          backoff = FIRST_BACKOFF_MS;
          log.warn("Redis ended the subscription to {} on {}; subscribing again", channel, where(node));
        }
      } catch (RuntimeException e) {
        if (!running) {
          break;
        }
        if (opened != null && opened.leaving().get()) {
          // leaveUnlessOn closed it: the primary moved. Not a failure, even of the first subscription.
          lost = true;
          backoff = FIRST_BACKOFF_MS;
          continue;
        }
        if (!firstSubscription.isDone()) {
          // Tell the caller now rather than at its timeout; keep trying until close() all the same.
          firstSubscription.completeExceptionally(e instanceof JedisDataException
              ? new RedisReplyException(e.getMessage(), e) : e);
        }
        if (pubsub.confirmed) {
          log.warn("notification connection to {} lost ({}); reconnecting", where(node), e.getMessage());
          backoff = FIRST_BACKOFF_MS;
        } else if (!lost) {
          log.warn("could not subscribe to notifications on {} ({}); retrying", where(node), e.getMessage());
        } else {
          log.debug("reconnecting to {} for notifications failed ({}); next try in {} ms", where(node), e.getMessage(),
              backoff);
        }
        lost = true;
      } finally {
        current = null;
        subscription = null;
        unconfirmed();
      }
      if (pause(backoff)) {
        break;
      }
      backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
    }
    if (!firstSubscription.isDone()) {
      firstSubscription.completeExceptionally(new IllegalStateException("the Jedis driver was closed"));
    }
    synchronized (this) {
      confirmation.completeExceptionally(new IllegalStateException("the Jedis driver was closed"));
    }
  }

  /** {@code where}, and behind Sentinel the node connected to. */
  private String where(HostAndPort node) {
    return node == null || !(nodes instanceof SentinelPrimary) ? where : where + " (primary " + node + ")";
  }

  /**
   * Closes the connection if it goes to another node than {@code primary}, so that the thread
   * connects again at once (asking where to, afresh) and, once subscribed there, runs the
   * resubscribed callback: messages sent meanwhile may be lost. Does nothing while no connection
   * is open (the next one asks where to go anyway). Any thread; does not block.
   */
  void leaveUnlessOn(HostAndPort primary) {
    Current now = current;
    if (!running || now == null || now.node().equals(primary) || !now.leaving().compareAndSet(false, true)) {
      return;
    }
    log.warn("the notification connection goes to {}, no longer the primary ({} is); moving it", now.node(), primary);
    try {
      now.connection().disconnect();
    } catch (RuntimeException e) {
      log.debug("closing the notification connection to {} failed: {}", now.node(), e.getMessage());
    }
  }

  /** Waits {@code ms} unless closed meanwhile; returns whether closed. */
  private boolean pause(long ms) {
    try {
      return stopping.await(ms, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return true;
    }
  }

  /**
   * Unsubscribes and stops the thread: sends UNSUBSCRIBE and, if Redis has not confirmed it
   * within {@value #UNSUBSCRIBE_GRACE_MS} ms (down, paused, unreachable), closes the socket.
   */
  void close() {
    running = false;
    stopping.countDown();
    JedisPubSub s = subscription;
    if (s != null && s.isSubscribed()) {
      try {
        s.unsubscribe();
      } catch (RuntimeException e) {
        log.debug("UNSUBSCRIBE on {} failed: {}", where, e.getMessage());
      }
    }
    if (join(UNSUBSCRIBE_GRACE_MS)) {
      return;
    }
    Current now = current;
    if (now != null) {
      try {
        now.connection().disconnect();
      } catch (RuntimeException e) {
        log.debug("closing the notification connection to {} failed: {}", where, e.getMessage());
      }
    }
    if (!join(STOP_WAIT_MS)) {
      // Still connecting (bounded by the connect timeout); it exits on its own, being a daemon.
      log.debug("notification thread for {} still connecting at close; it will exit by itself", where);
    }
  }

  private boolean join(long ms) {
    if (Thread.currentThread() == thread) {
      return true;
    }
    try {
      thread.join(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return !thread.isAlive();
  }

  /** Hands messages of our channel to the listener; reports the subscription. */
  private final class Forwarder extends JedisPubSub {
    private final boolean resubscribing;
    volatile boolean confirmed;
    volatile String at = where;

    Forwarder(boolean resubscribing) {
      this.resubscribing = resubscribing;
    }

    @Override
    public void onSubscribe(String subscribed, int count) {
      confirmed = true;
      firstSubscription.complete(null);
      confirmedNow();
      if (resubscribing) {
        log.info("subscribed to {} on {} again", subscribed, at);
        resubscribed.run();
      }
    }

    @Override
    public void onMessage(String from, String message) {
      if (!channel.equals(from)) {
        return;
      }
      try {
        listener.accept(message);
      } catch (RuntimeException | Error e) {
        // This thread is the only one that hears grants: a listener bug must not end it.
        log.error("the listener of channel {} threw; message ignored", channel, e);
      }
    }
  }
}

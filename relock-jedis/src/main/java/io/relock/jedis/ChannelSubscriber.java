package io.relock.jedis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Connection;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.JedisSocketFactory;

/**
 * One channel subscription kept alive on a connection and a daemon thread of its own: Jedis's
 * {@code subscribe} blocks its thread for as long as the subscription lasts. When the connection
 * drops, the thread reconnects after a backoff (doubling from {@value #FIRST_BACKOFF_MS} ms up to
 * {@value #MAX_BACKOFF_MS} ms) and subscribes again, until {@link #close()}.
 *
 * <p>Messages published while the connection is down are lost; relock-core bounds what that costs
 * with its recheck interval. A connection that dies silently (no FIN or RST reaches this host) is
 * noticed only by TCP keep-alive, as with any blocking subscriber.
 */
final class ChannelSubscriber {
  private static final Logger log = LoggerFactory.getLogger(ChannelSubscriber.class);
  static final long FIRST_BACKOFF_MS = 50;
  static final long MAX_BACKOFF_MS = 2_000;
  /** How long close() lets Redis confirm the UNSUBSCRIBE before it closes the socket instead. */
  private static final long UNSUBSCRIBE_GRACE_MS = 200;
  private static final long STOP_WAIT_MS = 2_000;

  private final JedisSocketFactory sockets;
  private final JedisClientConfig config;
  private final String channel;
  private final Consumer<String> listener;
  private final Runnable resubscribed;
  private final String where;
  private final CompletableFuture<Void> firstSubscription = new CompletableFuture<>();
  private final CountDownLatch stopping = new CountDownLatch(1);
  private final Thread thread;
  private volatile boolean running = true;
  private volatile Connection connection;
  private volatile JedisPubSub subscription;

  /**
   * @param resubscribed run (on this subscriber's thread) each time the subscription is confirmed
   *     again after the connection was lost
   * @param where the endpoint as it may appear in logs (no password)
   */
  ChannelSubscriber(JedisSocketFactory sockets, JedisClientConfig config, String channel, Consumer<String> listener,
      Runnable resubscribed, String threadName, String where) {
    this.sockets = sockets;
    this.config = config;
    this.channel = channel;
    this.listener = listener;
    this.resubscribed = resubscribed;
    this.where = where;
    this.thread = new Thread(this::run, threadName);
    this.thread.setDaemon(true);
  }

  /** Starts the thread; the future completes when Redis first confirms the subscription. */
  CompletableFuture<Void> start() {
    thread.start();
    return firstSubscription;
  }

  private void run() {
    long backoff = FIRST_BACKOFF_MS;
    boolean lost = false;
    while (running) {
      Forwarder pubsub = new Forwarder(lost);
      try (Connection c = new Connection(sockets, config)) {
        connection = c;
        subscription = pubsub;
        // close() sets running, then reads connection: one of the two sees the other's write.
        if (!running) {
          break;
        }
        pubsub.proceed(c, channel); // returns once unsubscribed, throws when the connection drops
        if (!running) {
          break;
        }
        lost = true;
        backoff = FIRST_BACKOFF_MS;
        log.warn("Redis ended the subscription to {} on {}; subscribing again", channel, where);
      } catch (RuntimeException e) {
        if (!running) {
          break;
        }
        if (!firstSubscription.isDone()) {
          // Tell the caller now rather than at its timeout; keep trying until close() all the same.
          firstSubscription.completeExceptionally(e);
        }
        if (pubsub.confirmed) {
          log.warn("notification connection to {} lost ({}); reconnecting", where, e.getMessage());
          backoff = FIRST_BACKOFF_MS;
        } else if (!lost) {
          log.warn("could not subscribe to notifications on {} ({}); retrying", where, e.getMessage());
        } else {
          log.debug("reconnecting to {} for notifications failed ({}); next try in {} ms", where, e.getMessage(), backoff);
        }
        lost = true;
      } finally {
        connection = null;
        subscription = null;
      }
      if (pause(backoff)) {
        break;
      }
      backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
    }
    if (!firstSubscription.isDone()) {
      firstSubscription.completeExceptionally(new IllegalStateException("the Jedis driver was closed"));
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
    Connection c = connection;
    if (c != null) {
      try {
        c.disconnect();
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

    Forwarder(boolean resubscribing) {
      this.resubscribing = resubscribing;
    }

    @Override
    public void onSubscribe(String subscribed, int count) {
      confirmed = true;
      firstSubscription.complete(null);
      if (resubscribing) {
        log.info("subscribed to {} on {} again", subscribed, where);
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

package io.relock.jedis;

import io.relock.spi.CommandNotSentException;
import io.relock.spi.RedisReplyException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisSocketFactory;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisMovedDataException;
import redis.clients.jedis.exceptions.JedisRedirectionException;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * Sharded pub/sub on a Redis Cluster: each channel is subscribed ({@code SSUBSCRIBE}) on the
 * primary that serves its slot, over one connection per such node, read by a daemon thread of its
 * own ({@code relock-jedis-N-shard-host:port}). Channels come and go at run time.
 *
 * <p>Why not Jedis's {@code JedisShardedPubSub}: its {@code proceed} returns as soon as the
 * connection has no channel left (after our last {@code SUNSUBSCRIBE}, or the server's when a slot
 * moves away), and its {@code ssubscribe} writes to the socket without any lock. Here each node's
 * connection is read by its thread for as long as the node has channels, and every write to it
 * ({@code SSUBSCRIBE}/{@code SUNSUBSCRIBE}, one channel each: one command's channels must share a
 * slot) happens under this object's lock, as does all bookkeeping.
 *
 * <p>Following slots: a {@code SUNSUBSCRIBE} that the server sent on its own (the slot moved away
 * from that node) or a {@code MOVED} answer to {@code SSUBSCRIBE} makes the channel subscribe on
 * the slot's new owner; so does {@link #topologyChanged()}, which the driver calls after each
 * refresh of its slot map (after a failover, a node that no longer answers cannot say so). A node
 * connection that drops is opened again with a backoff (50 ms doubling to 2 s) while the node still
 * has channels. Each time channels are subscribed again after a loss or a move, the {@code
 * resubscribed} callback runs: grants published meanwhile were lost.
 */
final class ShardedSubscriptions {
  private static final Logger log = LoggerFactory.getLogger(ShardedSubscriptions.class);
  private static final long FIRST_BACKOFF_MS = ChannelSubscriber.FIRST_BACKOFF_MS;
  private static final long MAX_BACKOFF_MS = ChannelSubscriber.MAX_BACKOFF_MS;
  private static final long STOP_WAIT_MS = 2_000;

  private final JedisClientConfig config;
  /** The primary serving a slot as the driver's slot map has it, or null. */
  private final IntFunction<HostAndPort> slotOwner;
  /** Asks the driver to read the cluster's slot map again soon (and then call topologyChanged). */
  private final Runnable refreshSoon;
  private final Runnable resubscribed;
  private final String threadPrefix;

  /** Channels wanted, with their listeners. Read without the lock when messages arrive. */
  private final Map<String, Consumer<String>> listeners = new ConcurrentHashMap<>();
  /** Guarded by this: where each wanted channel is subscribed or being subscribed. */
  private final Map<String, Node> assigned = new HashMap<>();
  /** Guarded by this: the node subscribers, by node. */
  private final Map<HostAndPort, Node> nodes = new HashMap<>();
  /** Guarded by this: MOVED answers followed in a row per channel, to stop following in circles. */
  private final Map<String, Integer> redirects = new HashMap<>();
  private static final int MAX_REDIRECTS = 3;
  private boolean closed;

  ShardedSubscriptions(JedisClientConfig config, IntFunction<HostAndPort> slotOwner, Runnable refreshSoon,
      Runnable resubscribed, String threadPrefix) {
    this.config = config;
    this.slotOwner = slotOwner;
    this.refreshSoon = refreshSoon;
    this.resubscribed = resubscribed;
    this.threadPrefix = threadPrefix;
  }

  /** SSUBSCRIBE on the slot's primary; the future completes once Redis confirmed it. */
  CompletableFuture<Void> subscribe(String channel, Consumer<String> listener) {
    Objects.requireNonNull(listener, "listener");
    CompletableFuture<Void> confirmed = new CompletableFuture<>();
    synchronized (this) {
      if (closed) {
        return CompletableFuture.failedFuture(new IllegalStateException("the Jedis cluster driver is closed"));
      }
      listeners.put(channel, listener);
      Node now = assigned.get(channel);
      if (now != null) {
        now.awaitConfirmation(channel, confirmed);
        return confirmed;
      }
      HostAndPort owner = slotOwner.apply(JedisClusterCRC16.getSlot(channel));
      if (owner == null) {
        refreshSoon.run();
        confirmed.completeExceptionally(new CommandNotSentException("no primary known for the slot of " + channel,
            null));
        return confirmed; // placed by topologyChanged once the slot map knows one
      }
      place(channel, owner, List.of(confirmed), false);
    }
    return confirmed;
  }

  /** SUNSUBSCRIBE; the listener hears nothing more. Completes at once (the reply is not awaited). */
  CompletableFuture<Void> unsubscribe(String channel) {
    List<CompletableFuture<Void>> waiting = List.of();
    synchronized (this) {
      listeners.remove(channel);
      redirects.remove(channel);
      Node node = assigned.remove(channel);
      if (node != null) {
        waiting = node.drop(channel);
      }
    }
    // Outside the lock, here and below: core's callbacks run in these completions.
    failAll(waiting, new IllegalStateException("unsubscribed from " + channel + " before Redis confirmed"));
    return CompletableFuture.completedFuture(null);
  }

  /**
   * After the slot map was read again: each wanted channel whose slot is now served by another
   * node than the one it is subscribed on moves there (and any left unplaced is placed).
   */
  synchronized void topologyChanged() {
    if (closed) {
      return;
    }
    Set<Node> left = new HashSet<>();
    for (String channel : new ArrayList<>(listeners.keySet())) {
      HostAndPort owner = slotOwner.apply(JedisClusterCRC16.getSlot(channel));
      Node now = assigned.get(channel);
      if (owner != null && (now == null || !now.node.equals(owner))) {
        List<CompletableFuture<Void>> waiting = now == null ? List.of() : now.drop(channel);
        if (now != null) {
          left.add(now);
        }
        log.debug("sharded channel {} moves from {} to {}", channel, now == null ? "nowhere" : now.node, owner);
        redirects.remove(channel);
        place(channel, owner, waiting, true);
      }
    }
    for (Node n : left) {
      if (n.channels.isEmpty()) {
        n.stop(); // its channels' slots are served elsewhere now: the node failed over or gave them away
      }
    }
  }

  /** Guarded by this. Subscribes {@code channel} on {@code owner}, starting its subscriber if need be. */
  private void place(String channel, HostAndPort owner, List<CompletableFuture<Void>> waiting, boolean announce) {
    Node node = nodes.get(owner);
    if (node == null) {
      node = new Node(owner);
      nodes.put(owner, node);
      node.start();
    }
    assigned.put(channel, node);
    node.add(channel, waiting, announce);
  }

  private static void failAll(List<CompletableFuture<Void>> futures, Throwable failure) {
    if (futures != null) {
      futures.forEach(f -> f.completeExceptionally(failure));
    }
  }

  /** Nodes with a subscriber, for tests and diagnostics. */
  synchronized Set<HostAndPort> subscribedNodes() {
    return new HashSet<>(nodes.keySet());
  }

  /** Closes every node connection (the server drops their subscriptions with them). */
  void close() {
    List<Node> stopping;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      stopping = new ArrayList<>(nodes.values());
      nodes.clear();
      assigned.clear();
      listeners.clear();
      for (Node n : stopping) {
        n.stop();
      }
    }
    for (Node n : stopping) {
      n.join();
    }
  }

  /** A connection that can flush the commands it sends, for writes from other threads than its reader. */
  private static final class PubSubConnection extends Connection {
    PubSubConnection(JedisSocketFactory sockets, JedisClientConfig config) {
      super(sockets, config);
    }

    void send(CommandArguments command) {
      sendCommand(command);
      flush();
    }
  }

  /** One node's subscriber: its connection, its thread, its channels. Guarded by the outer lock. */
  private final class Node {
    final HostAndPort node;
    private final Thread thread;
    private final CountDownLatch stopping = new CountDownLatch(1);
    private boolean running = true;
    /** Channels to be subscribed here. */
    private final Set<String> channels = new LinkedHashSet<>();
    /** Futures of subscribe calls not yet confirmed, by channel. */
    private final Map<String, List<CompletableFuture<Void>>> unconfirmed = new HashMap<>();
    /** Channels Redis confirmed on the current connection. */
    private final Set<String> confirmedHere = new HashSet<>();
    /** Channels whose next confirmation runs the resubscribed callback (they moved here). */
    private final Set<String> announce = new HashSet<>();
    /** Our SSUBSCRIBEs awaiting their answer, in order: an error answer is the oldest one's. */
    private final Deque<String> sentSubscribes = new ArrayDeque<>();
    /** Our SUNSUBSCRIBEs awaiting their answer, per channel: the others are the server's. */
    private final Map<String, Integer> sentUnsubscribes = new HashMap<>();
    /** The open connection, once it may take commands; null while connecting or lost. */
    private PubSubConnection connection;
    /** Whether the next confirmation follows a lost connection (and runs the callback). */
    private boolean reconnecting;

    Node(HostAndPort node) {
      this.node = node;
      this.thread = new Thread(this::run, threadPrefix + "-shard-" + node);
      this.thread.setDaemon(true);
    }

    void start() {
      thread.start();
    }

    void add(String channel, List<CompletableFuture<Void>> waiting, boolean announceIt) {
      channels.add(channel);
      if (!waiting.isEmpty()) {
        unconfirmed.computeIfAbsent(channel, c -> new ArrayList<>()).addAll(waiting);
      }
      if (announceIt) {
        announce.add(channel);
      }
      if (connection != null) {
        sendSubscribe(channel);
      }
    }

    void awaitConfirmation(String channel, CompletableFuture<Void> confirmed) {
      if (confirmedHere.contains(channel)) {
        confirmed.complete(null); // already subscribed here
      } else {
        unconfirmed.computeIfAbsent(channel, c -> new ArrayList<>()).add(confirmed);
      }
    }

    /** Stops subscribing {@code channel} here; returns the futures still waiting for its confirmation. */
    List<CompletableFuture<Void>> drop(String channel) {
      channels.remove(channel);
      confirmedHere.remove(channel);
      announce.remove(channel);
      List<CompletableFuture<Void>> waiting = unconfirmed.remove(channel);
      if (connection != null) {
        sendUnsubscribe(channel);
      }
      return waiting == null ? List.of() : waiting;
    }

    private void sendSubscribe(String channel) {
      try {
        connection.send(new CommandArguments(Protocol.Command.SSUBSCRIBE).add(channel));
        sentSubscribes.add(channel);
      } catch (RuntimeException e) {
        // The reader thread meets the same failure and reconnects; the channel is subscribed then.
        log.debug("SSUBSCRIBE {} on {} failed: {}", channel, node, e.getMessage());
        connection.disconnect();
      }
    }

    private void sendUnsubscribe(String channel) {
      try {
        connection.send(new CommandArguments(Protocol.Command.SUNSUBSCRIBE).add(channel));
        sentUnsubscribes.merge(channel, 1, Integer::sum);
      } catch (RuntimeException e) {
        log.debug("SUNSUBSCRIBE {} on {} failed: {}", channel, node, e.getMessage());
        connection.disconnect();
      }
    }

    void stop() {
      running = false;
      stopping.countDown();
      nodes.remove(node, this);
      if (connection != null) {
        connection.disconnect();
      }
    }

    void join() {
      try {
        thread.join(STOP_WAIT_MS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    private void run() {
      long backoff = FIRST_BACKOFF_MS;
      while (true) {
        PubSubConnection c = null;
        try {
          c = new PubSubConnection(new KeepAliveSocketFactory(node, config), config);
          c.setTimeoutInfinite();
          synchronized (ShardedSubscriptions.this) {
            if (!running || channels.isEmpty()) {
              stop(); // nothing to subscribe here (any more): the node is not needed
              c.close();
              return;
            }
            connection = c;
            confirmedHere.clear();
            sentSubscribes.clear();
            sentUnsubscribes.clear();
            for (String channel : channels) {
              sendSubscribe(channel);
            }
          }
          while (true) {
            Object reply;
            try {
              reply = c.getUnflushedObject();
            } catch (JedisDataException e) {
              refused(e);
              continue;
            }
            backoff = FIRST_BACKOFF_MS;
            handle(reply);
          }
        } catch (RuntimeException e) {
          List<CompletableFuture<Void>> failed = new ArrayList<>();
          synchronized (ShardedSubscriptions.this) {
            connection = null;
            confirmedHere.clear();
            if (!running) {
              return;
            }
            if (channels.isEmpty()) {
              stop(); // lost, and nothing to subscribe here: do not reconnect
              return;
            }
            reconnecting = true;
            // Tell callers now rather than at their timeouts; the subscriptions are retried all the same.
            unconfirmed.values().forEach(failed::addAll);
            unconfirmed.clear();
          }
          for (CompletableFuture<Void> f : failed) {
            f.completeExceptionally(new CommandNotSentException("could not subscribe on " + node + ": "
                + JedisDriver.describe(e), e));
          }
          log.warn("sharded notification connection to {} lost ({}); reconnecting", node, JedisDriver.describe(e));
          refreshSoon.run(); // the node may have failed over: the slot map will tell
        } finally {
          if (c != null) {
            c.close();
          }
        }
        try {
          if (stopping.await(backoff, TimeUnit.MILLISECONDS)) {
            return;
          }
        } catch (InterruptedException e) {
          return;
        }
        backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
      }
    }

    /** A push or reply read from the connection. */
    private void handle(Object reply) {
      if (!(reply instanceof List<?> parts) || parts.size() < 3 || !(parts.get(0) instanceof byte[] kindBytes)
          || !(parts.get(1) instanceof byte[] channelBytes)) {
        log.debug("unexpected reply on the sharded pub/sub connection to {}: {}", node, reply);
        return;
      }
      String kind = new String(kindBytes, StandardCharsets.UTF_8);
      String channel = new String(channelBytes, StandardCharsets.UTF_8);
      switch (kind) {
        case "smessage" -> {
          Consumer<String> listener = listeners.get(channel);
          if (listener != null && parts.get(2) instanceof byte[] message) {
            try {
              listener.accept(new String(message, StandardCharsets.UTF_8));
            } catch (RuntimeException | Error e) {
              log.error("the listener of channel {} threw; message ignored", channel, e);
            }
          }
        }
        case "ssubscribe" -> confirmed(channel);
        case "sunsubscribe" -> unsubscribed(channel);
        default -> log.debug("unexpected {} on the sharded pub/sub connection to {}", kind, node);
      }
    }

    private void confirmed(String channel) {
      List<CompletableFuture<Void>> waiting;
      boolean announceIt;
      synchronized (ShardedSubscriptions.this) {
        sentSubscribes.removeFirstOccurrence(channel);
        if (!channels.contains(channel)) {
          if (!sentUnsubscribes.containsKey(channel) && connection != null) {
            sendUnsubscribe(channel); // dropped here while the SSUBSCRIBE was on its way
          }
          return;
        }
        redirects.remove(channel);
        confirmedHere.add(channel);
        waiting = unconfirmed.remove(channel);
        announceIt = announce.remove(channel) | reconnecting;
        reconnecting = false;
      }
      if (waiting != null) {
        waiting.forEach(f -> f.complete(null));
      }
      if (announceIt) {
        log.info("subscribed to {} on {} again", channel, node);
        resubscribed.run();
      }
    }

    private void unsubscribed(String channel) {
      List<CompletableFuture<Void>> waiting;
      synchronized (ShardedSubscriptions.this) {
        Integer ours = sentUnsubscribes.get(channel);
        if (ours != null) {
          if (ours > 1) {
            sentUnsubscribes.put(channel, ours - 1);
          } else {
            sentUnsubscribes.remove(channel);
          }
          return;
        }
        if (!channels.remove(channel)) {
          return;
        }
        confirmedHere.remove(channel);
        // The server's own: the channel's slot has left this node. Subscribe wherever it went.
        log.info("{} ended the subscription to {} (its slot moved); following the slot", node, channel);
        assigned.remove(channel, this);
        waiting = unconfirmed.remove(channel);
        announce.remove(channel);
      }
      failAll(waiting, new CommandNotSentException("the slot of " + channel + " moved away from " + node, null));
      refreshSoon.run(); // then topologyChanged places it on the slot's new owner
    }

    /** An error answer: to the oldest SSUBSCRIBE not yet answered. */
    private void refused(JedisDataException e) {
      List<CompletableFuture<Void>> failed = null;
      Throwable failure = null;
      synchronized (ShardedSubscriptions.this) {
        String channel = sentSubscribes.poll();
        if (channel == null || !channels.remove(channel)) {
          log.debug("error reply on the sharded pub/sub connection to {}: {}", node, e.getMessage());
          return;
        }
        confirmedHere.remove(channel);
        assigned.remove(channel, this);
        List<CompletableFuture<Void>> waiting = unconfirmed.remove(channel);
        boolean announceIt = announce.remove(channel);
        if (e instanceof JedisRedirectionException redirect && listeners.containsKey(channel) && !closed) {
          refreshSoon.run(); // then topologyChanged places the channel, if not placed here
          if (redirect instanceof JedisMovedDataException
              && redirects.merge(channel, 1, Integer::sum) <= MAX_REDIRECTS) {
            log.debug("SSUBSCRIBE {} on {} redirected to {}", channel, node, redirect.getTargetNode());
            place(channel, redirect.getTargetNode(), waiting == null ? List.of() : waiting, announceIt);
            return;
          }
          // ASK (the slot is being migrated; the importing node would answer MOVED back here), or
          // nodes sending it round in circles: wait for the slot map to settle.
          log.debug("SSUBSCRIBE {} on {} answered {}; waiting for the slot map", channel, node, e.getMessage());
          failed = waiting;
          failure = new CommandNotSentException(e.getMessage(), e);
        } else {
          log.warn("SSUBSCRIBE {} refused by {}: {}", channel, node, e.getMessage());
          failed = waiting;
          failure = new RedisReplyException(e.getMessage(), e);
        }
      }
      failAll(failed, failure);
    }
  }
}

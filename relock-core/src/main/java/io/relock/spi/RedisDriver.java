package io.relock.spi;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * What relock needs from a Redis client: run a loaded Lua script, load one, receive messages on a
 * channel, close. Everything else (NOSCRIPT fallback, timeouts, error mapping, retries) lives in
 * relock-core, once. A driver is thread-safe and non-blocking; its futures may complete on I/O
 * threads, and core never blocks in their callbacks.
 *
 * <p>Ordering: a driver may run calls in any order (a connection pool does). Core never has two
 * calls for the same owner in flight at once, so the order of one owner's calls never depends on
 * the driver; a call that timed out on the client is followed by a withdrawal only after that, and
 * a connection that dropped takes its unsent commands with it.
 *
 * <p>Failures: a Redis error reply completes the future with {@link RedisReplyException} carrying
 * the reply text (for example {@code NOSCRIPT ...} or {@code WRONGTYPE ...}); a command the driver
 * never wrote (no connection to be had, rejected while reconnecting) fails with {@link
 * CommandNotSentException}; any other exception means the command may or may not have run
 * (connection lost, timed out), and the engine plans for both.
 */
public interface RedisDriver extends AutoCloseable {

  /**
   * {@code EVALSHA sha1 numkeys keys... args...}. Every relock script returns an array; the driver
   * converts it to a list whose elements are {@link Long} for integers, {@link String} (UTF-8) for
   * bulk and status strings, {@code null} for nil, and nested {@link List}s for arrays.
   *
   * @param sha1 the SHA1 of the script, in hex, as {@link #scriptLoad} completes with
   * @param keys the script's {@code KEYS}, in order; may be empty
   * @param args the script's {@code ARGV}, in order; may be empty
   * @return a future of the converted reply; it fails as the class comment describes (with {@link
   *     RedisReplyException} for {@code NOSCRIPT}, for example)
   */
  CompletableFuture<List<Object>> evalSha(String sha1, List<String> keys, List<String> args);

  /**
   * {@code EVALSHA} followed, on the same connection, by {@code WAIT replicas timeout}: completes
   * with the script's reply and the number of replicas that acknowledged every write made on that
   * connection up to the script's. The {@code WAIT} blocks its connection on the server until it
   * answers, so a driver runs these calls on connections of their own, never on the one that
   * carries renewals and releases. Only called if {@link #supportsReplicaAcks()} says so.
   *
   * @param sha1 the SHA1 of the script, as for {@link #evalSha}
   * @param keys the script's {@code KEYS}, as for {@link #evalSha}
   * @param args the script's {@code ARGV}, as for {@link #evalSha}
   * @param replicas how many replicas must acknowledge; WAIT returns as soon as they have. May be
   *     0 ({@code WAIT 0} answers at once): core sends a withdrawal that way, so that it runs after
   *     every earlier call of its acquisition, which went on the same connection
   * @param timeout how long WAIT may block on the server
   * @return a future of the script's reply and the replicas' count; the default fails it with
   *     {@link UnsupportedOperationException}
   */
  default CompletableFuture<ReplicatedReply> evalShaReplicated(String sha1, List<String> keys, List<String> args,
      int replicas, java.time.Duration timeout) {
    return CompletableFuture.failedFuture(new UnsupportedOperationException(
        getClass().getSimpleName() + " does not support replica acknowledgements"));
  }

  /**
   * Whether {@link #evalShaReplicated} is implemented. Checked when a client is built.
   *
   * @return true if this driver implements {@link #evalShaReplicated}; false by default
   */
  default boolean supportsReplicaAcks() {
    return false;
  }

  /**
   * {@code EVALSHA sha1 0 args...} once on every server that holds a share of the keyspace, for a
   * script that must see every key, such as one that pages through {@code SCAN}: on a Redis
   * Cluster, each primary that serves slots now; elsewhere the one server {@link #evalSha} reaches
   * (the default). Each server is named by a string the driver keeps for it while it serves, such
   * as its {@code host:port} ({@code ""} for the one server); {@code argsFor} gives the arguments
   * for the server named, or null to leave that server out. Replies as for {@link #evalSha}. A
   * failure on any server fails the whole call with that failure (NOSCRIPT included: core then
   * loads the script and calls again).
   *
   * @param sha1 the SHA1 of the script, as for {@link #evalSha}
   * @param argsFor given a server's name, the script's {@code ARGV} for that server, or null to
   *     leave it out
   * @return each server's reply, by its name
   */
  default CompletableFuture<Map<String, List<Object>>> evalShaOnEveryPrimary(String sha1,
      Function<String, List<String>> argsFor) {
    List<String> args = argsFor.apply("");
    if (args == null) {
      return CompletableFuture.completedFuture(Map.of());
    }
    return evalSha(sha1, List.of(), args).thenApply(reply -> Map.of("", reply));
  }

  /**
   * {@code SCRIPT LOAD script}; completes with the SHA1 Redis returns.
   *
   * @param script the script's Lua source
   * @return a future of the script's SHA1, in hex, as Redis returned it
   */
  CompletableFuture<String> scriptLoad(String script);

  /**
   * Subscribes to {@code channel} on the driver's pub/sub connection and delivers each message's
   * payload to {@code listener}. The future completes once Redis has confirmed the subscription.
   * After a reconnect the driver subscribes again on its own. One channel per client: called once,
   * and again, with the same channel, only while no call's future has completed successfully (the
   * last one failed or timed out, yet its subscription may still take hold). Such a call makes
   * sure of the subscription without subscribing twice, and from then on the latest call's
   * listener receives each message, once. A future that fails with {@link RedisReplyException}
   * means Redis refused the subscription (an ACL's {@code NOPERM}, say).
   *
   * @param channel the channel to subscribe to
   * @param listener receives the payload of each message on the channel
   * @return a future that completes once Redis has confirmed the subscription
   */
  CompletableFuture<Void> subscribe(String channel, Consumer<String> listener);

  /**
   * Whether keys of different hash slots may live on different servers (a Redis Cluster): core
   * then keeps every call to the keys of one slot, and batches renewals per slot.
   *
   * @return true if this driver talks to a Redis Cluster; false by default
   */
  default boolean isClustered() {
    return false;
  }

  /**
   * Asks the driver to read the cluster's topology again soon: a call failed for a passing reason
   * and core is about to try it again (after a failover, a slot's new primary may not be in the
   * driver's view yet, and no reconnect comes to tell). Must not block; a driver may bound how
   * often it reads. The default does nothing, which suits a driver without a topology of its own.
   */
  default void refreshTopology() {}

  /**
   * Whether the driver offers sharded pub/sub ({@code SSUBSCRIBE}, Redis 7+ Cluster): core then
   * publishes each grant with {@code SPUBLISH} on a channel of the lock's own slot, heard only
   * by the node of that slot and the clients subscribed there, instead of on the client's channel
   * (which a Cluster broadcasts to every node).
   *
   * @return true if {@link #subscribeSharded} and {@link #unsubscribeSharded} work; false by
   *     default
   */
  default boolean hasShardedPubSub() {
    return false;
  }

  /**
   * {@code SSUBSCRIBE channel} on the node that serves the channel's slot, following the slot
   * when it moves; each message's payload goes to {@code listener}. Several channels may be
   * subscribed at once, each with its own listener. The future completes once Redis confirmed.
   * Only called if {@link #hasShardedPubSub()}.
   *
   * @param channel the sharded channel to subscribe to
   * @param listener receives the payload of each message on the channel
   * @return a future that completes once Redis has confirmed the subscription; the default fails
   *     it with {@link UnsupportedOperationException}
   */
  default CompletableFuture<Void> subscribeSharded(String channel, Consumer<String> listener) {
    return CompletableFuture.failedFuture(new UnsupportedOperationException("no sharded pub/sub"));
  }

  /**
   * {@code SUNSUBSCRIBE channel}; its listener hears nothing more.
   *
   * @param channel a channel given to {@link #subscribeSharded}
   * @return a future that completes when the driver is done unsubscribing; the default fails it
   *     with {@link UnsupportedOperationException}
   */
  default CompletableFuture<Void> unsubscribeSharded(String channel) {
    return CompletableFuture.failedFuture(new UnsupportedOperationException("no sharded pub/sub"));
  }

  /**
   * Registers {@code listener}, to be run each time the driver has re-established a connection to
   * Redis after losing it (for the notification connection: once it is subscribed again). Core
   * then re-checks its waiters and retries what failed at once, instead of at their next timers:
   * notifications published while the connection was down are lost. Called once, before any
   * command; the listener must not block. The default never calls it; core's timers then bound
   * the delay.
   *
   * @param listener what to run after each reconnect
   */
  default void onReconnect(Runnable listener) {}

  /**
   * Whether every future this driver returns fails on its own once the command timeout it was
   * created with has passed (as Lettuce's timeout options do). If not, core bounds each call
   * itself, which costs a timer per call.
   *
   * @return true if this driver fails its own futures at the command timeout; false by default
   */
  default boolean timesOutCommands() {
    return false;
  }

  /** Closes both connections. Idempotent. */
  @Override
  void close();
}

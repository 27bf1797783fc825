package io.relock;

import java.time.Duration;

/**
 * Hears what a {@link Relock} client does, for metrics, tracing and logs. Register one with {@link
 * Relock#addListener}; every method does nothing by default, so implement only what you need.
 *
 * <p>Methods are called on relock's own threads and on the Redis client's I/O threads, often
 * while relock is in the middle of an acquisition or release: they must return quickly and must
 * never block or call back into relock. A listener that throws is logged and otherwise ignored;
 * it never changes what the lock does.
 *
 * <p>Lock names are whatever the application passes to {@link Relock#lock(String)}, so there may
 * be arbitrarily many of them: do not use them as metric tags unless you bound them yourself.
 */
public interface RelockListener {

  /**
   * An acquisition succeeded (a re-entry of a thread's {@code lock()} included).
   *
   * @param lockName the name of the lock acquired
   * @param waited from the call to the moment relock knew it held the lock
   */
  default void acquired(String lockName, Duration waited) {}

  /**
   * An acquisition ended without the lock: its wait ran out ({@link LockTimeoutException}), its
   * caller was interrupted or cancelled it, the client closed, or Redis failed ({@link
   * RelockException}).
   *
   * @param lockName the name of the lock that was not acquired
   * @param waited from the call until relock gave up
   * @param error why the acquisition ended without the lock
   */
  default void acquireFailed(String lockName, Duration waited, Throwable error) {}

  /**
   * A hold ends: its lease is being closed or its last {@code unlock()} called, or the client is
   * closing. Reported when the release starts, before Redis confirms it.
   *
   * @param lockName the name of the lock released
   * @param held from the acquisition to the release
   */
  default void released(String lockName, Duration held) {}

  /**
   * A lease was found lost (expired, taken, or not renewed in time); once per lease.
   *
   * @param lockName the name of the lock whose lease was lost
   * @param reason how it was lost, in words, for logs
   */
  default void leaseLost(String lockName, String reason) {}

  /**
   * The watchdog renewed {@code leases} leases with one call to Redis.
   *
   * @param leases how many leases that call renewed
   */
  default void renewed(int leases) {}

  /**
   * A watchdog call to renew {@code leases} leases failed. After a failure that may pass (Redis
   * unreachable, slow, failing over) they are tried again after a backoff, 25 ms doubling to a
   * second, until renewed or their leases end, each try a call of its own; after an error reply,
   * at the next tick.
   *
   * @param leases how many leases the failed call was to renew
   * @param error what the call failed with
   */
  default void renewalFailed(int leases, Throwable error) {}

  /**
   * One call to Redis ended: a script named {@code script} (such as {@code acquire.lua}), answered
   * after {@code took}, or failed with {@code error} (null on success).
   *
   * @param script the file name of the script called
   * @param took from the start of the call to its end, a reload of the script after {@code
   *     NOSCRIPT} included
   * @param error what the call failed with, a {@link RelockException}; null on success
   */
  default void redisCall(String script, Duration took, Throwable error) {}
}

package io.relock;

import java.time.Duration;

/**
 * One hold on a {@link DistributedLock}, obtained from {@link DistributedLock#acquire(Duration)}
 * and friends, released by {@link #close()}. Use it with try-with-resources:
 *
 * <pre>{@code
 * // Waits up to 5 s for the lock; the lease is the client's default, renewed until closed.
 * try (LockLease lease = relock.lock("orders:42").acquire(Duration.ofSeconds(5))) {
 *   store.write(order, lease.fencingToken());
 * }
 * }</pre>
 *
 * <h2>Ownership</h2>
 * A lease belongs to the lease object, not to a thread: any thread may {@link #close()} it, so it
 * can be handed to an async callback or a virtual thread. Leases are not re-entrant: each
 * acquisition is a separate owner, and a second {@code acquire} on the same lock waits for this
 * lease to be closed, even on the same thread (see {@link DistributedLock} for the thread-owned
 * {@code lock()}/{@code unlock()} style, which is re-entrant).
 *
 * <h2>Expiry</h2>
 * Redis keeps the lock for the lease duration. A lease acquired without an explicit duration is
 * renewed by the client's watchdog every third of the default lease for as long as it is open; a
 * lease with an explicit duration is never renewed and ends when that duration runs out. When a
 * lease is lost (it expired, a renewal found the lock gone or taken, or the renewal deadline passed
 * while Redis was unreachable or the JVM was paused), {@link #isValid()} turns false, listeners
 * given to {@link #onLost(Runnable)} run once, and {@link #close()} throws {@link
 * LockLostException}.
 *
 * <h2>Memory effects</h2>
 * Actions in a thread before {@code close()} happen-before the actions that follow a later
 * successful acquisition of the same lock by any thread of this JVM. Across processes, Redis orders
 * the release before the next acquisition; the caller's own shared resource must provide its own
 * visibility (and should check the fencing token).
 */
public interface LockLease extends AutoCloseable {

  /**
   * The name of the lock this lease holds.
   *
   * @return the lock's name, as {@link DistributedLock#name()} gives it
   */
  String lockName();

  /**
   * The fencing token of this acquisition: strictly greater than every token issued before for the
   * same lock name, also across Redis restarts without persistence (tokens follow the Redis server
   * clock in microseconds). The one exception is a read lock of a {@link DistributedReadWriteLock}
   * granted while other readers hold it: it joins their read epoch and carries their token. Pass it
   * with every write to the protected resource (and with the read of a read-modify-write) and let
   * the resource refuse a token lower than the highest it has accepted, and accept an equal one.
   *
   * @return the token issued to this acquisition, the same for the life of the lease (for a
   *     multi-lock, the largest of its locks' tokens; see {@link #fencingTokens()})
   */
  long fencingToken();

  /**
   * The fencing token of each lock this lease holds, by name: one entry, unless the lease holds
   * several locks at once ({@link Relock#multiLock(String...)}).
   *
   * @return an unmodifiable map from each lock name to its fencing token
   */
  default java.util.Map<String, Long> fencingTokens() {
    return java.util.Map.of(lockName(), fencingToken());
  }

  /**
   * Whether this lease is still held: not closed, not reported lost, and the local monotonic clock
   * is before the time the acquisition (or last renewal) was sent plus the lease, minus the clock
   * drift allowance. Never contacts Redis.
   *
   * @return true while the lease is held by the local clock; false once it is closed or lost
   */
  boolean isValid();

  /**
   * How long this lease is still valid by the local monotonic clock; {@link Duration#ZERO} once it
   * is lost or closed. For a watchdog-renewed lease this is the time until the next renewal is due
   * to have happened, not the time the caller may keep it.
   *
   * @return the time left, never negative
   */
  Duration remaining();

  /**
   * Registers a listener that runs once, on a relock thread, when this lease is lost: when a
   * renewal finds the lock gone or taken, when its deadline passes (noticed by relock's own check
   * or by {@link #isValid()}), or, at the latest, on the closing thread when {@link #close()} finds
   * the lease lost, before it throws. If the lease is already lost, the listener runs promptly. A
   * listener that throws is logged and does not affect the lease or other listeners. Closing a
   * lease that was not lost never runs the listeners.
   *
   * @param listener what to run, once, when the lease is lost
   * @throws NullPointerException if {@code listener} is null
   */
  void onLost(Runnable listener);

  /**
   * Sets how long this lease has left: Redis keeps the lock {@code lease} from now, sooner or later
   * than it would have, if this lease still holds it (Redis checks the owner, so another owner's
   * hold is never touched). One Redis round trip; on {@link Relock.Builder#redlock Redlock}, one to
   * every master, and a majority must confirm. Works for every kind of lock (an exclusive lock, a
   * semaphore's permit, either lane of a read-write lock, a multi-lock: each of its locks) on every
   * topology.
   *
   * <p>The lease then ends {@code lease} from now, unless extended again; {@link #isValid()} and
   * {@link #remaining()} follow. A lease renewed by the watchdog (acquired without an explicit
   * lease) is taken off the watchdog for good: from then on it is a fixed lease, as if acquired
   * with an explicit one, that ends {@code lease} from now unless extended again. (The watchdog
   * would otherwise set the default lease again at its next round, undoing a longer extension, and
   * a shorter one could run out before that round.) If the call fails with {@link
   * RelockException}, a watchdog-renewed lease stays on the watchdog.
   *
   * <p>Until Redis answers, the lease counts as ending at the sooner of its end before and {@code
   * lease} from now; if Redis cannot be reached, it stays so (Redis may or may not have run it).
   * Calls on one lease take turns; a call on a lease handed over from another holder a moment ago
   * may first wait (a fraction of a second) until this client has confirmed that hand-over.
   *
   * @param lease how long Redis is to keep the lock from now; at least 1 ms (on Redlock, at most
   *     the {@link Relock.Builder#redlockRestartDelay restart delay})
   * @throws LockLostException if the lease has ended (its time ran out, by the local clock
   *     included), was lost, or Redis found the lock gone or held by another owner
   * @throws IllegalStateException if the lease was closed
   * @throws IllegalArgumentException if {@code lease} is under 1 ms, or longer than the Redlock
   *     restart delay on Redlock
   * @throws RelockException if Redis could not be reached within the command timeout
   * @throws UnsupportedOperationException if this lease is not one of relock's own
   */
  default void extend(Duration lease) {
    throw new UnsupportedOperationException(getClass().getName() + " cannot extend a lease");
  }

  /**
   * Closes this lease but leaves the lock held in Redis for {@code keep} more, after which Redis
   * lets it go by itself (the lock "held at least" this long after its work is done). Redis checks
   * the owner and sets the lock's time to live to {@code keep}, sooner or later than its end
   * before; another owner's hold is never touched. One Redis round trip (on Redlock, one to every
   * master, and a majority must confirm). Works on every kind of lock and every topology, as
   * {@link #extend} does.
   *
   * <p>From then on the lease counts as closed to this client: the watchdog stops renewing it,
   * {@link #isValid()} is false, {@link #close()} and {@code closeAfter} do nothing, its {@link
   * #onLost} listeners never run, and {@link Relock#close()} leaves the lock to its expiry.
   * Nothing hands the lock on when it expires: waiters, in this client and in others, find it free
   * at their next look, which comes when the lock's time to live as they last read it runs out or
   * after the {@link Relock.Builder#recheckInterval recheck interval} (default 1 s), whichever is
   * sooner.
   *
   * <p>If Redis could not be reached, the lease is closed all the same and the lock ends by itself,
   * at {@code keep} from now or at the end of its lease before, as Redis ran the call or not.
   *
   * @param keep how long Redis is to keep the lock from now; zero or negative is {@link #close()}
   * @throws LockLostException if the lease had been lost (it ended, was taken, or Redis found it
   *     gone); another owner's lock is left untouched
   * @throws NullPointerException if {@code keep} is null
   * @throws IllegalArgumentException on Redlock, if {@code keep} is longer than the {@link
   *     Relock.Builder#redlockRestartDelay restart delay}
   * @throws RelockException if Redis could not be reached within the command timeout
   * @throws UnsupportedOperationException if this lease is not one of relock's own
   */
  default void closeAfter(Duration keep) {
    throw new UnsupportedOperationException(getClass().getName() + " cannot close a lease after a delay");
  }

  /**
   * Releases this hold, from any thread. Blocks for one Redis round trip; if other processes wait
   * for the lock, the same call hands it to the longest waiter. Closing an already closed lease
   * does nothing. The lease is closed here whatever Redis answers.
   *
   * @throws LockLostException if the lease had been lost, which includes a lease closed past its
   *     local deadline (when {@link #isValid()} says false), whatever Redis then holds under its
   *     owner; another owner's lock is left untouched
   * @throws RelockException if Redis could not be reached within the command timeout; the release
   *     goes on in the background until the lease would have ended anyway
   */
  @Override
  void close();
}

package io.relock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * A named lock kept in Redis, shared by every process that uses the same name and key prefix.
 * Obtain one with {@link Relock#lock(String)}; instances are cheap, thread-safe and may be shared.
 *
 * <h2>Two styles</h2>
 * <ul>
 *   <li><b>Leases</b> ({@link #acquire(Duration)}, {@link #tryAcquire(Duration)}, {@link
 *       #acquireAsync(Duration)}): each call returns a {@link LockLease} that any thread may close.
 *       Leases are <em>not</em> re-entrant: every acquisition is its own owner, so a second
 *       acquisition waits for the first lease to close even on the same thread. Each lease carries
 *       a fencing token.
 *   <li><b>{@link Lock}</b> ({@link #lock()}, {@link #tryLock()}, {@link #unlock()}, ...): owned
 *       by the calling thread (platform or virtual) and re-entrant for that thread; the client
 *       counts the thread's holds (Redis keeps a copy for operators) and the last {@link #unlock()}
 *       releases them all. Only the owning thread may {@link #unlock()}.
 * </ul>
 * Both styles contend fairly with each other and with other processes: waiters are served in
 * arrival order, and a waiter is handed the lock directly by the release of the previous holder.
 * Mixing the styles on one thread waits for itself: a thread that holds the lock through {@code
 * lock()} and then calls {@code acquire} waits until its wait runs out, and a thread that holds a
 * lease and then calls {@code lock()} waits until some other thread closes that lease (relock
 * cannot tell that none will: leases belong to no thread).
 *
 * <h2>Waiting</h2>
 * Waiting never polls Redis. Within one {@link Relock} client, threads that wait for the same lock
 * queue locally and only the first of them is registered in Redis; the release of the current
 * holder grants the lock to the first registered waiter and notifies it through pub/sub. A waiter
 * re-checks on its own when the holder's lease runs out or after a fallback interval, so a lost
 * notification costs a bounded delay. A timed wait returns or throws within its wait plus one Redis
 * round trip.
 *
 * <h2>Leases and expiry</h2>
 * Without an explicit lease, a hold gets the client's default lease and the watchdog renews it
 * every third of that lease until release. {@code lock()} style holds are always renewed. A holder
 * that is paused or cut off past its lease loses the lock; see {@link LockLease}.
 *
 * <h2>Interruption and cancellation</h2>
 * {@link #lockInterruptibly()}, {@link #tryLock(long, TimeUnit)}, {@link #acquire(Duration)} and
 * {@link #tryAcquire(Duration)} (zero waits included) respond to interruption by withdrawing the
 * acquisition and throwing {@link InterruptedException} ({@code acquire}/{@code tryAcquire} throw
 * {@link RelockException} with the interrupt flag set, since they declare no checked exception).
 * Withdrawing means: whatever the acquisition may have in Redis, a queue entry or the lock itself
 * (granted meanwhile, or taken by a call that Redis ran late), is released, and the call returns
 * once Redis has confirmed that (waiting at most about twice the command timeout; past that, the
 * release goes on in the background). If the acquisition had already succeeded when the interrupt
 * arrived, the call returns normally with the interrupt flag set. Cancelling an {@link
 * #acquireAsync} future withdraws the same way. {@link #lock()} ignores interrupts while waiting
 * and restores the interrupt flag when it returns; {@link #tryLock()}, one attempt, ignores the
 * flag and leaves it set, as {@link java.util.concurrent.locks.ReentrantLock#tryLock()} does.
 *
 * <h2>When Redis is unreachable</h2>
 * An acquisition keeps trying while its wait lasts (a zero wait: for one command timeout), at once
 * when the connection comes back, and fails with {@link RelockException} (not {@link
 * LockTimeoutException}) if Redis stayed unreachable to the end; {@link #lock()} and {@link
 * #lockInterruptibly()} wait as long as it takes. A release keeps trying for one command timeout,
 * then throws {@link RelockException} and goes on trying in the background until the lock would
 * have expired anyway.
 */
public interface DistributedLock extends Lock {

  /**
   * The lock's name, as given to {@link Relock#lock(String)}.
   *
   * @return the name this lock was obtained by; for a {@link Relock#multiLock multi-lock}, its
   *     names joined by commas
   */
  String name();

  /**
   * Acquires the lock with the default lease (renewed by the watchdog), waiting at most {@code
   * wait}.
   *
   * @param wait how long to wait; zero means one attempt without waiting
   * @return the lease; close it to release
   * @throws LockTimeoutException if the lock stayed held for the whole wait
   * @throws IllegalArgumentException if {@code wait} is negative
   * @throws RelockException if Redis failed, or the thread was interrupted (interrupt flag set)
   */
  LockLease acquire(Duration wait);

  /**
   * Acquires the lock for a fixed {@code lease} that is never renewed, waiting at most {@code wait}.
   *
   * @param wait how long to wait; zero means one attempt without waiting
   * @param lease how long Redis keeps the lock unless the lease is closed first; at least 1 ms
   * @return the lease; close it to release
   * @throws IllegalArgumentException if {@code wait} is negative or {@code lease} is under 1 ms
   * @see #acquire(Duration)
   */
  LockLease acquire(Duration wait, Duration lease);

  /**
   * Like {@link #acquire(Duration)}, but returns an empty Optional instead of throwing {@link
   * LockTimeoutException} when the wait runs out.
   *
   * @param wait how long to wait; zero means one attempt without waiting
   * @return the lease, or an empty Optional if the lock stayed held for the whole wait
   */
  default Optional<LockLease> tryAcquire(Duration wait) {
    try {
      return Optional.of(acquire(wait));
    } catch (LockTimeoutException e) {
      return Optional.empty();
    }
  }

  /**
   * Acquires the lock without blocking the caller. The future completes with the lease, or
   * exceptionally with {@link LockTimeoutException} or {@link RelockException}. Cancelling the
   * future withdraws the waiter (and releases the lock if it was granted meanwhile). The future
   * completes on a relock thread, never on a Redis I/O thread.
   *
   * @param wait how long to wait; zero means one attempt without waiting
   * @return a future of the lease, which the caller closes to release
   * @throws IllegalArgumentException if {@code wait} is negative (thrown, not in the future)
   */
  CompletableFuture<LockLease> acquireAsync(Duration wait);

  /**
   * Acquires the lock for the calling thread, waiting as long as it takes (through Redis outages
   * too); re-entrant. Renewed by the watchdog until the matching {@link #unlock()}.
   *
   * @throws RelockException if Redis refused the call (a key of the wrong type) or the client was
   *     closed
   * @throws LockLostException if the calling thread already held this lock and that hold was lost;
   *     the thread must {@link #unlock()} its earlier holds before it can lock again
   */
  @Override
  void lock();

  /** Like {@link #lock()}, but stops waiting when interrupted. */
  @Override
  void lockInterruptibly() throws InterruptedException;

  /**
   * One attempt, no waiting: acquires the lock for the calling thread if it is free (or already
   * held by this thread). Like {@link java.util.concurrent.locks.ReentrantLock#tryLock()}, this
   * does not queue behind other waiters, and it ignores the interrupt flag (leaving it set).
   *
   * @throws RelockException if Redis could not be asked within the command timeout
   */
  @Override
  boolean tryLock();

  /** Waits up to the given time for the lock, for the calling thread; re-entrant. */
  @Override
  boolean tryLock(long time, TimeUnit unit) throws InterruptedException;

  /**
   * Releases one hold of the calling thread; at the last one the lock is released in Redis (every
   * hold at once) and handed to the next waiter. The hold is released here even when Redis cannot
   * confirm it: the thread's count always drops by one.
   *
   * @throws IllegalMonitorStateException if the calling thread does not hold the lock (the lock is
   *     left alone)
   * @throws LockLostException if the thread's hold was lost (expired or taken)
   * @throws RelockException if Redis could not confirm the release within the command timeout (a
   *     last release goes on in the background until the lease would end), or the client was
   *     closed and released the lock itself
   */
  @Override
  void unlock();

  /** Not supported: distributed conditions are out of scope. */
  @Override
  Condition newCondition();

  /**
   * Whether any owner, in any process, holds the lock now. One Redis round trip.
   *
   * @return true if Redis reports a holder at the moment it answers
   */
  boolean isLocked();

  /**
   * Whether the calling thread holds the lock through {@link #lock()}-style calls. Local only.
   *
   * @return true if the calling thread has a {@code lock()}-style hold that has not been lost
   */
  boolean isHeldByCurrentThread();

  /**
   * The calling thread's {@code lock()}-style hold count; 0 if it does not hold the lock. Local
   * only: the client keeps the count that counts. (Redis keeps a copy for operators, which can run
   * ahead after a re-entry that was interrupted while Redis ran it.)
   *
   * @return how many {@code lock()}-style holds the calling thread has not yet unlocked; 0 if it
   *     holds none
   */
  int getHoldCount();

  /**
   * Releases the lock whoever holds it, and hands it to the next waiter. For an exclusive lock
   * (one of {@link Relock#lock}, alone or in a multi-lock), the previous holder's client is told on
   * its notification channel, reads the lock in Redis and reports the lease lost at once (its
   * {@link LockLease#onLost} listeners run); should that notice be lost, or for a read-write
   * lock's lanes, the hold's next renewal, expiry check or release reports it. For operators and
   * tests; not a substitute for {@link LockLease#close()}.
   *
   * @return whether the lock was held
   */
  boolean forceUnlock();
}

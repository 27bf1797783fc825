package io.relock;

import io.relock.internal.Checks;
import io.relock.internal.GuardedSection;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;

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
 * <h2>Guarded sections</h2>
 * {@link #callLocked(Duration, LeaseTask)}, {@link #callLocked(Duration, Callable)} and {@link
 * #runLocked(Duration, Runnable)} run a task under a lease and stop it when the lease is lost, by
 * interrupting the thread that runs it; {@link #callLockedAsync} does the same for a task that
 * returns a future, by cancelling that future. They release the lease however the task ends.
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
   * Runs {@code task} on the calling thread (platform or virtual) while holding the lock, and stops
   * it if the lock is lost: a <em>guarded section</em>. It acquires a lease as {@link
   * #acquire(Duration)} does (the default lease, renewed by the watchdog), calls the task with it,
   * and releases it when the task returns or throws, whatever happened.
   *
   * <h4>When the lease is lost while the task runs</h4>
   * The calling thread is interrupted (unless it is interrupted already), as soon as relock learns
   * of the loss:
   * <ul>
   *   <li>a forced unlock ({@link #forceUnlock()}, {@code relock unlock --force}) by the notice on
   *       the client's channel, one Redis round trip later: milliseconds (should the notice be lost,
   *       at the next renewal);
   *   <li>a renewal that finds the lock gone or taken (Redis restarted without its data, a key
   *       deleted by hand): at that renewal, within a third of the lease after Redis lost it;
   *   <li>renewals that did not get through (Redis unreachable, the process paused): at the
   *       lease's local deadline, which comes before Redis lets the lock go.
   * </ul>
   * The interrupt stops code that responds to interrupts: {@link Thread#sleep}, {@link
   * Object#wait}, {@link java.util.concurrent} waits, interruptible channels, relock's own waits,
   * and clients that map interrupts to their own exceptions. When the task then returns or throws,
   * the call releases the lease and throws {@link LockLostException} instead of returning; the
   * task's own exception, if it threw one (the {@link InterruptedException} it was stopped by,
   * say), is {@linkplain Throwable#getSuppressed() suppressed} in it, and its result is dropped. A
   * task that ignores the interrupt runs on to its end, and the call throws {@link
   * LockLostException} all the same.
   *
   * <h4>The interrupt flag</h4>
   * When the call returns or throws, an interrupt that the section made and the task left pending
   * has been cleared; one that came from elsewhere is left set. The flag is one bit: an interrupt
   * from elsewhere that arrives after the section's own, while the task still runs, cannot be told
   * from it and is cleared with it. If the thread was interrupted already when the loss came, the
   * section adds no interrupt and clears nothing. No interrupt comes from the section after the
   * task returned.
   *
   * <h4>What this does not do</h4>
   * It does not make the task's work safe after a loss: between Redis losing the hold and the
   * interrupt (the windows above, a pause of this process, a clock that ran fast beyond the drift
   * allowance), and after it in code that ignores interrupts, the task may act while another owner
   * holds the lock. Only the resource can refuse such work: pass {@link LockLease#fencingToken()}
   * with every write and let the resource refuse a token lower than the highest it has seen.
   *
   * <h4>Other outcomes</h4>
   * If the lease held to the end, the call returns what the task returned, or throws the task's
   * exception unchanged (checked ones too). If the release then fails (Redis did not answer in
   * time), that {@link RelockException} is suppressed in the task's exception, or thrown if the
   * task returned; the release goes on in the background. The {@code lease} given to the task
   * belongs to the section: closing it throws {@link IllegalStateException}, and so does asking for
   * its fencing token or adding an {@code onLost} listener after the section ended. Memory effects
   * are those of {@link #acquire(Duration)} and {@link LockLease#close()}.
   *
   * @param <T> what the task returns
   * @param wait how long to wait for the lock; zero means one attempt without waiting
   * @param task the work, given the lease (for its fencing token)
   * @return what the task returned
   * @throws LockLostException if the lease was lost before the section released it
   * @throws LockTimeoutException if the lock stayed held for the whole wait (the task did not run)
   * @throws NullPointerException if {@code task} or {@code wait} is null (nothing is acquired)
   * @throws IllegalArgumentException if {@code wait} is negative
   * @throws RelockException if Redis failed while acquiring, or the thread was interrupted while
   *     waiting (interrupt flag set)
   * @throws Exception whatever the task threw, unless the lease was lost
   */
  default <T> T callLocked(Duration wait, LeaseTask<T> task) throws Exception {
    Checks.waitTime(wait);
    GuardedSection.task(task);
    return GuardedSection.call(acquire(wait), task);
  }

  /**
   * A guarded section for a task that does not need its lease; see {@link #callLocked(Duration,
   * LeaseTask)}, whose contract this follows in full.
   *
   * @param <T> what the task returns
   * @param wait how long to wait for the lock; zero means one attempt without waiting
   * @param task the work
   * @return what the task returned
   * @throws LockLostException if the lease was lost before the section released it
   * @throws LockTimeoutException if the lock stayed held for the whole wait (the task did not run)
   * @throws NullPointerException if {@code task} or {@code wait} is null (nothing is acquired)
   * @throws IllegalArgumentException if {@code wait} is negative
   * @throws Exception whatever the task threw, unless the lease was lost
   */
  default <T> T callLocked(Duration wait, Callable<T> task) throws Exception {
    GuardedSection.task(task);
    return callLocked(wait, lease -> task.call());
  }

  /**
   * A guarded section for a task that returns nothing; see {@link #callLocked(Duration,
   * LeaseTask)}, whose contract this follows in full.
   *
   * @param wait how long to wait for the lock; zero means one attempt without waiting
   * @param task the work
   * @throws LockLostException if the lease was lost before the section released it
   * @throws LockTimeoutException if the lock stayed held for the whole wait (the task did not run)
   * @throws NullPointerException if {@code task} or {@code wait} is null (nothing is acquired)
   * @throws IllegalArgumentException if {@code wait} is negative
   */
  default void runLocked(Duration wait, Runnable task) {
    Checks.waitTime(wait);
    GuardedSection.task(task);
    GuardedSection.run(acquire(wait), task);
  }

  /**
   * A guarded section for a task that returns a future, without blocking the caller. It acquires
   * as {@link #acquireAsync(Duration)} does; once the lock is granted it calls {@code task} with the
   * lease, on the relock thread that completes the acquisition (so the task must only start its
   * work and return its stage, as a non-async {@link CompletableFuture} callback must not block),
   * and holds the lease until the returned stage completes, then releases it.
   *
   * <p>If the lease is lost first (when relock learns of it, as for {@link #callLocked(Duration,
   * LeaseTask)}), the task's stage is cancelled ({@code toCompletableFuture().cancel(true)}, which
   * completes it at once but interrupts nothing: work behind it runs on unless it watches for the
   * cancellation), and the returned future completes exceptionally with {@link LockLostException},
   * the stage's {@link java.util.concurrent.CancellationException} or other failure suppressed in
   * it. A stage that does not support {@code toCompletableFuture()} cannot be cancelled: the
   * section waits for it to complete, then reports the loss. Fencing tokens remain the only
   * protection of the resource.
   *
   * <p>Otherwise the returned future completes as the task's stage did, once the lease is released
   * (a release that fails is suppressed in the stage's failure, or fails the future). Cancelling
   * the returned future while it waits withdraws the acquisition (nothing is left held); once the
   * task runs, it cancels the task's stage, and the lease is released when that stage completes.
   * A task that throws, or returns null, fails the returned future and the lease is released.
   *
   * @param <T> the result of the task's stage
   * @param wait how long to wait for the lock; zero means one attempt without waiting
   * @param task starts the work under the lease and returns its stage
   * @return a future of the stage's result, completed once the lease is released
   * @throws NullPointerException if {@code task} or {@code wait} is null (thrown, not in the future)
   * @throws IllegalArgumentException if {@code wait} is negative (thrown, not in the future)
   */
  default <T> CompletableFuture<T> callLockedAsync(Duration wait,
      Function<? super LockLease, ? extends CompletionStage<T>> task) {
    Checks.waitTime(wait);
    GuardedSection.task(task);
    return GuardedSection.callAsync(acquireAsync(wait), task);
  }

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

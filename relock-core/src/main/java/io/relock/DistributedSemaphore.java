package io.relock;

import io.relock.internal.Checks;
import io.relock.internal.GuardedSection;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * A counting semaphore kept in Redis: at most {@link #permits()} leases held at once across every
 * process that uses the same name. Obtain one with {@link Relock#semaphore(String, int)}.
 *
 * <p>Each permit is a {@link LockLease}: any thread may close it, the watchdog renews it (unless it
 * was taken for a fixed lease), and it is reported lost like a lock's lease. A holder that dies,
 * pauses or is cut off gives its permit back when its lease runs out. Each permit carries its own
 * fencing token, larger than every token issued before for the name.
 *
 * <p>Waiters are served in arrival order and handed a permit directly by the release that frees
 * it; nobody polls. Interruption, cancellation and Redis outages behave as for {@link
 * DistributedLock#acquire(Duration)}.
 *
 * <p>{@link #callLocked(Duration, LeaseTask)} and its siblings run a task while holding a permit,
 * stop it when the permit's lease is lost and give the permit back however the task ends, as
 * {@link DistributedLock#callLocked(Duration, LeaseTask)} does for a lock.
 *
 * <p>Every client must declare a name with the same number of permits: a different number fails
 * with {@link RelockException} naming both. To change it, stop using the name (its marker lasts
 * the fence retention after its last use) or use a new name.
 */
public interface DistributedSemaphore {

  /**
   * The name, as given to {@link Relock#semaphore(String, int)}.
   *
   * @return the name this semaphore was obtained by
   */
  String name();

  /**
   * How many leases may be held at once.
   *
   * @return the number of permits declared with {@link Relock#semaphore(String, int)}
   */
  int permits();

  /**
   * Takes a permit with the default lease (renewed by the watchdog), waiting at most {@code wait}.
   *
   * @param wait how long to wait for a free permit; zero means one attempt without waiting
   * @return the lease of one permit; close it to give the permit back
   * @throws LockTimeoutException if no permit came free within the wait
   * @throws IllegalArgumentException if {@code wait} is negative
   * @throws RelockException if Redis failed, the name is another kind or was declared with other
   *     permits, or the thread was interrupted (interrupt flag set)
   */
  LockLease acquire(Duration wait);

  /**
   * Takes a permit for a fixed {@code lease} that is never renewed; see {@link #acquire(Duration)}.
   *
   * @param wait how long to wait for a free permit; zero means one attempt without waiting
   * @param lease how long Redis keeps the permit unless the lease is closed first; at least 1 ms
   * @return the lease of one permit; close it to give the permit back
   * @throws IllegalArgumentException if {@code wait} is negative or {@code lease} is under 1 ms
   */
  LockLease acquire(Duration wait, Duration lease);

  /**
   * Like {@link #acquire(Duration)}, but empty instead of {@link LockTimeoutException}.
   *
   * @param wait how long to wait for a free permit; zero means one attempt without waiting
   * @return the lease of one permit, or an empty Optional if none came free within the wait
   */
  default Optional<LockLease> tryAcquire(Duration wait) {
    try {
      return Optional.of(acquire(wait));
    } catch (LockTimeoutException e) {
      return Optional.empty();
    }
  }

  /**
   * Takes a permit without blocking the caller; see {@link DistributedLock#acquireAsync(Duration)}.
   *
   * @param wait how long to wait for a free permit; zero means one attempt without waiting
   * @return a future of the lease of one permit, which the caller closes to give the permit back
   * @throws IllegalArgumentException if {@code wait} is negative (thrown, not in the future)
   */
  CompletableFuture<LockLease> acquireAsync(Duration wait);

  /**
   * Runs {@code task} on the calling thread while holding a permit, interrupts the thread if the
   * permit's lease is lost before the task returns, and gives the permit back however the task
   * ends: a guarded section, with the contract of {@link DistributedLock#callLocked(Duration,
   * LeaseTask)} (a permit's lease is lost as a lock's is; a semaphore has no forced unlock).
   *
   * @param <T> what the task returns
   * @param wait how long to wait for a free permit; zero means one attempt without waiting
   * @param task the work, given the permit's lease (for its fencing token)
   * @return what the task returned
   * @throws LockLostException if the lease was lost before the section released it
   * @throws LockTimeoutException if no permit came free within the wait (the task did not run)
   * @throws NullPointerException if {@code task} or {@code wait} is null (nothing is acquired)
   * @throws IllegalArgumentException if {@code wait} is negative
   * @throws Exception whatever the task threw, unless the lease was lost
   */
  default <T> T callLocked(Duration wait, LeaseTask<T> task) throws Exception {
    Checks.waitTime(wait);
    GuardedSection.task(task);
    return GuardedSection.call(acquire(wait), task);
  }

  /**
   * A guarded section under a permit for a task that does not need its lease; see {@link
   * #callLocked(Duration, LeaseTask)}.
   *
   * @param <T> what the task returns
   * @param wait how long to wait for a free permit; zero means one attempt without waiting
   * @param task the work
   * @return what the task returned
   * @throws LockLostException if the lease was lost before the section released it
   * @throws Exception whatever the task threw, unless the lease was lost
   */
  default <T> T callLocked(Duration wait, Callable<T> task) throws Exception {
    GuardedSection.task(task);
    return callLocked(wait, lease -> task.call());
  }

  /**
   * A guarded section under a permit for a task that returns nothing; see {@link
   * #callLocked(Duration, LeaseTask)}.
   *
   * @param wait how long to wait for a free permit; zero means one attempt without waiting
   * @param task the work
   * @throws LockLostException if the lease was lost before the section released it
   */
  default void runLocked(Duration wait, Runnable task) {
    Checks.waitTime(wait);
    GuardedSection.task(task);
    GuardedSection.run(acquire(wait), task);
  }

  /**
   * A guarded section under a permit for a task that returns a future, without blocking the
   * caller; the contract of {@link DistributedLock#callLockedAsync(Duration, Function)}.
   *
   * @param <T> the result of the task's stage
   * @param wait how long to wait for a free permit; zero means one attempt without waiting
   * @param task starts the work under the permit's lease and returns its stage
   * @return a future of the stage's result, completed once the permit is given back
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
   * How many permits are free at the moment Redis answers (permits of holders whose lease ran out
   * are free). One Redis round trip.
   *
   * @return the number of permits no live lease holds, as Redis counts them when it answers
   */
  int availablePermits();
}

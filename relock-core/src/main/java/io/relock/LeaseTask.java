package io.relock;

/**
 * Work to run under a lock that needs its lease: the {@link LockLease#fencingToken() fencing token}
 * to pass with each write, or {@link LockLease#isValid()} to check between steps. Given to {@link
 * DistributedLock#callLocked(java.time.Duration, LeaseTask)} and {@link
 * DistributedSemaphore#callLocked(java.time.Duration, LeaseTask)}.
 *
 * <p>The lease it is given belongs to the guarded section: the section releases it when the task
 * returns. Closing it, or asking for its fencing token or adding an {@code onLost} listener after
 * the section ended, throws {@link IllegalStateException}.
 *
 * @param <T> what the task returns
 */
@FunctionalInterface
public interface LeaseTask<T> {

  /**
   * Does the work.
   *
   * @param lease the lease held while this runs; not to be closed, nor used once this returned
   * @return the task's result, returned by the guarded section unless the lease was lost
   * @throws Exception whatever the work throws: the guarded section throws it on, unchanged,
   *     unless the lease was lost
   */
  T call(LockLease lease) throws Exception;
}

package io.relock;

/**
 * A read-write lock kept in Redis: many readers at once, or one writer, across every process that
 * uses the same name. Obtain one with {@link Relock#readWriteLock(String)}.
 *
 * <h2>Order</h2>
 * Waiters are served in arrival order, readers and writers alike: a reader that arrives while a
 * writer waits queues behind it, so a steady stream of readers cannot starve a writer, nor the
 * reverse. A writer's release hands the lock to the next writer, or to every reader queued before
 * the next writer, at once.
 *
 * <h2>Both lanes are {@link DistributedLock}s</h2>
 * {@link #readLock()} and {@link #writeLock()} have everything an exclusive lock has: leases any
 * thread may close, watchdog renewal, lost-lease reporting, and the {@code lock()} style owned by a
 * thread and re-entrant for it. A thread that holds the write lock may also take the read lock (and
 * then unlock the write lock: a downgrade); a thread that holds the read lock and asks for the write
 * lock gets {@link IllegalMonitorStateException} at once, since it would wait for itself.
 *
 * <h2>Fencing tokens</h2>
 * Each write hold gets a token larger than every token issued before for the name. A read hold
 * carries the token of the last write before it (0 before the first): a resource can refuse a read
 * older than a write it has already seen.
 *
 * <h2>One name, one kind</h2>
 * A name is a read-write lock, a semaphore or an exclusive lock, not two of them: using a name as
 * another kind while it is in use (or within the fence retention of its last use) fails with
 * {@link RelockException} naming the kind it is.
 */
public interface DistributedReadWriteLock {

  /** The name, as given to {@link Relock#readWriteLock(String)}. */
  String name();

  /** The lock readers share. */
  DistributedLock readLock();

  /** The lock a writer holds alone. */
  DistributedLock writeLock();
}

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
 * Each write hold gets a new token, larger than every token issued before for the name. A read hold
 * carries the token of its read epoch. A reader granted while no other reader holds opens a new
 * epoch, with a new token larger than every earlier one of the name (so above every earlier
 * write's); a reader granted while other readers hold joins their epoch and gets the same token. No
 * writer is granted while readers hold, so every later writer's token is above the epoch's. A
 * downgrade opens a new epoch, above the thread's own write token.
 *
 * <p>A resource needs one rule, for reads and writes alike: refuse an operation whose token is
 * lower than the highest it has accepted, and accept an equal one (the readers of one epoch share
 * it). For a read-modify-write it checks the read as well as the write. A writer whose lease ran
 * out is then refused as soon as a reader granted after it has used its token, and a reader whose
 * lease ran out is refused once a later writer has used its own. A thread that downgraded therefore
 * does its writes with the write hold's token before it uses the read hold's token at the resource:
 * after a read at the newer epoch, the older write token is refused.
 *
 * <h2>One name, one kind</h2>
 * A name is a read-write lock, a semaphore or an exclusive lock, not two of them: using a name as
 * another kind while it is in use (or within the fence retention of its last use) fails with
 * {@link RelockException} naming the kind it is.
 */
public interface DistributedReadWriteLock {

  /**
   * The name, as given to {@link Relock#readWriteLock(String)}.
   *
   * @return the name this read-write lock was obtained by
   */
  String name();

  /**
   * The lock readers share.
   *
   * @return the lock readers take: shared with other readers, exclusive with a writer
   */
  DistributedLock readLock();

  /**
   * The lock a writer holds alone.
   *
   * @return the lock a writer takes: exclusive with other writers and with readers
   */
  DistributedLock writeLock();
}

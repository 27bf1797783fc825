package io.relock.bench;

/**
 * One implementation under test as one process uses it: a connected client (thread-safe) that
 * hands out locks by name. The bench talks to every implementation through this and nothing
 * else, so all of them run the same loops.
 */
public interface LockClient extends AutoCloseable {

  /** The lock called {@code name}; cheap, may be called once per thread. */
  BenchLock lock(String name);

  /** Disconnects; locks still held are left to expire or are released, as the library does. */
  @Override
  void close();

  /** A named lock. */
  interface BenchLock {

    /**
     * Waits as long as it takes and returns the hold. The thread that acquired must be the one
     * that releases (Redisson and Spring locks belong to threads).
     */
    Hold acquire() throws InterruptedException;
  }

  /** One acquisition, released once. */
  interface Hold {
    void release();
  }

  /**
   * A client that also has the lock family, for {@code ./relock bench --family}: a read-write
   * lock's two lanes and a semaphore's permits, each handed out as a {@link BenchLock} whose
   * {@link Hold} is one read hold, write hold or permit. As with {@link #lock}, the thread that
   * acquired releases.
   */
  interface Family {

    /** The read lane of the read-write lock called {@code name}. */
    BenchLock readLock(String name);

    /** The write lane of the read-write lock called {@code name}. */
    BenchLock writeLock(String name);

    /**
     * The semaphore called {@code name} with {@code permits} permits. Called by each load thread
     * before its run starts (after the harness flushed Redis), so a client whose permits live in a
     * key of their own sets them here.
     */
    BenchLock semaphore(String name, int permits);

    /**
     * One try, without waiting, at a permit of the semaphore {@link #semaphore} made with the same
     * name and permits: the hold, or null if every permit is held.
     */
    Hold tryPermit(String name, int permits);
  }

  /**
   * A client that can also run acquire-release without blocking a thread (the Redis-bound limit):
   * {@link LoadPhase} then runs one asynchronous loop per "thread" instead of a thread, so the
   * figure is not held back by thread wake-ups.
   */
  interface Pipelined {

    /**
     * Acquires {@code name} and releases it as soon as the acquire's reply arrives; completes with
     * the acquire's latency in nanoseconds once the release has been answered.
     */
    java.util.concurrent.CompletableFuture<Long> acquireRelease(String name);
  }
}

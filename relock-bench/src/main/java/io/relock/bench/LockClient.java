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

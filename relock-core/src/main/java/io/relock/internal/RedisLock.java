package io.relock.internal;

import io.relock.DistributedLock;
import io.relock.LockLease;
import io.relock.LockTimeoutException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/**
 * {@link DistributedLock} over a {@link LockEngine}: argument checks and the blocking styles, for an
 * exclusive lock and for each lane of a read-write lock (see {@link LockKind}).
 */
public final class RedisLock implements DistributedLock {
  private final LockEngine engine;
  private final LockKind kind;
  private final String name;
  /** Whether observers follow its acquisitions: not for the locks of a multi-lock, which is followed as one. */
  private final boolean observed;

  /** The exclusive lock {@code name}. */
  public RedisLock(LockEngine engine, String name) {
    this(engine, LockKind.EXCLUSIVE, name, true);
  }

  RedisLock(LockEngine engine, LockKind kind, String name) {
    this(engine, kind, name, true);
  }

  RedisLock(LockEngine engine, LockKind kind, String name, boolean observed) {
    this.engine = engine;
    this.kind = kind;
    this.name = name;
    this.observed = observed;
  }

  private LockEngine.Pending start(long threadId, Duration wait, Duration lease) {
    return observed ? engine.acquire(kind, name, threadId, wait, lease)
        : engine.acquireUnobserved(kind, name, threadId, wait, lease);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public LockLease acquire(Duration wait) {
    Checks.waitTime(wait);
    return Waiting.lease(engine, start(-1, wait, null), name);
  }

  @Override
  public LockLease acquire(Duration wait, Duration lease) {
    Checks.waitTime(wait);
    Checks.lease("lease", lease);
    return Waiting.lease(engine, start(-1, wait, lease), name);
  }

  @Override
  public CompletableFuture<LockLease> acquireAsync(Duration wait) {
    Checks.waitTime(wait);
    return Waiting.leaseAsync(engine, start(-1, wait, null), name);
  }

  @Override
  public void lock() {
    Waiting.uninterruptibly(start(threadId(), null, null));
  }

  @Override
  public void lockInterruptibly() throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    Waiting.interruptibly(engine, start(threadId(), null, null), name);
  }

  /**
   * One attempt. Like {@code ReentrantLock.tryLock()}, ignores the interrupt flag (and leaves it
   * set): the attempt is one round trip, not a wait.
   */
  @Override
  public boolean tryLock() {
    try {
      Waiting.uninterruptibly(start(threadId(), Duration.ZERO, null));
      return true;
    } catch (LockTimeoutException e) {
      return false;
    }
  }

  @Override
  public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
    Objects.requireNonNull(unit, "unit");
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    Duration wait = Duration.ofNanos(Math.max(0, unit.toNanos(time)));
    try {
      Waiting.interruptibly(engine, start(threadId(), wait, null), name);
      return true;
    } catch (LockTimeoutException e) {
      return false;
    }
  }

  @Override
  public void unlock() {
    engine.unlock(kind, name, threadId());
  }

  @Override
  public Condition newCondition() {
    throw new UnsupportedOperationException("relock locks have no conditions");
  }

  @Override
  public boolean isLocked() {
    return engine.isLocked(kind, name);
  }

  @Override
  public boolean isHeldByCurrentThread() {
    return engine.isHeldBy(kind, name, threadId());
  }

  @Override
  public int getHoldCount() {
    return engine.holdCount(kind, name, threadId());
  }

  @Override
  public boolean forceUnlock() {
    return engine.forceUnlock(kind, name);
  }

  @Override
  public String toString() {
    return kind == LockKind.EXCLUSIVE ? "DistributedLock[" + name + "]" : "DistributedLock[" + name + ", " + kind + "]";
  }

  @SuppressWarnings("deprecation") // Thread.getId(): threadId() needs Java 19; both are unique per thread.
  static long threadId() {
    return Thread.currentThread().getId();
  }
}

package io.relock.internal;

import io.relock.DistributedSemaphore;
import io.relock.LockLease;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** {@link DistributedSemaphore} over a {@link LockEngine}: each permit is a lease of the semaphore kind. */
public final class RedisSemaphore implements DistributedSemaphore {
  private final LockEngine engine;
  private final LockKind kind;
  private final String name;
  private final int permits;

  public RedisSemaphore(LockEngine engine, String name, int permits) {
    engine.requireSharedKinds("a semaphore");
    this.engine = engine;
    this.kind = LockKind.semaphore(permits);
    this.name = name;
    this.permits = permits;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int permits() {
    return permits;
  }

  @Override
  public LockLease acquire(Duration wait) {
    Checks.waitTime(wait);
    return Waiting.lease(engine, engine.acquire(kind, name, -1, wait, null), name);
  }

  @Override
  public LockLease acquire(Duration wait, Duration lease) {
    Checks.waitTime(wait);
    Checks.lease("lease", lease);
    return Waiting.lease(engine, engine.acquire(kind, name, -1, wait, lease), name);
  }

  @Override
  public CompletableFuture<LockLease> acquireAsync(Duration wait) {
    Checks.waitTime(wait);
    return Waiting.leaseAsync(engine, engine.acquire(kind, name, -1, wait, null), name);
  }

  @Override
  public int availablePermits() {
    return engine.availablePermits(name, permits);
  }

  @Override
  public String toString() {
    return "DistributedSemaphore[" + name + ", " + permits + " permits]";
  }
}

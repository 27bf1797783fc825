package io.relock.internal;

import io.relock.DistributedLock;
import io.relock.LockLease;
import io.relock.LockTimeoutException;
import io.relock.RelockException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/** {@link DistributedLock} over a {@link LockEngine}: argument checks and the blocking styles. */
public final class RedisLock implements DistributedLock {
  private final LockEngine engine;
  private final String name;

  public RedisLock(LockEngine engine, String name) {
    this.engine = engine;
    this.name = name;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public LockLease acquire(Duration wait) {
    Checks.waitTime(wait);
    return leaseOrThrow(engine.acquire(name, -1, wait, null), wait);
  }

  @Override
  public LockLease acquire(Duration wait, Duration lease) {
    Checks.waitTime(wait);
    Checks.lease("lease", lease);
    return leaseOrThrow(engine.acquire(name, -1, wait, lease), wait);
  }

  @Override
  public Optional<LockLease> tryAcquire(Duration wait) {
    try {
      return Optional.of(acquire(wait));
    } catch (LockTimeoutException e) {
      return Optional.empty();
    }
  }

  private LockLease leaseOrThrow(LockEngine.Pending p, Duration wait) {
    try {
      return awaitInterruptibly(p);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RelockException("interrupted while acquiring lock '" + name + "'", e);
    }
  }

  @Override
  public CompletableFuture<LockLease> acquireAsync(Duration wait) {
    Checks.waitTime(wait);
    LockEngine.Pending p = engine.acquire(name, -1, wait, null);
    CompletableFuture<LockLease> user = new CompletableFuture<>();
    user.whenComplete((lease, error) -> {
      if (user.isCancelled()) {
        p.cancel();
      }
    });
    p.result().whenComplete((lease, error) -> {
      try {
        engine.onEventThread(() -> {
          if (error != null) {
            user.completeExceptionally(unwrap(error));
          } else if (!user.complete(lease)) {
            engine.abandonLease(lease);
          }
        });
      } catch (RejectedExecutionException closed) {
        user.completeExceptionally(new RelockException("client closed while acquiring lock '" + name + "'"));
      }
    });
    return user;
  }

  @Override
  public void lock() {
    LockEngine.Pending p = engine.acquire(name, threadId(), null, null);
    boolean interrupted = false;
    try {
      while (true) {
        try {
          unwrapGet(p.result());
          return;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public void lockInterruptibly() throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    awaitInterruptibly(engine.acquire(name, threadId(), null, null));
  }

  @Override
  public boolean tryLock() {
    return tryLock(Duration.ZERO);
  }

  @Override
  public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
    Objects.requireNonNull(unit, "unit");
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    Duration wait = Duration.ofNanos(Math.max(0, unit.toNanos(time)));
    try {
      awaitInterruptibly(engine.acquire(name, threadId(), wait, null));
      return true;
    } catch (LockTimeoutException e) {
      return false;
    }
  }

  private boolean tryLock(Duration wait) {
    try {
      unwrapGet(engine.acquire(name, threadId(), wait, null).result());
      return true;
    } catch (LockTimeoutException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RelockException("interrupted during tryLock of '" + name + "'", e);
    }
  }

  @Override
  public void unlock() {
    engine.unlock(name, threadId());
  }

  @Override
  public Condition newCondition() {
    throw new UnsupportedOperationException("relock locks have no conditions");
  }

  @Override
  public boolean isLocked() {
    return engine.isLocked(name);
  }

  @Override
  public boolean isHeldByCurrentThread() {
    return engine.isHeldBy(name, threadId());
  }

  @Override
  public int getHoldCount() {
    return engine.holdCount(name, threadId());
  }

  @Override
  public boolean forceUnlock() {
    return engine.forceUnlock(name);
  }

  @Override
  public String toString() {
    return "DistributedLock[" + name + "]";
  }

  /**
   * Waits for the acquisition; on interrupt withdraws it (waiting for Redis to confirm, so nothing
   * is left queued) and throws, unless it had completed meanwhile.
   */
  private HeldLease awaitInterruptibly(LockEngine.Pending p) throws InterruptedException {
    try {
      return unwrapGet(p.result());
    } catch (InterruptedException e) {
      engine.await(p.cancel(), name);
      if (p.result().isDone() && !p.result().isCompletedExceptionally()) {
        Thread.currentThread().interrupt();
        return p.result().join();
      }
      throw e;
    }
  }

  private static HeldLease unwrapGet(CompletableFuture<HeldLease> f) throws InterruptedException {
    try {
      return f.get();
    } catch (ExecutionException e) {
      Throwable c = unwrap(e.getCause());
      if (c instanceof RuntimeException r) {
        throw r;
      }
      if (c instanceof Error err) {
        throw err;
      }
      throw new RelockException(String.valueOf(c), c);
    } catch (CancellationException e) {
      throw new RelockException("acquisition cancelled (client closed?)", e);
    }
  }

  private static Throwable unwrap(Throwable t) {
    while (t instanceof java.util.concurrent.CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  @SuppressWarnings("deprecation") // Thread.getId(): threadId() needs Java 19; both are unique per thread.
  private static long threadId() {
    return Thread.currentThread().getId();
  }
}

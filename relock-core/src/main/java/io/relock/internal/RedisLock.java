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

/**
 * {@link DistributedLock} over a {@link LockEngine}: argument checks and the blocking styles. Every
 * way of waiting ends in one of two ways: the caller gets the hold, or the acquisition is
 * withdrawn and the caller waits (ignoring interrupts, bounded) until Redis holds nothing of it.
 */
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
    return leaseOrThrow(engine.acquire(name, -1, wait, null));
  }

  @Override
  public LockLease acquire(Duration wait, Duration lease) {
    Checks.waitTime(wait);
    Checks.lease("lease", lease);
    return leaseOrThrow(engine.acquire(name, -1, wait, lease));
  }

  @Override
  public Optional<LockLease> tryAcquire(Duration wait) {
    try {
      return Optional.of(acquire(wait));
    } catch (LockTimeoutException e) {
      return Optional.empty();
    }
  }

  private LockLease leaseOrThrow(LockEngine.Pending p) {
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
        // A hold that won the race with the cancel is nobody's: release it.
        p.withdraw(new CancellationException("acquireAsync cancelled"))
            .thenAccept(won -> {
              if (won != null) {
                engine.abandonLease(won);
              }
            });
      }
    });
    p.result().whenComplete((lease, error) -> {
      try {
        engine.onEventThread(() -> {
          if (error != null) {
            user.completeExceptionally(LockEngine.unchecked(error));
          } else if (!user.complete(lease)) {
            engine.abandonLease(lease);
          }
        });
      } catch (RejectedExecutionException closed) {
        user.completeExceptionally(new RelockException("client closed while acquiring lock '" + name + "'"));
        if (lease != null) {
          engine.abandonLease(lease);
        }
      }
    });
    return user;
  }

  @Override
  public void lock() {
    awaitUninterruptibly(engine.acquire(name, threadId(), null, null));
  }

  @Override
  public void lockInterruptibly() throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    awaitInterruptibly(engine.acquire(name, threadId(), null, null));
  }

  /**
   * One attempt. Like {@code ReentrantLock.tryLock()}, ignores the interrupt flag (and leaves it
   * set): the attempt is one round trip, not a wait.
   */
  @Override
  public boolean tryLock() {
    try {
      awaitUninterruptibly(engine.acquire(name, threadId(), Duration.ZERO, null));
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
      awaitInterruptibly(engine.acquire(name, threadId(), wait, null));
      return true;
    } catch (LockTimeoutException e) {
      return false;
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
   * Waits for the acquisition; on interrupt withdraws it (waiting until Redis holds nothing of it)
   * and throws, unless it had succeeded first: then the caller gets the hold, interrupt flag set.
   */
  private HeldLease awaitInterruptibly(LockEngine.Pending p) throws InterruptedException {
    try {
      return p.result().get();
    } catch (ExecutionException e) {
      throw LockEngine.unchecked(e.getCause());
    } catch (InterruptedException e) {
      HeldLease won = engine.withdrawAndWait(p, "interrupted while acquiring lock '" + name + "'");
      if (won != null) {
        Thread.currentThread().interrupt();
        return won;
      }
      throw e;
    }
  }

  private static void awaitUninterruptibly(LockEngine.Pending p) {
    LockEngine.await(p.result());
  }

  @SuppressWarnings("deprecation") // Thread.getId(): threadId() needs Java 19; both are unique per thread.
  private static long threadId() {
    return Thread.currentThread().getId();
  }
}

package io.relock.integration;

import io.relock.DistributedLock;
import io.relock.LockLease;
import io.relock.LockLostException;
import io.relock.LockTimeoutException;
import io.relock.RelockException;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import org.springframework.dao.CannotAcquireLockException;

/**
 * One key's lock of a {@link RelockLockRegistry}: a local {@link ReentrantLock} gives it its
 * owning thread, re-entrancy and a queue of this process's threads; the thread that holds it
 * holds the relock lease, taken when it first locks and released at its last unlock.
 */
final class RelockRegistryLock implements Lock {
  /** How long {@link #lock()} waits in one acquisition; it tries again after, for ever. */
  private static final Duration FOREVER = Duration.ofDays(365);

  private final RelockLockRegistry registry;
  private final String key;
  private final DistributedLock lock;
  private final ReentrantLock local = new ReentrantLock();
  /** The hold in Redis; written only by the thread that holds {@link #local}. */
  private volatile LockLease lease;
  private volatile long lastUsedMillis;

  RelockRegistryLock(RelockLockRegistry registry, String key, DistributedLock lock) {
    this.registry = registry;
    this.key = key;
    this.lock = lock;
  }

  @Override
  public void lock() {
    local.lock();
    boolean interrupted = false;
    try {
      while (true) {
        try {
          if (take(FOREVER)) {
            return;
          }
        } catch (InterruptedException e) {
          interrupted = true; // lock() ignores interrupts, and restores the flag when it returns
        } catch (RuntimeException e) {
          releaseLocal();
          throw cannotAcquire(e);
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
    local.lockInterruptibly();
    try {
      while (!take(FOREVER)) {
        // a year went by: wait on
      }
    } catch (InterruptedException e) {
      releaseLocal();
      throw e;
    } catch (RuntimeException e) {
      releaseLocal();
      throw cannotAcquire(e);
    }
  }

  /** One attempt, no waiting (in this process or in Redis); ignores the interrupt flag. */
  @Override
  public boolean tryLock() {
    if (!local.tryLock()) {
      return false;
    }
    boolean interrupted = Thread.interrupted();
    try {
      if (take(Duration.ZERO)) {
        return true;
      }
      releaseLocal();
      return false;
    } catch (InterruptedException e) {
      releaseLocal();
      interrupted = true;
      return false;
    } catch (RuntimeException e) {
      releaseLocal();
      throw cannotAcquire(e);
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
    long deadline = System.nanoTime() + Math.max(0, unit.toNanos(time));
    if (!local.tryLock(time, unit)) {
      return false;
    }
    try {
      if (take(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))) {
        return true;
      }
      releaseLocal();
      return false;
    } catch (InterruptedException e) {
      releaseLocal();
      throw e;
    } catch (RuntimeException e) {
      releaseLocal();
      throw cannotAcquire(e);
    }
  }

  /**
   * With {@link #local} just taken by this thread: takes the lock in Redis, waiting at most {@code
   * wait}, unless this is a re-entry into a hold that is still valid (with a fixed lease, renewed
   * for it, as {@code RedisLockRegistry} renews a re-entry). A hold found lost is taken again if
   * Redis lets it. Returns whether the thread holds the lock; on false the caller drops its local
   * hold.
   */
  private boolean take(Duration wait) throws InterruptedException {
    LockLease held = lease;
    if (held != null && local.getHoldCount() > 1) {
      if (held.isValid()) {
        Duration renewTo = registry.holdLease();
        if (renewTo == null) {
          return true;
        }
        try {
          held.extend(renewTo);
          return true;
        } catch (LockLostException lost) {
          // taken again below, if Redis lets it
        }
      }
      LockLease again = acquire(wait);
      if (again == null) {
        return false;
      }
      lease = again;
      forget(held);
      return true;
    }
    LockLease taken = acquire(wait);
    if (taken == null) {
      return false;
    }
    lease = taken;
    return true;
  }

  /** Closes a lost lease that a new one replaced, for the client to forget it; its loss was heard. */
  private static void forget(LockLease lost) {
    try {
      lost.close();
    } catch (RuntimeException expected) {
      // LockLostException: it was lost, which is why it was replaced
    }
  }

  /** The relock lease, or null if the wait ran out; an interrupt is thrown as such. */
  private LockLease acquire(Duration wait) throws InterruptedException {
    Duration holdLease = registry.holdLease();
    try {
      return holdLease == null ? lock.acquire(wait) : lock.acquire(wait, holdLease);
    } catch (LockTimeoutException e) {
      return null;
    } catch (RelockException e) {
      if (Thread.interrupted()) {
        throw new InterruptedException("interrupted while acquiring lock '" + lock.name() + "'");
      }
      throw e;
    }
  }

  /**
   * Releases one hold of the calling thread; at its last, the lock in Redis.
   *
   * @throws IllegalStateException if the calling thread does not hold this lock
   * @throws ConcurrentModificationException if the hold had been lost in Redis before (expired,
   *     force-unlocked); its cause is relock's {@link LockLostException}
   */
  @Override
  public void unlock() {
    if (!local.isHeldByCurrentThread()) {
      throw new IllegalStateException("the current thread does not hold lock '" + lock.name() + "'");
    }
    if (local.getHoldCount() > 1) {
      local.unlock();
      return;
    }
    LockLease held = lease;
    lease = null;
    try {
      if (held != null) {
        held.close();
      }
    } catch (LockLostException e) {
      ConcurrentModificationException lost = new ConcurrentModificationException("lock '" + lock.name()
          + "' was lost in Redis before it was unlocked (" + e.getMessage() + "): what it protected may have been"
          + " changed by another holder meanwhile");
      lost.initCause(e);
      throw lost;
    } finally {
      releaseLocal();
    }
  }

  @Override
  public Condition newCondition() {
    throw new UnsupportedOperationException("relock's registry locks have no conditions");
  }

  /** The lease of the thread that holds this lock, or null. */
  LockLease lease() {
    return lease;
  }

  void touch() {
    lastUsedMillis = System.currentTimeMillis();
  }

  /** Whether no thread holds or awaits it, and it was last used before {@code millis}. */
  boolean isUnusedSince(long millis) {
    return !local.isLocked() && !local.hasQueuedThreads() && lastUsedMillis < millis;
  }

  private void releaseLocal() {
    touch();
    local.unlock();
  }

  private CannotAcquireLockException cannotAcquire(RuntimeException e) {
    return new CannotAcquireLockException("could not acquire lock '" + lock.name() + "' (registry key '" + key + "'): "
        + e.getMessage(), e);
  }

  @Override
  public String toString() {
    return "RelockRegistryLock[" + lock.name() + (local.isLocked() ? ", locked" : "") + "]";
  }
}

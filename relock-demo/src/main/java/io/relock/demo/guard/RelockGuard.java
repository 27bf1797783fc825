package io.relock.demo.guard;

import io.relock.LockLease;
import io.relock.LockLostException;
import io.relock.LockTimeoutException;
import io.relock.Relock;
import io.relock.RelockException;
import io.relock.demo.store.RedisUnavailableException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Strategy {@code relock}: a lease on the lock {@code item:<id>}, renewed by the watchdog while the
 * purchase runs, released (and handed to the next waiter) when it ends. The lease's fencing token
 * goes with the store's read and write, so a purchase that lost its lease cannot write.
 */
public final class RelockGuard implements PurchaseGuard {

  private final Relock relock;
  private final Duration wait;

  /**
   * @param relock the process's client, owned by the caller
   * @param wait how long a purchase waits for the lock before it is answered "busy"
   */
  public RelockGuard(Relock relock, Duration wait) {
    this.relock = Objects.requireNonNull(relock, "relock");
    if (wait.isNegative()) {
      throw new IllegalArgumentException("wait must not be negative: " + wait);
    }
    this.wait = wait;
  }

  /** The lock name the demo uses for {@code item}. */
  public static String lockName(String item) {
    return "item:" + item;
  }

  @Override
  public String name() {
    return "relock";
  }

  @Override
  public Hold enter(String item) {
    LockLease lease;
    try {
      lease = relock.lock(lockName(item)).acquire(wait);
    } catch (LockTimeoutException e) {
      throw new LockBusyException(name(), item, wait);
    } catch (RelockException e) {
      throw new RedisUnavailableException("cannot take the lock of item " + item + ": " + e.getMessage(), e, false);
    }
    return new LeaseHold(lease);
  }

  private static final class LeaseHold implements Hold {
    private final LockLease lease;

    LeaseHold(LockLease lease) {
      this.lease = lease;
    }

    @Override
    public OptionalLong fencingToken() {
      return OptionalLong.of(lease.fencingToken());
    }

    @Override
    public Optional<String> release() {
      try {
        lease.close();
        return Optional.empty();
      } catch (LockLostException e) {
        return Optional.of(e.getMessage());
      } catch (RelockException e) {
        return Optional.of("lock release failed, the lock expires with its lease: " + e.getMessage());
      }
    }
  }
}

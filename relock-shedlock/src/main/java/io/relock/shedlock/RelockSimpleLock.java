package io.relock.shedlock;

import io.relock.LockLease;
import io.relock.LockLostException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A ShedLock lock held through relock, as {@link RelockLockProvider#lock} returns it: a relock
 * {@link LockLease} with the fencing token of its acquisition. Valid until {@link #unlock()} or
 * {@link #extend}, each of which may be called once (ShedLock's rule; a second call throws
 * {@link IllegalStateException}); any thread may call them.
 */
public final class RelockSimpleLock implements SimpleLock {
  private static final Logger log = LoggerFactory.getLogger(RelockSimpleLock.class);

  /** One hold in Redis, shared by a lock and its extensions. */
  static final class Hold {
    final LockLease lease;
    private volatile boolean released;

    Hold(LockLease lease) {
      this.lease = lease;
    }

    /** Not unlocked, and still valid by the local clock. */
    boolean isCurrent() {
      return !released && lease.isValid();
    }
  }

  private final Hold hold;
  private final LockLease lease;
  private final String name;
  /** When {@code lockAtLeastFor} ends, by the local monotonic clock. */
  private final long atLeastUntilNanos;
  private final AtomicBoolean used = new AtomicBoolean();

  RelockSimpleLock(Hold hold, String name, long atLeastUntilNanos) {
    this.hold = hold;
    this.lease = hold.lease;
    this.name = name;
    this.atLeastUntilNanos = atLeastUntilNanos;
  }

  /**
   * The fencing token of this lock's acquisition (see {@link LockLease#fencingToken()}): larger
   * than every token issued before for the same lock; an extension keeps it.
   *
   * @return the token
   */
  public long fencingToken() {
    return lease.fencingToken();
  }

  /**
   * The ShedLock name of this lock.
   *
   * @return the name its {@code LockConfiguration} gave
   */
  public String name() {
    return name;
  }

  /**
   * The relock lock name this lock is held under: the provider's prefix and {@link #name()}.
   *
   * @return the name {@code relock list} shows it under
   */
  public String relockName() {
    return lease.lockName();
  }

  /**
   * Releases the lock: at once if its {@code lockAtLeastFor} has passed, else it is left in Redis
   * until then ({@link LockLease#closeAfter}), also if this process stops right after. A lock whose
   * lease had run out before is logged as lost (another instance may have run the task meanwhile),
   * not thrown, as ShedLock's providers do.
   *
   * @throws IllegalStateException if this lock was unlocked or extended before
   * @throws io.relock.RelockException if Redis could not be reached within the command timeout;
   *     the lock then ends by its {@code lockAtMostFor}
   */
  @Override
  public void unlock() {
    use();
    hold.released = true;
    RelockLockProvider.released(hold);
    long keep = atLeastUntilNanos - System.nanoTime();
    try {
      if (keep > 0) {
        lease.closeAfter(Duration.ofNanos(keep));
      } else {
        lease.close();
      }
    } catch (LockLostException e) {
      log.warn("ShedLock lock '{}' (relock lock '{}', fencing token {}) was lost before it was unlocked: {}", name,
          lease.lockName(), lease.fencingToken(), e.getMessage());
    }
  }

  /**
   * Sets the lock's end to {@code lockAtMostFor} from now and its {@code lockAtLeastFor} to {@code
   * lockAtLeastFor} from now; this lock is no longer valid afterwards, the one returned is (with
   * the same fencing token). One Redis round trip.
   *
   * @param lockAtMostFor how long from now Redis keeps the lock at most; at least 1 ms
   * @param lockAtLeastFor how long from now an {@code unlock()} leaves it in Redis; at most {@code
   *     lockAtMostFor} (negative counts as zero)
   * @return the extended lock; empty if the lock had already expired or been lost
   * @throws IllegalStateException if this lock was unlocked or extended before
   * @throws IllegalArgumentException if {@code lockAtMostFor} is under 1 ms or shorter than {@code
   *     lockAtLeastFor}; the message names the values
   * @throws io.relock.RelockException if Redis could not be reached within the command timeout
   */
  @Override
  public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
    Duration atMost = atMost(lockAtMostFor, name);
    Objects.requireNonNull(lockAtLeastFor, "lockAtLeastFor");
    if (lockAtLeastFor.compareTo(atMost) > 0) {
      throw new IllegalArgumentException("lockAtLeastFor " + lockAtLeastFor + " is longer than lockAtMostFor " + atMost
          + " (ShedLock lock '" + name + "')");
    }
    use();
    long now = System.nanoTime();
    try {
      lease.extend(atMost);
    } catch (LockLostException e) {
      return Optional.empty();
    }
    return Optional.of(new RelockSimpleLock(hold, name, untilNanos(now, lockAtLeastFor)));
  }

  /** Whether this lock is the current one of its hold: neither unlocked nor extended, not lost. */
  private boolean isCurrent() {
    return !used.get() && hold.isCurrent();
  }

  private void use() {
    if (!used.compareAndSet(false, true)) {
      throw new IllegalStateException("ShedLock lock '" + name + "' is not valid: it was already unlocked or extended");
    }
  }

  /** {@code lockAtMostFor}, checked: at least 1 ms (a relock lease), the message naming the value. */
  static Duration atMost(Duration lockAtMostFor, String name) {
    Objects.requireNonNull(lockAtMostFor, "lockAtMostFor");
    if (lockAtMostFor.isNegative()) {
      throw new IllegalArgumentException("lockAtMostFor must not be negative, was " + lockAtMostFor
          + " (ShedLock lock '" + name + "')");
    }
    if (lockAtMostFor.compareTo(Duration.ofMillis(1)) < 0) {
      throw new IllegalArgumentException("lockAtMostFor must be at least 1 ms, was " + lockAtMostFor
          + " (ShedLock lock '" + name + "'): a lock that ends as it is taken protects nothing");
    }
    return lockAtMostFor;
  }

  /** When {@code lockAtLeastFor} from {@code startNanos} ends; a negative one counts as zero. */
  static long untilNanos(long startNanos, Duration lockAtLeastFor) {
    if (lockAtLeastFor == null || lockAtLeastFor.isNegative()) {
      return startNanos;
    }
    long nanos;
    try {
      nanos = lockAtLeastFor.toNanos();
    } catch (ArithmeticException tooLong) {
      nanos = Long.MAX_VALUE / 4;
    }
    return startNanos + Math.min(nanos, Long.MAX_VALUE / 4);
  }

  @Override
  public String toString() {
    return "RelockSimpleLock[" + name + ", token " + lease.fencingToken() + (isCurrent() ? "" : ", not valid") + "]";
  }
}

package io.relock.integration;

import io.relock.LockLease;
import io.relock.LockLostException;
import io.relock.Relock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * A Spring Integration lock registry whose locks are relock locks: a drop-in for {@code
 * RedisLockRegistry}, for {@code LockRegistryLeaderInitiator}, aggregators, idempotent receivers
 * and {@link #executeLocked executeLocked}.
 *
 * <pre>{@code
 * @Bean
 * RelockLockRegistry lockRegistry(Relock relock) {
 *   return new RelockLockRegistry(relock);
 * }
 * }</pre>
 *
 * <p>{@link #obtain(Object)} returns one {@link Lock} per key (a {@code String}) until {@link
 * #expireUnusedOlderThan} drops it, which it never does while the lock is held or awaited. The
 * lock is the relock lock named {@code registryKey + ":" + key} (or {@code key} alone without a
 * registry key), shared by every process on the same Redis and key prefix:
 * <ul>
 *   <li>It belongs to the thread that locked it and is re-entrant for that thread; {@link
 *       Lock#unlock()} by another thread throws {@link IllegalStateException}, as {@code
 *       RedisLockRegistry}'s does. Threads of one process queue in the process; the first of
 *       them holds or waits for the lock in Redis.
 *   <li>{@link Lock#lock()} waits as long as it takes, ignoring interrupts; {@link
 *       Lock#lockInterruptibly()} and {@link Lock#tryLock(long, java.util.concurrent.TimeUnit)}
 *       stop at an interrupt; {@link Lock#tryLock()} tries once. While Redis is unreachable,
 *       {@code lock()} and {@code lockInterruptibly()} keep waiting, and a timed {@code tryLock}
 *       throws Spring's {@code CannotAcquireLockException} if it stayed so for the whole wait; so
 *       do all of them when Redis refuses the call or the client is closed.
 *   <li>By default a hold is kept alive by relock's watchdog for as long as the process lives and
 *       ends within the client's default lease after it dies (no {@code expireAfter} to tune).
 *       With a {@code lease}, each hold lasts that long unless renewed, as {@code
 *       RedisLockRegistry}'s {@code expireAfter} does: a re-entry and {@link #renewLock(Object)}
 *       start it again.
 *   <li>A hold found lost when it is unlocked (it expired, or was force-unlocked) throws {@link
 *       java.util.ConcurrentModificationException}, as {@code RedisLockRegistry} does; its cause is
 *       relock's {@link LockLostException}. A re-entrant {@code tryLock} of a hold that was lost
 *       takes the lock again in Redis if it can, and fails if another owner has it.
 * </ul>
 * {@link #lease(Object)} gives the relock lease of a held lock: its fencing token, its validity.
 * Thread-safe.
 */
public final class RelockLockRegistry implements ExpirableLockRegistry, RenewableLockRegistry {

  private final Relock relock;
  private final String registryKey;
  /** The lease of every hold; null for the watchdog's. */
  private final Duration lease;
  private final Map<String, RelockRegistryLock> locks = new ConcurrentHashMap<>();

  /**
   * A registry whose locks are named by their keys alone and renewed by relock's watchdog.
   *
   * @param relock the client that holds the locks; the registry never closes it
   * @throws NullPointerException if {@code relock} is null
   */
  public RelockLockRegistry(Relock relock) {
    this(relock, "", null);
  }

  /**
   * A registry whose locks are named {@code registryKey + ":" + key}, renewed by relock's watchdog.
   *
   * @param relock the client that holds the locks; the registry never closes it
   * @param registryKey put before every key, as {@code RedisLockRegistry}'s; empty for none
   * @throws NullPointerException if an argument is null
   */
  public RelockLockRegistry(Relock relock, String registryKey) {
    this(relock, registryKey, null);
  }

  /**
   * A registry whose locks are named {@code registryKey + ":" + key}, each hold lasting {@code
   * lease} unless renewed ({@code RedisLockRegistry}'s {@code expireAfter}).
   *
   * @param relock the client that holds the locks; the registry never closes it
   * @param registryKey put before every key; empty for none
   * @param lease how long a hold lasts unless renewed; null for holds renewed by relock's watchdog
   * @throws NullPointerException if {@code relock} or {@code registryKey} is null
   * @throws IllegalArgumentException if {@code lease} is under 1 ms; the message names it
   */
  public RelockLockRegistry(Relock relock, String registryKey, Duration lease) {
    this.relock = Objects.requireNonNull(relock, "relock");
    this.registryKey = Objects.requireNonNull(registryKey, "registryKey");
    if (lease != null && lease.compareTo(Duration.ofMillis(1)) < 0) {
      throw new IllegalArgumentException("a RelockLockRegistry's lease must be at least 1 ms, was " + lease);
    }
    this.lease = lease;
  }

  /**
   * The lock for {@code lockKey}: the same object on every call until {@link
   * #expireUnusedOlderThan} drops it. Does not contact Redis.
   *
   * @param lockKey the key, a {@code String}
   * @return the lock
   * @throws IllegalArgumentException if {@code lockKey} is not a {@code String}, or its relock name
   *     is not a valid lock name (blank, over 1,024 UTF-8 bytes); the message names it
   */
  @Override
  public Lock obtain(Object lockKey) {
    String key = key(lockKey);
    return locks.compute(key, (k, existing) -> {
      RelockRegistryLock l = existing != null ? existing : new RelockRegistryLock(this, k, relock.lock(name(k)));
      l.touch();
      return l;
    });
  }

  /**
   * Drops the locks not used (obtained, locked or unlocked) for more than {@code age} ms and
   * neither held nor awaited by any thread of this process; a later {@link #obtain} of their keys
   * gives new ones.
   *
   * @param age milliseconds since last use
   */
  @Override
  public void expireUnusedOlderThan(long age) {
    long now = System.currentTimeMillis();
    for (String key : locks.keySet()) {
      locks.computeIfPresent(key, (k, l) -> l.isUnusedSince(now - age) ? null : l);
    }
  }

  /**
   * Renews the hold of {@code lockKey}, whichever of this process's threads holds it: with a
   * {@code lease}, it lasts that long from now ({@link LockLease#extend}); renewed by the
   * watchdog, it is only checked (the watchdog renews it anyway).
   *
   * @param lockKey the key
   * @throws IllegalStateException if this registry does not hold the lock, or its hold was lost
   *     (expired, force-unlocked)
   */
  @Override
  public void renewLock(Object lockKey) {
    String key = key(lockKey);
    LockLease held = heldLease(key);
    if (lease != null) {
      extend(key, held, lease);
    } else if (!held.isValid()) {
      throw new IllegalStateException("could not renew lock '" + name(key) + "': its hold was lost");
    }
  }

  /**
   * Renews the hold of {@code lockKey} for {@code ttl} from now ({@link LockLease#extend}), as
   * Spring Integration 7's {@code renewLock(key, ttl)}: from then on the hold ends {@code ttl} from
   * now unless renewed again, also if it was renewed by the watchdog before.
   *
   * @param lockKey the key
   * @param ttl how long the hold lasts from now; at least 1 ms
   * @throws IllegalStateException if this registry does not hold the lock, or its hold was lost
   * @throws IllegalArgumentException if {@code ttl} is under 1 ms; the message names it
   */
  public void renewLock(Object lockKey, Duration ttl) {
    Objects.requireNonNull(ttl, "ttl");
    if (ttl.compareTo(Duration.ofMillis(1)) < 0) {
      throw new IllegalArgumentException("ttl must be at least 1 ms, was " + ttl);
    }
    String key = key(lockKey);
    extend(key, heldLease(key), ttl);
  }

  /**
   * The relock lease behind the lock of {@code lockKey} while a thread of this process holds it:
   * its {@link LockLease#fencingToken() fencing token}, whether it is still {@link
   * LockLease#isValid() valid}. Do not close it: {@link Lock#unlock()} does.
   *
   * @param lockKey the key
   * @return the lease; null if no thread of this process holds the lock
   */
  public LockLease lease(Object lockKey) {
    RelockRegistryLock l = locks.get(key(lockKey));
    return l == null ? null : l.lease();
  }

  /** The relock lock name of {@code key}. */
  String name(String key) {
    return registryKey.isEmpty() ? key : registryKey + ":" + key;
  }

  /** The lease each hold is taken for, or null for the watchdog's. */
  Duration holdLease() {
    return lease;
  }

  private String key(Object lockKey) {
    if (!(lockKey instanceof String key)) {
      throw new IllegalArgumentException("a lock key must be a String, was "
          + (lockKey == null ? "null" : lockKey.getClass().getName() + " '" + lockKey + "'"));
    }
    return key;
  }

  private LockLease heldLease(String key) {
    LockLease held = lease(key);
    if (held == null) {
      throw new IllegalStateException("could not renew lock '" + name(key) + "': this registry does not hold it");
    }
    return held;
  }

  private void extend(String key, LockLease held, Duration ttl) {
    try {
      held.extend(ttl);
    } catch (LockLostException | IllegalStateException e) {
      throw new IllegalStateException("could not renew lock '" + name(key) + "': " + e.getMessage(), e);
    }
  }

  @Override
  public String toString() {
    return "RelockLockRegistry[" + (registryKey.isEmpty() ? "" : registryKey + ":") + "*, "
        + (lease == null ? "renewed by the watchdog" : "lease " + lease) + "]";
  }
}

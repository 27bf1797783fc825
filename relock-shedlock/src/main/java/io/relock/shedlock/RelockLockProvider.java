package io.relock.shedlock;

import io.relock.DistributedLock;
import io.relock.LockLease;
import io.relock.LockTimeoutException;
import io.relock.Relock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * A ShedLock {@link net.javacrumbs.shedlock.core.LockProvider} whose locks are relock locks: each
 * ShedLock lock is the relock lock named {@code namePrefix + name} ({@code shedlock:<name>} by
 * default), so it shows in {@code relock list} and {@link Relock#list(String)} while held.
 *
 * <pre>{@code
 * @Bean
 * LockProvider lockProvider(Relock relock) {
 *   return new RelockLockProvider(relock);
 * }
 * }</pre>
 *
 * <p>ShedLock's contract, as relock keeps it:
 * <ul>
 *   <li>{@link #lock} tries once, without waiting: it returns the lock, or empty if another
 *       instance holds it. The lock is a relock lease of {@code lockAtMostFor}, never renewed, so
 *       Redis ends it then even if the process died.
 *   <li>{@link SimpleLock#unlock()} before {@code lockAtLeastFor} has passed (counted from the
 *       call to {@code lock}) leaves the lock in Redis until then ({@link LockLease#closeAfter}):
 *       it stays, whatever this process does next, closing its {@link Relock} included. After it,
 *       the lock is released at once and gone from the listing.
 *   <li>{@link SimpleLock#extend} and {@link net.javacrumbs.shedlock.core.LockExtender#extendActiveLock}
 *       set the lock's end to {@code lockAtMostFor} from now ({@link LockLease#extend}) and return
 *       a new lock with a new {@code lockAtLeastFor}; the old one is then no longer valid. A lock
 *       that has expired cannot be extended: the result is empty.
 *   <li>Every lock carries relock's fencing token: {@link RelockSimpleLock#fencingToken()}, and
 *       {@link #currentFencingToken()} for a task that runs under it.
 * </ul>
 *
 * <p>Differences from ShedLock's own providers: a lock whose lease ran out before {@code unlock()}
 * is reported (logged as a warning, and the lease's {@code onLost} listeners) rather than
 * silently ignored; lock names must be valid relock names (not blank, at most 1,024 UTF-8 bytes
 * with the prefix). Thread-safe; one provider serves any number of threads and jobs.
 */
public final class RelockLockProvider implements ExtensibleLockProvider {

  /** The prefix of relock lock names when none is given: {@value}. */
  public static final String DEFAULT_NAME_PREFIX = "shedlock:";

  /**
   * The holds each thread took and has not unlocked, newest last, for {@link
   * #currentFencingToken()}: ShedLock runs a task on the thread that locked it. A hold, not a lock
   * object: an extension (made on any thread, by ShedLock's KeepAliveLockProvider say) is the same
   * hold under a new {@code SimpleLock}.
   */
  private static final ThreadLocal<Deque<RelockSimpleLock.Hold>> HELD = ThreadLocal.withInitial(ArrayDeque::new);

  private final Relock relock;
  private final String namePrefix;

  /**
   * A provider whose locks are named {@code shedlock:<ShedLock name>} in relock.
   *
   * @param relock the client that takes the locks; the provider never closes it
   * @throws NullPointerException if {@code relock} is null
   */
  public RelockLockProvider(Relock relock) {
    this(relock, DEFAULT_NAME_PREFIX);
  }

  /**
   * A provider whose locks are named {@code namePrefix + <ShedLock name>} in relock.
   *
   * @param relock the client that takes the locks; the provider never closes it
   * @param namePrefix put before every ShedLock name; may be empty
   * @throws NullPointerException if an argument is null
   */
  public RelockLockProvider(Relock relock, String namePrefix) {
    this.relock = Objects.requireNonNull(relock, "relock");
    this.namePrefix = Objects.requireNonNull(namePrefix, "namePrefix");
  }

  /**
   * Takes the lock if it is free, for {@code lockAtMostFor}; one Redis round trip, no waiting.
   *
   * @param config the ShedLock lock: its name, {@code lockAtMostFor} and {@code lockAtLeastFor}
   * @return the lock, a {@link RelockSimpleLock}; empty if another owner holds it
   * @throws IllegalArgumentException if {@code lockAtMostFor} is negative or under 1 ms, the name
   *     is blank, or the name with the prefix is not a valid relock lock name (over 1,024 UTF-8
   *     bytes); the message names the value
   * @throws io.relock.RelockException if Redis could not be asked within the command timeout
   */
  @Override
  public Optional<SimpleLock> lock(LockConfiguration config) {
    Objects.requireNonNull(config, "config");
    String name = config.getName();
    Duration atMost = RelockSimpleLock.atMost(config.getLockAtMostFor(), name);
    Duration atLeast = config.getLockAtLeastFor();
    DistributedLock lock = relockLock(name);
    long started = System.nanoTime();
    LockLease lease;
    try {
      lease = lock.acquire(Duration.ZERO, atMost);
    } catch (LockTimeoutException busy) {
      return Optional.empty();
    }
    RelockSimpleLock.Hold hold = new RelockSimpleLock.Hold(lease);
    Deque<RelockSimpleLock.Hold> held = HELD.get();
    held.removeIf(h -> !h.isCurrent()); // unlocked on other threads since
    held.addLast(hold);
    return Optional.of(new RelockSimpleLock(hold, name, RelockSimpleLock.untilNanos(started, atLeast)));
  }

  /**
   * The fencing token of the lock the calling thread's task runs under: the lock this provider
   * (or another {@code RelockLockProvider}) most recently gave the thread and that it has not
   * unlocked yet. Pass it with each write the task makes, and let the store refuse a token lower
   * than the highest it has seen (see {@link LockLease#fencingToken()}).
   *
   * @return the token, or empty if the thread holds no lock from a {@code RelockLockProvider}
   */
  public static OptionalLong currentFencingToken() {
    Deque<RelockSimpleLock.Hold> held = HELD.get();
    for (Iterator<RelockSimpleLock.Hold> it = held.descendingIterator(); it.hasNext(); ) {
      RelockSimpleLock.Hold h = it.next();
      if (h.isCurrent()) {
        return OptionalLong.of(h.lease.fencingToken());
      }
      it.remove(); // unlocked on another thread, or lost
    }
    HELD.remove();
    return OptionalLong.empty();
  }

  /** The relock lock behind ShedLock lock {@code name}; a name relock cannot use is refused naming it. */
  private DistributedLock relockLock(String name) {
    if (name.isBlank()) {
      throw new IllegalArgumentException("ShedLock lock name must not be blank: '" + name + "'");
    }
    try {
      return relock.lock(namePrefix + name);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("ShedLock lock name '" + name + "' cannot be a relock lock name (with the"
          + " prefix '" + namePrefix + "'): " + e.getMessage(), e);
    }
  }

  /** {@code hold} was unlocked: the calling thread forgets it (another thread's forgets it when it next looks). */
  static void released(RelockSimpleLock.Hold hold) {
    Deque<RelockSimpleLock.Hold> held = HELD.get();
    held.removeLastOccurrence(hold);
    if (held.isEmpty()) {
      HELD.remove();
    }
  }

  @Override
  public String toString() {
    return "RelockLockProvider[" + namePrefix + "*]";
  }
}

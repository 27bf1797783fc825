package io.relock.stress;

import io.relock.Relock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * Who is inside each lock's critical section right now, across all clients of a run (they share
 * this JVM), and in what role. Holders that may not meet meeting is a violation, unless one of
 * them belongs to a client that was closed (closing a client releases its locks, so its holders may
 * still be finishing).
 *
 * <p>Fencing tokens, compared with those of the holders that entered the same name before (a
 * fenced resource refuses a token lower than the highest it has accepted, and accepts an equal one):
 * <ul>
 *   <li>an exclusive holder or a writer ({@link Role#ALONE}) must have a token strictly above every
 *       earlier exclusive holder's, writer's and reader's: it gets a new serial;
 *   <li>a reader must have a token strictly above every earlier exclusive holder's and writer's, and
 *       at least every earlier reader's: it carries its read epoch's token, a new serial when it
 *       opened the epoch, the same token as the readers it joined otherwise;
 *   <li>permits, held side by side and entered in whatever order their threads run, must each have
 *       a token of their own.
 * </ul>
 */
final class CriticalSections {

  /** What a holder is: each role says whom it may meet inside. */
  enum Role {
    /** An exclusive lock's holder, or a read-write lock's writer: alone. */
    ALONE,
    /** A read-write lock's reader: with other readers, never a writer. */
    READER,
    /** A semaphore's permit: with as many others as the semaphore has permits, less one. */
    PERMIT
  }

  private record Holder(Relock client, Role role, long enteredNanos) {}

  /** Per client and lock name, when that client last reported a lease on the name lost. */
  private final Map<Relock, Map<String, Long>> lostAt = new ConcurrentHashMap<>();
  private final boolean lossesExpected;

  private final Map<String, Map<Object, Holder>> inside = new ConcurrentHashMap<>();
  /** Per name, the highest token an exclusive holder or a writer entered with. */
  private final Map<String, AtomicLong> aloneTokens = new ConcurrentHashMap<>();
  /** Per name, the highest token a reader entered with. */
  private final Map<String, AtomicLong> readerTokens = new ConcurrentHashMap<>();
  private final Map<String, java.util.Set<Long>> permitTokens = new ConcurrentHashMap<>();
  private final StressLog log;
  private final Predicate<Relock> closed;
  private final int permits;

  /**
   * @param permits how many holders a semaphore of the run admits at once
   * @param lossesExpected whether the run's network can end a lease early; then a holder whose
   *     client reported a loss on the name after it entered no longer counts as a holder (its
   *     caller was told: {@code onLost}, {@code isValid()} false), and meeting it is counted, not
   *     a violation. Overlaps among holders nobody told stay violations, and tokens are checked
   *     for all.
   */
  CriticalSections(StressLog log, Predicate<Relock> closed, int permits, boolean lossesExpected) {
    this.log = log;
    this.closed = closed;
    this.permits = permits;
    this.lossesExpected = lossesExpected;
  }

  /** {@code client} reported a lease on {@code lockName} lost (a {@code RelockListener} event). */
  void lost(Relock client, String lockName) {
    lostAt.computeIfAbsent(client, c -> new ConcurrentHashMap<>()).put(lockName, System.nanoTime());
  }

  private boolean toldOfLoss(Holder h, String name) {
    if (!lossesExpected) {
      return false;
    }
    Long at = lostAt.getOrDefault(h.client(), Map.of()).get(name);
    return at != null && at - h.enteredNanos() > 0;
  }

  /** @param token the lease's fencing token, or 0 for a hold that has none (lock() style) */
  void enter(String name, Object holder, Relock client, long token, Role role) {
    Map<Object, Holder> holders = inside.computeIfAbsent(name, n -> new ConcurrentHashMap<>());
    holders.put(holder, new Holder(client, role, System.nanoTime()));
    int live = 0;
    for (Map.Entry<Object, Holder> other : holders.entrySet()) {
      if (closed.test(other.getValue().client()) || closed.test(client)) {
        continue;
      }
      if (other.getKey() != holder && toldOfLoss(other.getValue(), name)) {
        log.count("overlap: met a holder that had been told of its loss");
        continue;
      }
      live++;
      Role theirs = other.getValue().role();
      boolean clash = other.getKey() != holder && switch (role) {
        case ALONE -> true;
        case READER -> theirs != Role.READER;
        case PERMIT -> false;
      };
      if (clash) {
        log.violation(role + " " + holder + " inside '" + name + "' together with " + theirs + " " + other.getKey());
        break;
      }
    }
    if (role == Role.PERMIT && live > permits) {
      log.violation(live + " permits of '" + name + "' held at once, more than its " + permits);
    }
    if (token == 0 || closed.test(client)) {
      return;
    }
    if (role == Role.PERMIT) {
      if (!permitTokens.computeIfAbsent(name, n -> ConcurrentHashMap.newKeySet()).add(token)) {
        log.violation("fencing token " + token + " of '" + name + "' given to two permits");
      }
      return;
    }
    AtomicLong alone = aloneTokens.computeIfAbsent(name, n -> new AtomicLong());
    AtomicLong readers = readerTokens.computeIfAbsent(name, n -> new AtomicLong());
    if (role == Role.READER) {
      long aloneBefore = alone.get();
      long readerBefore = readers.getAndAccumulate(token, Math::max);
      if (token <= aloneBefore) {
        log.violation("fencing token " + token + " of reader of '" + name
            + "' not above the previous writer's or exclusive holder's " + aloneBefore);
      } else if (token < readerBefore) {
        log.violation("fencing token " + token + " of reader of '" + name + "' below the previous reader's "
            + readerBefore);
      }
      return;
    }
    long aloneBefore = alone.getAndAccumulate(token, Math::max);
    long readerBefore = readers.get();
    if (token <= aloneBefore) {
      log.violation("fencing token " + token + " of '" + name + "' not above the previous holder's " + aloneBefore);
    } else if (token <= readerBefore) {
      log.violation("fencing token " + token + " of '" + name + "' not above the previous reader's " + readerBefore);
    }
  }

  void exit(String name, Object holder) {
    inside.get(name).remove(holder);
  }
}

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
 * still be finishing). Fencing tokens must rise from one exclusive holder or writer to the next; a
 * reader's token must not be older than the last write granted; permits, held side by side and
 * entered in whatever order their threads run, must each have a token of their own.
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

  private record Holder(Relock client, Role role) {}

  private final Map<String, Map<Object, Holder>> inside = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> lastToken = new ConcurrentHashMap<>();
  private final Map<String, java.util.Set<Long>> permitTokens = new ConcurrentHashMap<>();
  private final StressLog log;
  private final Predicate<Relock> closed;
  private final int permits;

  /** @param permits how many holders a semaphore of the run admits at once */
  CriticalSections(StressLog log, Predicate<Relock> closed, int permits) {
    this.log = log;
    this.closed = closed;
    this.permits = permits;
  }

  /** @param token the lease's fencing token, or 0 for a hold that has none (lock() style, a read before any write) */
  void enter(String name, Object holder, Relock client, long token, Role role) {
    Map<Object, Holder> holders = inside.computeIfAbsent(name, n -> new ConcurrentHashMap<>());
    holders.put(holder, new Holder(client, role));
    int live = 0;
    for (Map.Entry<Object, Holder> other : holders.entrySet()) {
      if (closed.test(other.getValue().client()) || closed.test(client)) {
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
    AtomicLong last = lastToken.computeIfAbsent(name, n -> new AtomicLong());
    if (role == Role.READER) {
      if (token < last.get()) {
        log.violation("reader of '" + name + "' has token " + token + ", older than the last write's " + last.get());
      }
      return;
    }
    long before = last.getAndAccumulate(token, Math::max);
    if (token <= before) {
      log.violation("fencing token " + token + " of '" + name + "' not above the previous holder's " + before);
    }
  }

  void exit(String name, Object holder) {
    inside.get(name).remove(holder);
  }
}

package io.relock.stress;

import io.relock.Relock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * Who is inside each lock's critical section right now, across all clients of a run (they share
 * this JVM). Two holders at once is a violation, unless the earlier one's client was closed
 * (closing a client releases its locks, so its holders may still be finishing). Leases also check
 * that fencing tokens rise from one holder to the next.
 */
final class CriticalSections {
  private final Map<String, Map<Object, Relock>> inside = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> lastToken = new ConcurrentHashMap<>();
  private final StressLog log;
  private final Predicate<Relock> closed;

  CriticalSections(StressLog log, Predicate<Relock> closed) {
    this.log = log;
    this.closed = closed;
  }

  /** @param token the lease's fencing token, or 0 for a lock()-style hold (which has none) */
  void enter(String name, Object holder, Relock client, long token) {
    Map<Object, Relock> holders = inside.computeIfAbsent(name, n -> new ConcurrentHashMap<>());
    holders.put(holder, client);
    for (Map.Entry<Object, Relock> other : holders.entrySet()) {
      if (other.getKey() != holder && !closed.test(other.getValue()) && !closed.test(client)) {
        log.violation("two holders inside '" + name + "' at once: " + holder + " and " + other.getKey());
        break;
      }
    }
    if (token != 0) {
      long before = lastToken.computeIfAbsent(name, n -> new AtomicLong()).getAndAccumulate(token, Math::max);
      if (token <= before && !closed.test(client)) {
        log.violation("fencing token " + token + " of '" + name + "' not above the previous holder's " + before);
      }
    }
  }

  void exit(String name, Object holder) {
    inside.get(name).remove(holder);
  }
}

package io.relock.torture;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Claim (d): a lock whose holder died is granted again within the lease plus {@link
 * TortureSettings#stuckBound()}. Two kinds of death:
 * <ul>
 *   <li>a worker killed with SIGKILL while holding it: measured from the kill to the first grant of
 *       the lock afterwards, to a surviving worker or to the nemesis's own waiting acquisition (so
 *       that a lock nobody else happened to want is still measured);
 *   <li>a holder that walked away from its fixed lease (abandon-holder runs): the lock must be
 *       granted within the limit after the walk-away, unless nobody wanted it. It is stuck if a
 *       request made before the lease had surely run out waited past that point by more than the
 *       bound without a grant;
 *   <li>every worker, once it stopped (each released its holds and closed its client): the
 *       {@link Leftovers} check reads every lock on every lock server. A lock a majority of them
 *       (the one server, or two Redlock masters of three) still has for one owner is held for
 *       nobody: stuck. A key on a minority of the masters (a release or give-back a master missed)
 *       holds nobody up, but must be gone within the limit. Keys of a worker that had to be
 *       killed because it did not stop are left out: that is a failure of its own.
 * </ul>
 *
 * <p>One more way to leave a lock held for nobody is not relock's: a release the old primary ran
 * after replication was cut (Sentinel failover-hole runs) never reaches the replica that is
 * promoted, which still has the lock for its holder. The holder was told it released, and nobody
 * can get the lock until its lease runs out there. A key left for the token of such a release is
 * counted as an <b>erased release</b>, not as stuck, if it was gone within the limit after the
 * release; otherwise it is stuck.
 */
final class StuckLockCheck {

  /**
   * @param measured dead holders measured: killed or walked-away holders, and the owners of keys
   *     left after the workers stopped
   * @param maxMillis the longest time until such a lock was free again
   * @param leftovers keys left on a lock server after the workers stopped (one per server and lock)
   * @param erasedReleases of them, for a release a failover hole erased (see the class comment)
   */
  record Result(int measured, long maxMillis, int stuck, int leftovers, int erasedReleases, List<String> examples) {}

  private StuckLockCheck() {}

  static Result check(History history, List<Hold> requests, Timeline timeline, Duration lease, Duration bound) {
    long limit = lease.plus(bound).toNanos();
    int measured = 0;
    int stuck = 0;
    long max = 0;
    List<String> examples = new ArrayList<>();
    for (Event kill : history.ofKind(Event.KILLED).toList()) {
      if (kill.lock() == null || !"nemesis".equals(kill.text("reason"))) {
        continue;
      }
      long at = kill.monoNanos();
      long next = nextGrant(requests, kill.lock(), at, kill.text("target"));
      for (Event probe : history.ofKind(Event.PROBE).toList()) {
        if (probe.lock().equals(kill.lock()) && probe.monoNanos() > at && "acquired".equals(probe.text("result"))) {
          next = Math.min(next, probe.monoNanos());
        }
      }
      measured++;
      long millis = millis(next, at);
      max = Math.max(max, millis);
      if (next - at > limit) {
        stuck++;
        if (examples.size() < Checker.EXAMPLES) {
          examples.add("stuck lock " + kill.lock() + ": holder " + kill.text("target") + " killed at " + timeline.at(at)
              + ", " + describe(millis) + " (limit " + limit / 1_000_000 + " ms)");
        }
      }
    }
    for (Hold gone : requests) {
      if (gone.abandoned < 0) {
        continue;
      }
      long at = gone.abandoned;
      long next = nextGrant(requests, gone.lock, at, null);
      long leaseOver = at + lease.toNanos();
      Hold starved = null;
      boolean wanted = false;
      for (Hold r : requests) {
        if (!r.lock.equals(gone.lock) || r == gone || r.sent > leaseOver || (r.resolved >= 0 && r.resolved <= at)) {
          continue;
        }
        wanted = true;
        long waitedFrom = Math.max(r.sent, leaseOver);
        long until = r.resolved >= 0 ? r.resolved : Long.MAX_VALUE;
        if (next > at + limit && until - waitedFrom > bound.toNanos() && (r.acquired < 0 || r.acquired >= next)) {
          starved = r;
        }
      }
      if (!wanted && next > at + limit) {
        continue;  // nobody asked for the lock: nothing to measure
      }
      measured++;
      long millis = millis(next, at);
      max = Math.max(max, millis);
      if (starved != null) {
        stuck++;
        if (examples.size() < Checker.EXAMPLES) {
          examples.add("stuck lock " + gone.lock + ": " + gone + " walked away at " + timeline.at(at) + ", "
              + describe(millis) + " although " + starved + " had asked at " + timeline.at(starved.sent)
              + " (limit " + limit / 1_000_000 + " ms)");
        }
      }
    }
    int leftovers = 0;
    int erasedReleases = 0;
    Set<String> killedClients = killedAtTheStop(history);
    Map<String, List<Event>> byOwner = new LinkedHashMap<>();
    for (Event e : history.ofKind(Event.LEFTOVER).toList()) {
      leftovers++;
      byOwner.computeIfAbsent(e.lock() + " " + e.text("owner"), k -> new ArrayList<>()).add(e);
    }
    for (List<Event> keys : byOwner.values()) {
      Event first = keys.get(0);
      String owner = first.text("owner");
      if (killedClients.stream().anyMatch(c -> owner.startsWith(c + ":"))) {
        continue;
      }
      measured++;
      long gone = 0;
      for (Event k : keys) {
        gone = Math.max(gone, k.number("gone_ms", Long.MAX_VALUE));
      }
      max = Math.max(max, gone);
      long nodes = first.number("nodes", 1);
      boolean majority = keys.size() >= nodes / 2 + 1;
      Hold released = releaseErasedByAHole(requests, timeline, first);
      if (released != null) {
        long goneAt = gone == Long.MAX_VALUE ? Long.MAX_VALUE : first.monoNanos() + gone * 1_000_000;
        if (goneAt - released.releaseSent <= limit) {
          erasedReleases++;
          if (examples.size() < Checker.EXAMPLES) {
            examples.add("release erased by the failover hole on " + first.lock() + ": " + released + " released it at "
                + timeline.at(released.releaseSent) + ", after replication was cut; the promoted replica kept the lock"
                + " for it until " + timeline.at(goneAt) + " (limit " + limit / 1_000_000 + " ms after the release)");
          }
          continue;
        }
      }
      if (majority || gone > limit / 1_000_000) {
        stuck++;
        if (examples.size() < Checker.EXAMPLES) {
          String where = keys.stream().map(k -> k.text("node")).toList() + " of " + nodes + " lock server"
              + (nodes == 1 ? "" : "s");
          examples.add("stuck lock " + first.lock() + ": still held by " + owner + " on " + where
              + " after every worker stopped" + (majority ? " (held for nobody)" : "") + ", "
              + (gone == Long.MAX_VALUE ? "still there " + limit / 1_000_000 + " ms later" : "gone after " + gone + " ms")
              + " (limit " + limit / 1_000_000 + " ms)");
        }
      }
    }
    return new Result(measured, max, stuck, leftovers, erasedReleases, examples);
  }

  /**
   * The hold whose token {@code leftover} has, if its holder released it after a failover's cut of
   * replication and before that failover's kill; else null.
   */
  private static Hold releaseErasedByAHole(List<Hold> requests, Timeline timeline, Event leftover) {
    String token = leftover.text("token");
    for (Hold h : requests) {
      if (!h.wasAcquired() || !h.lock.equals(leftover.lock()) || !Long.toString(h.token).equals(token)
          || !Event.RELEASED.equals(h.outcome)) {
        continue;
      }
      for (Timeline.Failover f : timeline.failovers) {
        if (f.hole() && h.releaseSent > f.cut() && h.releaseSent < f.kill()) {
          return h;
        }
      }
    }
    return null;
  }

  /** The client ids of the workers killed because they did not stop when asked. */
  private static Set<String> killedAtTheStop(History history) {
    Set<String> procs = new HashSet<>();
    history.ofKind(Event.KILLED).filter(e -> "did not stop".equals(e.text("reason")))
        .forEach(e -> procs.add(e.text("target")));
    Set<String> clients = new HashSet<>();
    history.ofKind(Event.WORKER_STARTED).filter(e -> procs.contains(e.proc()))
        .forEach(e -> clients.add(e.text("client")));
    return clients;
  }

  /** The first grant of {@code lock} after {@code after} to a process other than {@code exceptProc}. */
  private static long nextGrant(List<Hold> requests, String lock, long after, String exceptProc) {
    long next = Long.MAX_VALUE;
    for (Hold h : requests) {
      if (h.lock.equals(lock) && h.acquired > after && !h.proc.equals(exceptProc)) {
        next = Math.min(next, h.acquired);
      }
    }
    return next;
  }

  private static long millis(long next, long at) {
    return next == Long.MAX_VALUE ? Long.MAX_VALUE : (next - at) / 1_000_000;
  }

  private static String describe(long millis) {
    return millis == Long.MAX_VALUE ? "never granted again" : "granted again only after " + millis + " ms";
  }
}

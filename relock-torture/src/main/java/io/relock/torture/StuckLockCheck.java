package io.relock.torture;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

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
 *       bound without a grant.
 * </ul>
 */
final class StuckLockCheck {

  record Result(int measured, long maxMillis, int stuck, List<String> examples) {}

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
    return new Result(measured, max, stuck, examples);
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

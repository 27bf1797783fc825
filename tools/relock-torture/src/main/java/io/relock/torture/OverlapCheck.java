package io.relock.torture;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Claim (a): holds of the same lock by different owners whose intervals intersect. Every overlap
 * is counted and shown. Under a fault that keeps a holder from renewing (its process paused, its
 * connection cut, blackholed or slowed, the lock Redis paused, restarted or failed over) an overlap is expected:
 * the lock alone cannot prevent it, fencing has to catch it. An overlap that no such fault
 * explains is a violation in any run, and without faults every overlap is.
 *
 * <p>A read-write lock's two readers may overlap; a reader and a writer, or two writers, may not,
 * and are judged as two holders of an exclusive lock (a semaphore's permits are {@link
 * PermitCheck}'s).
 *
 * <p>Of the two holds, the one granted first in Redis's order (the smaller token; for a reader and
 * a writer see {@link Hold#supersededBy}) lost its lease; the overlap is explained if
 * a fault that can cost that holder its lease was in force between its request and the other's
 * grant, or if its fixed lease had run out by the other's grant.
 *
 * <p>In the Cluster topology, killing a primary explains overlaps only on the locks whose slots it
 * had (the window's target lists them); a slot migration explains none: relock must lose nothing
 * to one.
 *
 * <p>Redlock is built to survive a fault on one master of three, so such a fault explains nothing
 * by itself. An overlap in a Redlock run is explained by a fault on a master in force between the
 * loser's request and the winner's grant only if relock had told the loser its lease was lost
 * ({@code onLost}, or {@code isValid()} false) by the winner's grant, give or take {@link
 * LossCheck#MARGIN} for the scheduling of the two records: its renewals could not reach a
 * majority in time, or a restart erased its hold, and the next holder came after it knew. The
 * exceptions are the control run without the delayed restart, where a restarted master votes for
 * the next holder at once, and a clock step, which expires a master's copy of the hold unnoticed:
 * a hold either erased explains its overlap, told or not.
 */
final class OverlapCheck {
  private static final Set<String> HOLDER_FAULTS = Set.of(Fault.PAUSE_HOLDER.id, Fault.CUT_HOLDER.id,
      Fault.BLACKHOLE_HOLDER.id, Fault.BLACKHOLE_RESUME.id, Fault.DELAY.id);
  private static final Set<String> REDIS_FAULTS = Set.of(Fault.PAUSE_REDIS.id, Fault.RESTART_REDIS.id,
      Fault.FAILOVER.id, Fault.FAILOVER_HOLE.id);
  private static final Set<String> MASTER_FAULTS = Set.of(Fault.PARTITION_MASTER.id, Fault.PAUSE_MASTER.id,
      Fault.RESTART_MASTER.id, Fault.RESTART_MASTER_NODELAY.id, Fault.CLOCK_STEP_MASTER.id);
  /** Slack for a fixed lease: relock's own clock-drift allowance is 1% of the lease plus 2 ms. */
  private static final long FIXED_LEASE_SLACK_NANOS = 50_000_000L;

  record Result(int pairs, int unexplained, List<String> examples) {}

  private OverlapCheck() {}

  static Result check(List<Hold> holds, Timeline timeline, Duration lease) {
    int pairs = 0;
    int unexplained = 0;
    List<String> examples = new ArrayList<>();
    List<String> expected = new ArrayList<>();
    // holds are ordered by grant time: only later grants can start inside an earlier interval
    for (int i = 0; i < holds.size(); i++) {
      Hold a = holds.get(i);
      for (int j = i + 1; j < holds.size() && holds.get(j).acquired < a.end; j++) {
        Hold b = holds.get(j);
        if (!b.lock.equals(a.lock) || (a.isRead() && b.isRead())) {
          continue;
        }
        pairs++;
        Hold loser = a.supersededBy(b) ? a : b.supersededBy(a) ? b : a.token < b.token ? a : b;
        Hold winner = loser == a ? b : a;
        String why = explanation(loser, winner, timeline, lease.toNanos());
        String text = "overlap on " + a.lock + ": " + a + " held it " + timeline.at(a.acquired) + " to "
            + timeline.at(a.end) + " and " + b + " got it at " + timeline.at(b.acquired);
        if (why == null) {
          unexplained++;
          if (examples.size() < Checker.EXAMPLES) {
            examples.add("unexplained " + text + "; no fault kept " + loser.proc + " from renewing");
          }
        } else if (expected.size() < Checker.EXAMPLES) {
          expected.add(text + " (" + why + ")");
        }
      }
    }
    for (String e : expected) {
      if (examples.size() < Checker.EXAMPLES) {
        examples.add(e);
      }
    }
    return new Result(pairs, unexplained, examples);
  }

  /** What may have cost {@code loser} its lease before {@code winner}'s grant, or null if nothing in the history did. */
  static String explanation(Hold loser, Hold winner, Timeline timeline, long lease) {
    for (Timeline.Window w : timeline.windows) {
      boolean hits = (HOLDER_FAULTS.contains(w.fault()) && (w.target().equals(loser.proc) || w.target().equals("all")))
          || REDIS_FAULTS.contains(w.fault())
          || (Fault.KILL_PRIMARY.id.equals(w.fault()) && List.of(w.target().split(",")).contains(loser.lock));
      if (hits && w.start() < winner.acquired && w.end() > loser.sent) {
        return w.fault() + " " + w.target() + " at " + timeline.at(w.start());
      }
    }
    if (loser.fixedLease && winner.acquired > loser.sent + lease - FIXED_LEASE_SLACK_NANOS) {
      return "the fixed lease of " + loser + " had run out";
    }
    return redlockExplanation(loser, winner, timeline);
  }

  private static String redlockExplanation(Hold loser, Hold winner, Timeline timeline) {
    Timeline.Erasure erased = timeline.erasureOf(loser);
    if (erased != null && !erased.guarded() && erased.at() < winner.acquired) {
      return erased.cause() + " at " + timeline.at(erased.at()) + " erased it there, and nothing kept that master"
          + " from voting for the next holder at once";
    }
    long told = loser.toldAt();
    if (told == Long.MAX_VALUE || told > winner.acquired + LossCheck.MARGIN.toNanos()) {
      return null;
    }
    for (Timeline.Window w : timeline.windows) {
      if (MASTER_FAULTS.contains(w.fault()) && w.start() < winner.acquired && w.end() > loser.sent) {
        return w.fault() + " " + w.target() + " at " + timeline.at(w.start()) + ", and relock had told " + loser.id
            + " that its lease was lost at " + timeline.at(told);
      }
    }
    return null;
  }
}

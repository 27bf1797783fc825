package io.relock.torture;

import java.util.ArrayList;
import java.util.List;

/**
 * What the failovers of a Sentinel run did to the holds (nothing to report in a single-server run).
 *
 * <p>A hold is <b>erased</b> by a failover hole when its request was sent after replication was
 * cut, it was granted before the primary was killed, and its holder still acted as the holder when
 * the primary died (see {@link Timeline#erasedBy}): the promoted replica never saw it, so the lock
 * is free there although its holder believes it holds it. Such a holder must be told (claim c):
 * {@link LossCheck} counts an erased hold as lost when another holder was granted the lock during
 * its interval, or when its {@code close()} reached the new primary. Here the erased holds are
 * counted with how many were told (the {@code onLost} listener, {@code isValid()} false before
 * {@code close()}, or {@code LockLostException} from it) and how many overlapped a later holder.
 *
 * <p>With replicaAcks an acquisition counts only once a replica acknowledged it, which no replica
 * can while replication is cut: a hold whose request was sent after the cut and that was granted
 * before the kill is then a violation of relock's replicaAcks claim (the run fails). Acquisitions
 * that failed instead (relock's {@code RelockException}: too few replicas acknowledged, or no
 * primary during the failover) are failed attempts, counted, not errors.
 */
final class FailoverCheck {

  /**
   * @param failovers primaries killed
   * @param holes of them, with replication cut first
   * @param maxFailoverMillis longest time from a kill to the sentinels agreeing on a new primary
   * @param erased holds a hole erased
   * @param erasedTold of them, whose holder was told
   * @param erasedNoticed of them, whose onLost listener ran
   * @param erasedAtClose of them, whose close() threw LockLostException
   * @param erasedUnreachable of them, not told, whose close() failed with RelockException (no primary answered)
   * @param erasedOverlapped of them, during which another holder was granted the lock
   * @param grantedInHole holds requested after a cut and granted before the kill (erased or not)
   * @param acquireErrors acquisitions that failed with RelockException (replicaAcks, no primary)
   * @param ackRefusals of them, because too few replicas acknowledged them in time (relock released them)
   * @param acquireTimeouts acquisitions that timed out
   */
  record Result(int failovers, int holes, long maxFailoverMillis, long totalFailoverMillis, int erased, int erasedTold,
      int erasedNoticed, int erasedAtClose, int erasedUnreachable, int erasedOverlapped, int grantedInHole,
      int acquireErrors, int ackRefusals, int acquireTimeouts, List<String> examples) {

    /** Holds granted without a replica's acknowledgement although replicaAcks asked for one. */
    int ackViolations(int replicaAcks) {
      return replicaAcks > 0 ? grantedInHole : 0;
    }
  }

  private FailoverCheck() {}

  static Result check(History history, List<Hold> holds, Timeline timeline, int replicaAcks) {
    int errors = (int) history.ofKind(Event.ACQUIRE_FAILED).count();
    int refusals = (int) history.ofKind(Event.ACQUIRE_FAILED)
        .filter(e -> String.valueOf(e.text("error")).contains("(replicaAcks)")).count();
    int timeouts = (int) history.ofKind(Event.ACQUIRE_TIMEOUT).count();
    if (timeline.failovers.isEmpty()) {
      return new Result(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, errors, refusals, timeouts, List.of());
    }
    long maxMillis = 0;
    long totalMillis = 0;
    int holes = 0;
    for (Timeline.Failover f : timeline.failovers) {
      maxMillis = Math.max(maxMillis, f.millis() < 0 ? Long.MAX_VALUE : f.millis());
      totalMillis += Math.max(0, f.millis());
      holes += f.hole() ? 1 : 0;
    }
    int erased = 0;
    int told = 0;
    int noticed = 0;
    int atClose = 0;
    int unreachable = 0;
    int overlapped = 0;
    int inHole = 0;
    List<String> examples = new ArrayList<>();
    for (Hold h : holds) {
      Timeline.Failover granted = null;
      for (Timeline.Failover f : timeline.failovers) {
        if (f.hole() && h.sent > f.cut() && h.acquired < f.kill()) {
          granted = f;
        }
      }
      if (granted == null) {
        continue;
      }
      inHole++;
      if (replicaAcks > 0 && examples.size() < Checker.EXAMPLES) {
        examples.add("replicaAcks violated on " + h.lock + ": " + h + " asked at " + timeline.at(h.sent)
            + ", after replication was cut at " + timeline.at(granted.cut()) + ", and was granted at "
            + timeline.at(h.acquired) + ", before the primary was killed at " + timeline.at(granted.kill()));
      }
      Timeline.Failover f = timeline.erasedBy(h);
      if (f == null) {
        continue;
      }
      erased++;
      boolean wasTold = h.lostNotice >= 0 || Event.RELEASE_LOST.equals(h.outcome)
          || Boolean.FALSE.equals(h.validAtRelease);
      told += wasTold ? 1 : 0;
      noticed += h.lostNotice >= 0 ? 1 : 0;
      atClose += Event.RELEASE_LOST.equals(h.outcome) ? 1 : 0;
      unreachable += !wasTold && Event.RELEASE_FAILED.equals(h.outcome) ? 1 : 0;
      Hold next = null;
      for (Hold other : holds) {
        if (other != h && other.lock.equals(h.lock) && other.acquired > h.acquired && other.acquired < h.end) {
          next = other;
          break;
        }
      }
      overlapped += next != null ? 1 : 0;
      if (replicaAcks == 0 && examples.size() < Checker.EXAMPLES) {
        examples.add("erased by the failover hole on " + h.lock + ": " + h + " granted at " + timeline.at(h.acquired)
            + " (replication cut at " + timeline.at(f.cut()) + "), primary killed at " + timeline.at(f.kill())
            + " while it held the lock"
            + (next == null ? "" : ", " + next + " granted it at " + timeline.at(next.acquired))
            + "; holder " + (wasTold ? "told" : "not told") + " (onLost " + (h.lostNotice >= 0 ? "ran" : "never ran")
            + ", close() ended in " + h.outcome + ")");
      }
    }
    return new Result(timeline.failovers.size(), holes, maxMillis, totalMillis, erased, told, noticed, atClose,
        unreachable, overlapped, inHole, errors, refusals, timeouts, examples);
  }
}

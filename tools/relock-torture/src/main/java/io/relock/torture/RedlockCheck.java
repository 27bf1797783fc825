package io.relock.torture;

import java.util.ArrayList;
import java.util.List;

/**
 * What the faults of a Redlock run did to the holds (nothing to report in other runs).
 *
 * <p>A hold is <b>erased</b> when the restart of a master without its data, or a step of its clock
 * that expired its keys, left its lock on fewer than a majority of the masters while its holder
 * still acted as the holder (see {@link Timeline#erasureOf}). Its holder must be told (claim c; {@link LossCheck} counts it lost). The
 * delayed restart is there so that nobody else is granted the lock before that: an erased hold
 * whose lock went to another holder before relock told it (and, for a fixed lease, before that
 * lease ran out) is <b>overlapped before told</b>. That fails a run with the delay ({@link
 * OverlapCheck} finds nothing to explain the overlap) and is what the control run without the
 * delay shows. Also counted: the faults by kind, and the acquisitions
 * that failed with {@code RelockException} (fewer than a majority of the masters could take part).
 */
final class RedlockCheck {

  /**
   * @param partitions masters cut off from every worker
   * @param pauses masters paused
   * @param restarts masters restarted without their data, with relock's delayed restart
   * @param controlRestarts of them, in the control, without the delay
   * @param clockSteps masters whose clock was stepped forward
   * @param erased holds a restart erased
   * @param erasedTold of them, whose holder was told (onLost, isValid() false, or LockLostException)
   * @param erasedUnreachable of them, not told, whose close() failed with RelockException
   * @param erasedOverlapped of them, during which another holder was granted the lock
   * @param overlappedBeforeTold of those, where the other holder was granted it before relock told the erased
   *     one (or its fixed lease ran out)
   * @param acquireErrors acquisitions that failed with RelockException
   */
  record Result(int partitions, int pauses, int restarts, int controlRestarts, int clockSteps, int erased, int erasedTold,
      int erasedUnreachable, int erasedOverlapped, int overlappedBeforeTold, int acquireErrors, List<String> examples) {

    static final Result NONE = new Result(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, List.of());
  }

  private RedlockCheck() {}

  static Result check(History history, List<Hold> holds, Timeline timeline, java.time.Duration lease) {
    int partitions = count(timeline, Fault.PARTITION_MASTER);
    int pauses = count(timeline, Fault.PAUSE_MASTER);
    int control = count(timeline, Fault.RESTART_MASTER_NODELAY);
    int restarts = count(timeline, Fault.RESTART_MASTER) + control;
    int errors = (int) history.ofKind(Event.ACQUIRE_FAILED).count();
    int erased = 0;
    int told = 0;
    int unreachable = 0;
    int overlapped = 0;
    int beforeTold = 0;
    List<String> examples = new ArrayList<>();
    for (Hold h : holds) {
      Timeline.Erasure e = timeline.erasureOf(h);
      if (e == null) {
        continue;
      }
      erased++;
      boolean wasTold = h.toldAt() != Long.MAX_VALUE || Event.RELEASE_LOST.equals(h.outcome);
      told += wasTold ? 1 : 0;
      unreachable += !wasTold && Event.RELEASE_FAILED.equals(h.outcome) ? 1 : 0;
      Hold next = null;
      for (Hold other : holds) {
        if (other != h && other.lock.equals(h.lock) && other.acquired > e.at() && other.acquired < h.end) {
          next = other;
          break;
        }
      }
      if (next == null) {
        continue;
      }
      overlapped++;
      long knew = h.fixedLease ? Math.min(h.toldAt(), h.sent + lease.toNanos()) : h.toldAt();
      boolean early = next.acquired < knew;
      beforeTold += early ? 1 : 0;
      if (examples.size() < Checker.EXAMPLES) {
        examples.add("erased by " + e.cause() + " on "
            + h.lock + ": " + h + " still held it at " + timeline.at(e.at()) + ", " + next + " was granted it at "
            + timeline.at(next.acquired) + ", " + (knew == Long.MAX_VALUE ? "the holder was told only by close()"
            : (early ? "before" : "after") + " the holder knew at " + timeline.at(knew)));
      }
    }
    return new Result(partitions, pauses, restarts, control, count(timeline, Fault.CLOCK_STEP_MASTER), erased, told, unreachable, overlapped, beforeTold, errors,
        examples);
  }

  private static int count(Timeline timeline, Fault f) {
    return (int) timeline.windows.stream().filter(w -> w.fault().equals(f.id)).count();
  }
}

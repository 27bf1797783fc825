package io.relock.torture;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Claim (c): a holder whose lease was lost is told. A hold counts as lost when the history proves
 * it, whatever relock said:
 * <ul>
 *   <li>a newer token of the same lock was granted while it still acted as the holder (for a
 *       read-write lock, a hold of a lane that excludes its own, see {@link Hold#supersededBy};
 *       never for a semaphore's permit, which other permits do not exclude);
 *   <li>it had a fixed lease and its interval outlasted the lease;
 *   <li>a fault that stops renewals (its process paused, its connections cut or blackholed, the
 *       lock Redis paused) lasted a lease or more inside its interval;
 *   <li>a failover hole erased it (Sentinel topology; see {@link Timeline#erasedBy}) and its
 *       {@code close()} reached the new primary (it did not end in {@code RelockException}): the
 *       lock it released was not there. An erased hold whose {@code close()} could not reach the
 *       new primary counts only through the first rule, for the reason restarts do below;
 *   <li>the restart of a Redlock master without its data erased it (its lock was left on fewer
 *       than a majority of the masters; see {@link Timeline#erasureOf}) and its {@code close()}
 *       did not end in {@code RelockException}: relock must find it lost, by a renewal or at the
 *       release, which no longer reaches a majority holding it. As with a failover hole, a
 *       release that could not reach the masters counts only through the first rule.
 * </ul>
 * A restart of the lock Redis loses every lock, but counts only through the first rule (someone
 * else got the lock): a holder whose lock vanished while nobody else took it, and whose release
 * then failed because its connection was still down, cannot be told and was not harmed.
 * The time allowance {@link #MARGIN} covers the latency a combined run may add to a renewal that
 * was already on its way when the fault began.
 *
 * <p>Three signals can tell the holder: the {@code onLost} listener, {@code isValid()} false before
 * {@code close()}, and {@code close()} throwing {@code LockLostException}. A lost hold is counted
 * unreported if {@code close()} did not throw {@code LockLostException}, or if relock had already
 * judged the lease invalid by its own clock ({@code isValid()} false) yet never ran the listener.
 * Holds whose process was killed are not judged: nobody is left to tell.
 */
final class LossCheck {
  static final Duration MARGIN = Duration.ofMillis(500);
  private static final Set<String> STOPS_RENEWALS =
      Set.of(Fault.PAUSE_HOLDER.id, Fault.CUT_HOLDER.id, Fault.BLACKHOLE_HOLDER.id, Fault.BLACKHOLE_RESUME.id);

  record Result(int lost, int noticed, int invalidBeforeClose, int lostAtClose, int unreported,
      List<String> examples) {}

  private LossCheck() {}

  static Result check(List<Hold> holds, Timeline timeline, Duration lease) {
    long leaseNanos = lease.toNanos();
    long margin = MARGIN.toNanos();
    int lost = 0;
    int noticed = 0;
    int invalid = 0;
    int atClose = 0;
    int unreported = 0;
    List<String> examples = new ArrayList<>();
    for (Hold h : holds) {
      if (h.killed >= 0 || h.outcome == null) {
        continue;
      }
      String why = whyLost(h, holds, timeline, leaseNanos, margin);
      if (why == null) {
        continue;
      }
      lost++;
      boolean notice = h.lostNotice >= 0;
      boolean notValid = Boolean.FALSE.equals(h.validAtRelease);
      boolean exception = Event.RELEASE_LOST.equals(h.outcome);
      noticed += notice ? 1 : 0;
      invalid += notValid ? 1 : 0;
      atClose += exception ? 1 : 0;
      if (!exception || (notValid && !notice)) {
        unreported++;
        if (examples.size() < Checker.EXAMPLES) {
          examples.add("unreported loss on " + h.lock + ": " + h + " was lost (" + why + ") but close() ended in "
              + h.outcome + ", onLost " + (notice ? "ran" : "never ran") + ", isValid() before close "
              + h.validAtRelease);
        }
      }
    }
    return new Result(lost, noticed, invalid, atClose, unreported, examples);
  }

  /** Why {@code h} must have lost its lease, or null if the history does not prove it. */
  private static String whyLost(Hold h, List<Hold> holds, Timeline timeline, long lease, long margin) {
    // A newer token was granted later in Redis's own order; if it was granted before h called
    // close(), h's lock was gone by then. Token order rather than the recorded grant times, which
    // a pause between a grant and its record can shift. For the lock family, a hold whose kind
    // excludes h's (see Hold#supersededBy); a permit is proved lost only by the rules below.
    for (Hold other : holds) {
      if (h.supersededBy(other) && other.acquired < h.end) {
        return other + " was granted the lock by " + timeline.at(other.acquired);
      }
    }
    Timeline.Failover hole = timeline.erasedBy(h);
    if (hole != null && !Event.RELEASE_FAILED.equals(h.outcome)) {
      return "a failover hole erased it: granted after replication was cut at " + timeline.at(hole.cut())
          + ", still held when the primary was killed at " + timeline.at(hole.kill());
    }
    Timeline.Erasure erasure = timeline.erasureOf(h);
    if (erasure != null && !Event.RELEASE_FAILED.equals(h.outcome)) {
      return "the restart of " + erasure.master() + " without its data at " + timeline.at(erasure.at())
          + " erased it: its lock was left on fewer than a majority of the masters";
    }
    if (h.fixedLease && h.end - h.acquired > lease + margin) {
      return "its fixed lease ran out before " + timeline.at(h.end);
    }
    for (Timeline.Window w : timeline.windows) {
      boolean stopsRenewals = (STOPS_RENEWALS.contains(w.fault()) && w.target().equals(h.proc))
          || w.fault().equals(Fault.PAUSE_REDIS.id);
      if (stopsRenewals && w.start() >= h.acquired && w.end() <= h.end && w.length() >= lease + margin) {
        return w.fault() + " " + w.target() + " from " + timeline.at(w.start()) + " to " + timeline.at(w.end());
      }
    }
    return null;
  }
}

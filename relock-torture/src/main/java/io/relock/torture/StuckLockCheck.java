package io.relock.torture;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Claim (d): a lock whose holder was killed is granted again within the lease plus {@link
 * TortureSettings#stuckBound()}. Measured from the moment the nemesis sent SIGKILL to the first
 * grant of that lock afterwards, to a surviving worker or to the nemesis's own waiting acquisition
 * (so that a lock nobody happened to want is still measured).
 */
final class StuckLockCheck {

  record Result(int measured, long maxMillis, int stuck, List<String> examples) {}

  private StuckLockCheck() {}

  static Result check(History history, List<Hold> holds, Timeline timeline, Duration limit) {
    int measured = 0;
    int stuck = 0;
    long max = 0;
    List<String> examples = new ArrayList<>();
    for (Event kill : history.ofKind(Event.KILLED).toList()) {
      if (kill.lock() == null || !"nemesis".equals(kill.text("reason"))) {
        continue;
      }
      long at = kill.monoNanos();
      String victim = kill.text("target");
      long next = Long.MAX_VALUE;
      for (Hold h : holds) {
        if (h.lock.equals(kill.lock()) && h.acquired > at && !h.proc.equals(victim)) {
          next = Math.min(next, h.acquired);
        }
      }
      for (Event probe : history.ofKind(Event.PROBE).toList()) {
        if (probe.lock().equals(kill.lock()) && probe.monoNanos() > at && "acquired".equals(probe.text("result"))) {
          next = Math.min(next, probe.monoNanos());
        }
      }
      measured++;
      long millis = next == Long.MAX_VALUE ? Long.MAX_VALUE : (next - at) / 1_000_000;
      max = Math.max(max, millis);
      if (millis > limit.toMillis()) {
        stuck++;
        if (examples.size() < Checker.EXAMPLES) {
          examples.add("stuck lock " + kill.lock() + ": holder " + victim + " killed at " + timeline.at(at) + ", "
              + (millis == Long.MAX_VALUE ? "never granted again" : "granted again only after " + millis + " ms")
              + " (limit " + limit.toMillis() + " ms)");
        }
      }
    }
    return new Result(measured, max, stuck, examples);
  }
}

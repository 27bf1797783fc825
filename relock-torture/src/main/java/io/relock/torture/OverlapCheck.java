package io.relock.torture;

import java.util.ArrayList;
import java.util.List;

/**
 * Claim (a): holds of the same lock by different owners whose intervals intersect. Zero is
 * required without faults; under faults that outlast a lease such overlaps are expected (the
 * lock alone cannot prevent them) and are counted and shown, not hidden.
 */
final class OverlapCheck {

  record Result(int pairs, List<String> examples) {}

  private OverlapCheck() {}

  static Result check(List<Hold> holds, Timeline timeline) {
    int pairs = 0;
    List<String> examples = new ArrayList<>();
    // holds are ordered by grant time: only later grants can start inside an earlier interval
    for (int i = 0; i < holds.size(); i++) {
      Hold a = holds.get(i);
      for (int j = i + 1; j < holds.size() && holds.get(j).acquired < a.end; j++) {
        Hold b = holds.get(j);
        if (b.lock.equals(a.lock)) {
          pairs++;
          if (examples.size() < Checker.EXAMPLES) {
            examples.add("overlap on " + a.lock + ": " + a + " held it " + timeline.at(a.acquired) + " to "
                + timeline.at(a.end) + " and " + b + " got it at " + timeline.at(b.acquired));
          }
        }
      }
    }
    return new Result(pairs, examples);
  }
}

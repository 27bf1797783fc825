package io.relock.torture;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Claims (a) and (b) for a semaphore of {@code permits} permits, where several holders at once are
 * the point and only one more than {@code permits} is a violation.
 *
 * <p>(a) At each grant, the holds of the same semaphore whose interval contains it are counted; if
 * they and the new one are more than {@code permits}, the grant is an <b>excess</b> (counted in the
 * table's overlaps). Redis grants a permit only while fewer than {@code permits} leases are live, so
 * of those holders, at least as many as the excess must have lost their permit: the excess is
 * explained if at least that many of them have an explanation of {@link OverlapCheck} against the
 * new holder (a fault that could cost them their lease, or a fixed lease run out). Without faults
 * every excess is a violation.
 *
 * <p>(b) Token order: a permit asked for after another was granted gets a larger token (every
 * permit's token is larger than every earlier one of the name), checked as for an exclusive lock.
 * And the store ({@code permit_enter.lua}) never lets more than {@code permits} holders in at once:
 * a holder counts as inside from the moment its entry came back admitted to the moment it sent its
 * leave, if the leave was accepted (a holder dropped by a newer one is refused at its leave). That
 * interval lies within the store's own (entry processed to leave processed), so more than {@code
 * permits} of them at one moment would be holders the store had inside at once: a violation. A
 * holder's entry refused or its leave refused counts as a stale operation refused.
 */
final class PermitCheck {

  private PermitCheck() {}

  static OverlapCheck.Result overlaps(List<Hold> holds, Timeline timeline, Duration lease, int permits) {
    int excess = 0;
    int unexplained = 0;
    List<String> examples = new ArrayList<>();
    List<String> expected = new ArrayList<>();
    for (Hold h : holds) {
      List<Hold> holding = holds.stream()
          .filter(o -> o != h && o.lock.equals(h.lock) && o.acquired <= h.acquired && o.end > h.acquired).toList();
      int over = holding.size() + 1 - permits;
      if (over <= 0) {
        continue;
      }
      excess++;
      List<String> why = new ArrayList<>();
      for (Hold o : holding) {
        Hold loser = o.token < h.token ? o : h;
        String because = OverlapCheck.explanation(loser, loser == o ? h : o, timeline, lease.toNanos());
        if (because != null) {
          why.add(loser + ": " + because);
        }
      }
      String text = (holding.size() + 1) + " holders of " + h.lock + " (" + permits + " permits) when " + h
          + " got a permit at " + timeline.at(h.acquired) + ": " + holding;
      if (why.size() < over) {
        unexplained++;
        if (examples.size() < Checker.EXAMPLES) {
          examples.add("unexplained excess: " + text + "; only " + why.size() + " of them could have lost their"
              + " permit to a fault");
        }
      } else if (expected.size() < Checker.EXAMPLES) {
        expected.add("excess: " + text + " (" + String.join("; ", why) + ")");
      }
    }
    for (String e : expected) {
      if (examples.size() < Checker.EXAMPLES) {
        examples.add(e);
      }
    }
    return new OverlapCheck.Result(excess, unexplained, examples);
  }

  /** One holder inside the store, from its admitted entry to its accepted leave. */
  private record Inside(Hold hold, long from, long to) {}

  static FencingCheck.Result fencing(List<Hold> holds, Timeline timeline, int permits) {
    List<String> examples = new ArrayList<>();
    int inversions = 0;
    int crowded = 0;
    int refused = 0;
    for (String lock : holds.stream().map(h -> h.lock).distinct().toList()) {
      List<Hold> byGrant = holds.stream().filter(h -> h.lock.equals(lock)).toList();
      inversions += FencingCheck.inversions(byGrant, timeline, examples);
      List<Inside> inside = new ArrayList<>();
      for (Hold h : byGrant) {
        if (h.read != null && "ok".equals(h.read.text("fenced")) && h.write != null
            && "accepted".equals(h.write.text("fenced"))) {
          inside.add(new Inside(h, h.read.monoNanos(), h.write.number("sent", h.write.monoNanos())));
        }
      }
      inside.sort(Comparator.comparingLong(Inside::from));
      for (Inside in : inside) {
        List<Inside> with = inside.stream().filter(o -> o.from() <= in.from() && o.to() > in.from()).toList();
        if (with.size() > permits) {
          crowded++;
          if (examples.size() < Checker.EXAMPLES) {
            examples.add("fenced excess on " + lock + ": " + with.size() + " holders inside the store at "
                + timeline.at(in.from()) + " (" + permits + " permits): "
                + with.stream().map(Inside::hold).toList());
          }
        }
      }
    }
    for (Hold h : holds) {
      if ((h.read != null && "refused".equals(h.read.text("fenced")))
          || (h.write != null && "refused".equals(h.write.text("fenced")))) {
        refused++;
      }
    }
    return new FencingCheck.Result(inversions, crowded, 0, refused, examples);
  }
}

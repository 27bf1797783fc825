package io.relock.torture;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Claim (b): token order is never violated, so the fenced counter never accepts a stale holder's
 * write. Three ways it could be, all counted as violations:
 * <ul>
 *   <li>token inversion: a hold asked for the lock after another had been granted it, yet got a
 *       token that is not larger (relock's job, also across Redis restarts);
 *   <li>stale write accepted: a write accepted although a newer token had already read or written
 *       the counter before the write was sent (the store's job, checked from the workers' side);
 *   <li>log disorder: the store's log of accepted writes is not in strictly increasing token order.
 * </ul>
 * Also counts the stale reads and writes the fenced counter refused: fencing at work.
 */
final class FencingCheck {

  record Result(int tokenInversions, int staleAccepted, int logDisorder, int staleRefused, List<String> examples) {
    int violations() {
      return tokenInversions + staleAccepted + logDisorder;
    }
  }

  private FencingCheck() {}

  static Result check(List<Hold> holds, Map<String, FencedStore.Counters> store, Timeline timeline) {
    List<String> examples = new ArrayList<>();
    int inversions = 0;
    int staleAccepted = 0;
    int refused = 0;
    for (String lock : holds.stream().map(h -> h.lock).distinct().toList()) {
      List<Hold> byGrant = holds.stream().filter(h -> h.lock.equals(lock)).toList();
      inversions += inversions(byGrant, timeline, examples);
      staleAccepted += staleAccepted(byGrant, timeline, examples);
    }
    for (Hold h : holds) {
      if (h.read != null && "refused".equals(h.read.text("fenced"))) {
        refused++;
      } else if (h.write != null && "refused".equals(h.write.text("fenced"))) {
        refused++;
      }
    }
    int disorder = 0;
    for (Map.Entry<String, FencedStore.Counters> e : store.entrySet()) {
      long previous = Long.MIN_VALUE;
      for (FencedStore.LoggedWrite w : e.getValue().fencedLog()) {
        if (w.token() <= previous) {
          disorder++;
          if (examples.size() < Checker.EXAMPLES) {
            examples.add("store log of " + e.getKey() + ": write of " + w.hold() + " with token " + w.token()
                + " accepted after token " + previous);
          }
        }
        previous = Math.max(previous, w.token());
      }
    }
    return new Result(inversions, staleAccepted, disorder, refused, examples);
  }

  private static int inversions(List<Hold> byGrant, Timeline timeline, List<String> examples) {
    List<Hold> bySent = new ArrayList<>(byGrant);
    bySent.sort(Comparator.comparingLong(h -> h.sent));
    int found = 0;
    int i = 0;
    Hold max = null;
    for (Hold b : bySent) {
      while (i < byGrant.size() && byGrant.get(i).acquired < b.sent) {
        Hold a = byGrant.get(i++);
        if (max == null || a.token > max.token) {
          max = a;
        }
      }
      if (max != null && b.token <= max.token) {
        found++;
        if (examples.size() < Checker.EXAMPLES) {
          examples.add("token inversion on " + b.lock + ": " + b + " asked at " + timeline.at(b.sent) + ", after "
              + max + " was granted at " + timeline.at(max.acquired));
        }
      }
    }
    return found;
  }

  /** A fenced operation the store acknowledged: an accepted read or write. */
  private record Ack(long at, long token) {}

  private static int staleAccepted(List<Hold> holds, Timeline timeline, List<String> examples) {
    List<Ack> acks = new ArrayList<>();
    List<Hold> writers = new ArrayList<>();
    for (Hold h : holds) {
      if (h.read != null && "ok".equals(h.read.text("fenced"))) {
        acks.add(new Ack(h.read.monoNanos(), h.token));
      }
      if (h.write != null && "accepted".equals(h.write.text("fenced"))) {
        acks.add(new Ack(h.write.monoNanos(), h.token));
        writers.add(h);
      }
    }
    acks.sort(Comparator.comparingLong(Ack::at));
    writers.sort(Comparator.comparingLong(h -> h.write.number("sent", h.write.monoNanos())));
    int found = 0;
    int i = 0;
    long maxToken = Long.MIN_VALUE;
    for (Hold w : writers) {
      long sent = w.write.number("sent", w.write.monoNanos());
      while (i < acks.size() && acks.get(i).at() < sent) {
        maxToken = Math.max(maxToken, acks.get(i++).token());
      }
      if (maxToken > w.token) {
        found++;
        if (examples.size() < Checker.EXAMPLES) {
          examples.add("stale write accepted on " + w.lock + ": " + w + " wrote at " + timeline.at(sent)
              + " after token " + maxToken + " had been acknowledged");
        }
      }
    }
    return found;
  }
}

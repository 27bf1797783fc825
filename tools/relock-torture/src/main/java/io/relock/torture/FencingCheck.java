package io.relock.torture;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Claim (b): token order is never violated, so the fenced counter never accepts a stale holder's
 * operation. Three ways it could be, all counted as violations:
 * <ul>
 *   <li>token inversion: a hold asked for the lock after another had been granted it, yet got a
 *       token that breaks the order relock promises (relock's job, also across Redis restarts);
 *   <li>stale accepted: an operation the store accepted although an operation with a higher token
 *       had already been acknowledged before it was sent (the store's job, checked from the
 *       workers' side);
 *   <li>log disorder: the store's log of accepted writes is not in strictly increasing token order.
 * </ul>
 * Also counts the stale reads and writes the fenced counter refused: fencing at work.
 *
 * <p>The store applies one rule to every operation (see {@code read.lua}): it refuses a token lower
 * than the highest it has accepted and accepts an equal one. The token order that makes this rule
 * enough: an exclusive holder or a writer asked for after any hold was granted gets a strictly
 * larger token than that hold's. A reader asked for after a writer was granted gets a strictly
 * larger token than the writer's (it opens a read epoch, a new serial); asked for after a reader
 * was granted, a token at least that reader's (it joins that reader's epoch, same token, or opens
 * a later one). Judged as stale: an exclusive holder's or writer's write, and a reader's read (the
 * only thing a reader does with the store), each against every operation acknowledged before it
 * was sent, reads and writes of every role alike.
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

  static int inversions(List<Hold> byGrant, Timeline timeline, List<String> examples) {
    List<Hold> bySent = new ArrayList<>(byGrant);
    bySent.sort(Comparator.comparingLong(h -> h.sent));
    int found = 0;
    int i = 0;
    Hold maxAlone = null;   // exclusive holds and writers granted before b asked
    Hold maxReader = null;  // readers granted before b asked
    for (Hold b : bySent) {
      while (i < byGrant.size() && byGrant.get(i).acquired < b.sent) {
        Hold a = byGrant.get(i++);
        if (a.isRead()) {
          if (maxReader == null || a.token > maxReader.token) {
            maxReader = a;
          }
        } else if (maxAlone == null || a.token > maxAlone.token) {
          maxAlone = a;
        }
      }
      Hold before = null;
      if (maxAlone != null && b.token <= maxAlone.token) {
        before = maxAlone;  // nobody may share a writer's token or go below it
      } else if (maxReader != null && (b.isRead() ? b.token < maxReader.token : b.token <= maxReader.token)) {
        before = maxReader;  // a reader may share a reader's token, a writer may not
      }
      if (before != null) {
        found++;
        if (examples.size() < Checker.EXAMPLES) {
          examples.add("token inversion on " + b.lock + ": " + b + " asked at " + timeline.at(b.sent) + ", after "
              + before + " was granted at " + timeline.at(before.acquired));
        }
      }
    }
    return found;
  }

  /** A fenced operation the store acknowledged (an accepted read or write) by {@code hold}, answered at {@code at}. */
  private record Ack(long at, Hold hold, String what) {}

  /** An operation to judge: a write (or a reader's read) the store accepted, sent at {@code sent}. */
  private record Judged(Hold hold, long sent) {}

  private static int staleAccepted(List<Hold> holds, Timeline timeline, List<String> examples) {
    List<Ack> acks = new ArrayList<>();
    List<Judged> judged = new ArrayList<>();
    for (Hold h : holds) {
      if (h.read != null && "ok".equals(h.read.text("fenced"))) {
        acks.add(new Ack(h.read.monoNanos(), h, "read"));
        if (h.isRead()) {
          judged.add(new Judged(h, h.read.number("sent", h.read.monoNanos())));
        }
      }
      if (h.write != null && "accepted".equals(h.write.text("fenced"))) {
        acks.add(new Ack(h.write.monoNanos(), h, "write"));
        judged.add(new Judged(h, h.write.number("sent", h.write.monoNanos())));
      }
    }
    acks.sort(Comparator.comparingLong(Ack::at));
    judged.sort(Comparator.comparingLong(Judged::sent));
    int found = 0;
    int i = 0;
    Ack highest = null;  // the acknowledged operation with the highest token so far, of any role
    for (Judged j : judged) {
      Hold w = j.hold();
      while (i < acks.size() && acks.get(i).at() < j.sent()) {
        Ack a = acks.get(i++);
        if (highest == null || a.hold().token > highest.hold().token) {
          highest = a;
        }
      }
      if (highest != null && highest.hold().token > w.token) {
        found++;
        if (examples.size() < Checker.EXAMPLES) {
          examples.add("stale " + (w.isRead() ? "read" : "write") + " accepted on " + w.lock + ": " + w
              + (w.isRead() ? " read" : " wrote") + " at " + timeline.at(j.sent()) + " after the " + highest.what()
              + " of " + highest.hold() + " had been acknowledged at " + timeline.at(highest.at()));
        }
      }
    }
    return found;
  }
}

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
 *
 * <p>A read-write lock's holds are judged by what their tokens promise (see {@code reader.lua}): a
 * writer asked for after any hold was granted gets a larger token; a reader asked for after a writer
 * was granted gets a token at least the writer's. A writer's write is stale if, before it was sent,
 * the store had acknowledged a writer's read or write with a newer token, or a reader's read with
 * the writer's token or a newer one (that reader was granted after the writer); a reader's read is
 * stale if a writer with a newer token had been acknowledged before it was sent. Readers' reads are
 * judged because they are the only thing a reader does with the store.
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
    Hold maxWrite = null;  // exclusive holds and writers
    Hold max = null;       // every hold, readers too
    for (Hold b : bySent) {
      while (i < byGrant.size() && byGrant.get(i).acquired < b.sent) {
        Hold a = byGrant.get(i++);
        if (max == null || a.token > max.token) {
          max = a;
        }
        if (!a.isRead() && (maxWrite == null || a.token > maxWrite.token)) {
          maxWrite = a;
        }
      }
      Hold before = b.isRead() ? maxWrite : max;
      if (before != null && (b.isRead() ? b.token < before.token : b.token <= before.token)) {
        found++;
        if (examples.size() < Checker.EXAMPLES) {
          examples.add("token inversion on " + b.lock + ": " + b + " asked at " + timeline.at(b.sent) + ", after "
              + before + " was granted at " + timeline.at(before.acquired));
        }
      }
    }
    return found;
  }

  /** A fenced operation the store acknowledged: an accepted read or write; {@code reader} for a reader's read. */
  private record Ack(long at, long token, boolean reader) {}

  /** An operation to judge: a write (or a reader's read) the store accepted, sent at {@code sent}. */
  private record Judged(Hold hold, long sent) {}

  private static int staleAccepted(List<Hold> holds, Timeline timeline, List<String> examples) {
    List<Ack> acks = new ArrayList<>();
    List<Judged> judged = new ArrayList<>();
    for (Hold h : holds) {
      if (h.read != null && "ok".equals(h.read.text("fenced"))) {
        acks.add(new Ack(h.read.monoNanos(), h.token, h.isRead()));
        if (h.isRead()) {
          judged.add(new Judged(h, h.read.number("sent", h.read.monoNanos())));
        }
      }
      if (h.write != null && "accepted".equals(h.write.text("fenced"))) {
        acks.add(new Ack(h.write.monoNanos(), h.token, false));
        judged.add(new Judged(h, h.write.number("sent", h.write.monoNanos())));
      }
    }
    acks.sort(Comparator.comparingLong(Ack::at));
    judged.sort(Comparator.comparingLong(Judged::sent));
    int found = 0;
    int i = 0;
    long maxToken = Long.MIN_VALUE;        // of writers' (and exclusive holders') operations
    long maxReaderToken = Long.MIN_VALUE;  // of readers' reads
    for (Judged j : judged) {
      Hold w = j.hold();
      while (i < acks.size() && acks.get(i).at() < j.sent()) {
        Ack a = acks.get(i++);
        if (a.reader()) {
          maxReaderToken = Math.max(maxReaderToken, a.token());
        } else {
          maxToken = Math.max(maxToken, a.token());
        }
      }
      boolean stale = maxToken > w.token || (!w.isRead() && maxReaderToken >= w.token);
      if (stale) {
        found++;
        if (examples.size() < Checker.EXAMPLES) {
          examples.add("stale " + (w.isRead() ? "read" : "write") + " accepted on " + w.lock + ": " + w
              + (w.isRead() ? " read" : " wrote") + " at " + timeline.at(j.sent()) + " after "
              + (maxToken > w.token ? "token " + maxToken : "a reader with token " + maxReaderToken)
              + " had been acknowledged");
        }
      }
    }
    return found;
  }
}

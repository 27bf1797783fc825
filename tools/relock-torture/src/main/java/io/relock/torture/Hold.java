package io.relock.torture;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One acquisition by one worker thread, rebuilt from the history: when it was asked for and
 * granted, what the critical section did, and how it ended. Its interval, from {@link #acquired}
 * to {@link #end}, is the time the worker acted as the holder: until it called {@code close()},
 * until it walked away from the lease (abandon-holder runs), or until its process was killed.
 */
final class Hold {
  /** Lanes of the lock family's holds ({@link Event#ACQUIRE_SENT}'s {@code lane}); an exclusive hold has none. */
  static final String READ = "r";
  static final String WRITE = "w";
  static final String PERMIT = "p";

  final String id;
  final String lock;
  final String proc;
  final long sent;
  final boolean fixedLease;
  /** {@link #READ}, {@link #WRITE} or {@link #PERMIT} for the lock family's holds, null for an exclusive lock's. */
  final String lane;
  /** Monotonic time of the grant, or -1 if the acquisition failed. */
  long acquired = -1;
  long token;
  Event read;
  Event write;
  /** Monotonic time close() was called, or -1. */
  long releaseSent = -1;
  /** isValid() just before close(), if it got that far. */
  Boolean validAtRelease;
  /** released, release_lost or release_failed; null if close() never returned. */
  String outcome;
  /** Monotonic time of the onLost notice, or -1. */
  long lostNotice = -1;
  /** Monotonic time the process was killed while holding, or -1. */
  long killed = -1;
  /** Monotonic time the worker walked away from the lease without closing it, or -1. */
  long abandoned = -1;
  /** Monotonic time the request was granted, timed out or failed; -1 if it never was. */
  long resolved = -1;
  /** End of the interval; see the class comment. */
  long end;

  private Hold(String id, String lock, String proc, long sent, boolean fixedLease, String lane) {
    this.id = id;
    this.lock = lock;
    this.proc = proc;
    this.sent = sent;
    this.fixedLease = fixedLease;
    this.lane = lane;
  }

  boolean isRead() {
    return READ.equals(lane);
  }

  boolean isPermit() {
    return PERMIT.equals(lane);
  }

  /**
   * Whether {@code later}, a hold of the same lock, was granted after this one in Redis's own order
   * while their kinds exclude each other, so that this hold's lock was gone by {@code later}'s grant.
   * Read from the tokens, which Redis issues in its own order (recorded grant times can be shifted
   * by a pause between a grant and its record). Exclusive holds: a larger token. Writers get larger
   * tokens than everything before them; a reader carries its read epoch's token, a new serial
   * larger than every earlier token when it opened the epoch (it shares it with the readers that
   * joined it), so of a reader and a writer the one with the larger token came later. Two readers
   * share the lock, and a permit never proves another one gone (the semaphore has several): false
   * for both.
   */
  boolean supersededBy(Hold later) {
    if (!later.lock.equals(lock) || later == this) {
      return false;
    }
    if (lane == null && later.lane == null) {
      return later.token > token;
    }
    if (WRITE.equals(lane) && WRITE.equals(later.lane)) {
      return later.token > token;
    }
    if (WRITE.equals(lane) && later.isRead()) {
      return later.token > token;
    }
    if (isRead() && WRITE.equals(later.lane)) {
      return later.token > token;
    }
    return false;
  }

  boolean wasAcquired() {
    return acquired >= 0;
  }

  boolean overlaps(Hold other) {
    return wasAcquired() && other.wasAcquired() && acquired < other.end && other.acquired < end;
  }

  /**
   * When relock first told this holder, before {@code close()}, that its lease was lost: its
   * {@code onLost} listener ran, or {@code isValid()} was false just before {@code close()}.
   * {@link Long#MAX_VALUE} if it never did (a {@code LockLostException} from {@code close()} tells
   * it only once it stopped acting as the holder).
   */
  long toldAt() {
    long told = lostNotice >= 0 ? lostNotice : Long.MAX_VALUE;
    if (Boolean.FALSE.equals(validAtRelease)) {
      told = Math.min(told, releaseSent);
    }
    return told;
  }

  @Override
  public String toString() {
    String kind = lane == null ? "" : isRead() ? "read, " : isPermit() ? "permit, " : "write, ";
    return id + " (" + kind + "token " + token + ")";
  }

  /**
   * The holds of a history, granted ones ordered by grant time. A hold that never released gets
   * the kill time of its process as its end, or else the last event of its process.
   */
  static List<Hold> from(History history) {
    return requests(history).stream().filter(Hold::wasAcquired).toList();
  }

  /** Every acquisition request of a history, granted or not, granted ones ordered by grant time. */
  static List<Hold> requests(History history) {
    Map<String, Hold> holds = new LinkedHashMap<>();
    Map<String, Long> killedAt = new HashMap<>();
    Map<String, Long> lastEventOf = new HashMap<>();
    for (Event e : history.events()) {
      if (e.kind().equals(Event.KILLED)) {
        killedAt.putIfAbsent(e.text("target"), e.monoNanos());
        continue;
      }
      lastEventOf.put(e.proc(), e.monoNanos());
      if (e.hold() == null) {
        continue;
      }
      if (e.kind().equals(Event.ACQUIRE_SENT)) {
        holds.put(e.hold(), new Hold(e.hold(), e.lock(), e.proc(), e.monoNanos(), "fixed".equals(e.text("lease")),
            e.text("lane")));
        continue;
      }
      Hold h = holds.get(e.hold());
      if (h == null) {
        continue;
      }
      switch (e.kind()) {
        case Event.ACQUIRED -> {
          h.acquired = e.monoNanos();
          h.resolved = e.monoNanos();
          h.token = e.token();
        }
        case Event.ACQUIRE_TIMEOUT, Event.ACQUIRE_FAILED -> h.resolved = e.monoNanos();
        case Event.ABANDONED -> h.abandoned = e.monoNanos();
        case Event.READ -> h.read = e;
        case Event.WRITE -> h.write = e;
        case Event.LOST_NOTICE -> h.lostNotice = e.monoNanos();
        case Event.RELEASE_SENT -> {
          h.releaseSent = e.monoNanos();
          h.validAtRelease = e.flag("valid");
        }
        case Event.RELEASED, Event.RELEASE_LOST, Event.RELEASE_FAILED -> h.outcome = e.kind();
        default -> { }
      }
    }
    List<Hold> all = new ArrayList<>();
    for (Hold h : holds.values()) {
      all.add(h);
      if (!h.wasAcquired()) {
        continue;
      }
      if (h.releaseSent >= 0) {
        h.end = h.releaseSent;
      } else if (h.abandoned >= 0) {
        h.end = h.abandoned;
      } else if (killedAt.containsKey(h.proc)) {
        h.killed = killedAt.get(h.proc);
        h.end = Math.max(h.acquired, h.killed);
      } else {
        h.end = lastEventOf.getOrDefault(h.proc, h.acquired);
      }
    }
    all.sort(Comparator.comparingLong((Hold h) -> h.acquired >= 0 ? h.acquired : Long.MAX_VALUE));
    return all;
  }
}

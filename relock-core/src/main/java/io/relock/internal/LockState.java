package io.relock.internal;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * What one client knows about one lock name: its local wait queue (only the head of which is
 * registered in Redis) and the {@code lock()} holds of its threads. Guarded by its own monitor.
 * Retired (and replaced by a fresh one) once idle, so idle names cost no memory.
 */
final class LockState {
  final LockKeys keys;
  private final ArrayDeque<Acquisition> waiting = new ArrayDeque<>();
  private final Map<Long, HeldLease> threadHolds = new HashMap<>();
  private boolean retired;
  /** Releases in a row that passed the lock straight to a waiter of this client. */
  private int passes;

  LockState(LockKeys keys) {
    this.keys = keys;
  }

  static final int RETIRED = -1;
  static final int QUEUED = 0;
  static final int HEAD = 1;

  /**
   * Queues {@code a}: {@link #HEAD} if it is now first and must start waiting in Redis, {@link
   * #QUEUED} if it waits behind others, {@link #RETIRED} if this state was retired (use a new one).
   */
  synchronized int enqueue(Acquisition a) {
    if (retired) {
      return RETIRED;
    }
    waiting.addLast(a);
    return waiting.size() == 1 ? HEAD : QUEUED;
  }

  /** Removes {@code a}; returns the waiter that becomes head because of it, or null. */
  synchronized Acquisition leave(Acquisition a) {
    boolean wasHead = waiting.peekFirst() == a;
    waiting.remove(a);
    return wasHead ? waiting.peekFirst() : null;
  }

  /**
   * The waiter a release may pass the lock to without leaving this client: the local head, if it
   * is queued in Redis and still waiting. Null if there is none.
   */
  synchronized Acquisition successor() {
    Acquisition head = waiting.peekFirst();
    return head != null && head.isQueuedInRedis() ? head : null;
  }

  /**
   * Whether the next pass may jump ahead of other clients' waiters: at most {@code limit} times in
   * a row, so that a busy client cannot keep the lock from the others.
   */
  synchronized boolean mayPassAhead(int limit) {
    return passes < limit;
  }

  /** Records how a release ended: passed within this client, or out of it. */
  synchronized void released(boolean passedWithin) {
    passes = passedWithin ? passes + 1 : 0;
  }

  synchronized HeldLease threadHold(long threadId) {
    return threadHolds.get(threadId);
  }

  synchronized void putThreadHold(HeldLease lease) {
    threadHolds.put(lease.threadId, lease);
  }

  synchronized void removeThreadHold(HeldLease lease) {
    threadHolds.remove(lease.threadId, lease);
  }

  /** Retires the state if idle; returns whether it did. */
  synchronized boolean retireIfIdle() {
    if (!retired && waiting.isEmpty() && threadHolds.isEmpty() && passes == 0) {
      retired = true;
    }
    return retired;
  }

  synchronized Acquisition[] waiters() {
    return waiting.toArray(new Acquisition[0]);
  }
}

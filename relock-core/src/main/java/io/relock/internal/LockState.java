package io.relock.internal;

import io.relock.RelockException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Everything one client knows about one lock name: its acquisitions under way, its local wait
 * queue (only the head of which waits for the lock: in Redis, or following this client's hold),
 * its holds, and the releases still in flight.
 *
 * <p>One owner: every field is read and written only by tasks of this state's {@link Mailbox}.
 * Callers, Redis I/O threads, timers and the notification listener post events with {@link
 * #post}; none of them touches the fields. (The one exception, {@link #threadHolds}, is a
 * concurrent map so that a thread may read its own hold count without an event; only tasks write
 * it.)
 *
 * <p>Lifetime: the engine keeps the state in its map while anything references it (see {@link
 * LockEngine#ref}): each unsettled acquisition and each hold until its release is over. A state
 * with no references is dropped, so idle names cost nothing; an event that reaches a dropped
 * state finds nothing of its owner's and is handled as such (a grant for nobody is released).
 */
final class LockState {
  final LockEngine engine;
  /** What kind of lock this is (exclusive, a semaphore, a read-write lock's lane). */
  final LockKind kind;
  final LockKeys keys;
  /** Where the engine keeps this state, and what grant notifications name (see {@link LockKind#stateKey}). */
  final String stateKey;
  /** The keys the lock scripts are given (see {@link ScriptCalls#keys}). */
  final java.util.List<String> scriptKeys;
  private final Mailbox mailbox = new Mailbox();

  /** References held by acquisitions, holds and releases; changed only inside the engine's map. */
  int refs;

  private final Set<Acquisition> unsettled = new LinkedHashSet<>();
  /** Fresh (non-re-entrant) acquisitions by owner id, so that grant notifications find them. */
  private final Map<String, Acquisition> byOwner = new HashMap<>();
  private final ArrayDeque<Acquisition> queue = new ArrayDeque<>();
  private final Map<String, HeldLease> holds = new HashMap<>();
  final ConcurrentHashMap<Long, HeldLease> threadHolds = new ConcurrentHashMap<>();
  private final Set<Release> releases = new LinkedHashSet<>();
  /** Whether the engine subscribed this state to the lock's sharded grant channel (see hearGrants). */
  final AtomicBoolean hearsGrants = new AtomicBoolean();
  /**
   * Releases in a row sent to pass the lock straight to a waiter of this client, counted when sent
   * (a semaphore's client may have several in flight at once, each of which must see the others).
   */
  private int passes;

  LockState(LockEngine engine, LockKind kind, LockKeys keys) {
    this.engine = engine;
    this.kind = kind;
    this.keys = keys;
    this.stateKey = kind.stateKey(keys);
    this.scriptKeys = ScriptCalls.keys(keys);
  }

  void post(Runnable event) {
    mailbox.post(event);
  }

  // ---- acquisitions -------------------------------------------------------------------------

  /** The first event of an acquisition: a re-entry, one attempt, or a place in the queue. */
  void start(Acquisition a) {
    unsettled.add(a);
    if (engine.isClosed()) {
      a.fail(engine.closedError(keys.name()));
      return;
    }
    HeldLease mine = a.threadId >= 0 && kind.reentrant() ? threadHolds.get(a.threadId) : null;
    if (mine != null) {
      a.startReentry(mine);
      return;
    }
    byOwner.put(a.owner, a);
    if (a.isZeroWait()) {
      a.startAttempt();
      return;
    }
    if (!kind.queuesLocally()) {
      a.becomeHead(); // every waiter of a shared kind waits in Redis, which may grant several at once
      return;
    }
    queue.addLast(a);
    if (queue.peekFirst() == a) {
      startFirst(a);
    } else {
      a.waitLocally();
    }
  }

  /** Takes {@code a} out of the local queue; the next waiter, if it becomes first, starts. */
  void leaveQueue(Acquisition a) {
    boolean wasHead = queue.peekFirst() == a;
    queue.remove(a);
    if (wasHead) {
      Acquisition next = queue.peekFirst();
      if (next != null) {
        startFirst(next);
      }
    }
  }

  /**
   * {@code a} is now the first of the local queue: it follows this client's hold of the lock, whose
   * release will hand it the lock (see Acquisition#follow), or else starts waiting in Redis.
   */
  void startFirst(Acquisition a) {
    HeldLease followed = !holds.isEmpty() && kind.queuesLocally() && kind.passesWithin() && a.mayFollow()
        ? liveHold() : null;
    if (followed != null) {
      a.follow(followed.validUntilNanos());
    } else {
      a.becomeHead();
    }
  }

  /** A hold of this client not known lost, whose lease has not run out here; or null. */
  private HeldLease liveHold() {
    long now = System.nanoTime();
    for (HeldLease h : holds.values()) {
      if (h.lostReason() == null && h.validUntilNanos() - now > 0) {
        return h;
      }
    }
    return null;
  }

  /** {@code a} is over: nothing of it is left in Redis or here. */
  void settled(Acquisition a) {
    unsettled.remove(a);
    byOwner.remove(a.owner, a);
    engine.unref(this);
  }

  /** {@code a} got the lock: it becomes a hold, which takes over the acquisition's reference. */
  void held(Acquisition a, HeldLease h) {
    unsettled.remove(a);
    byOwner.remove(a.owner, a);
    holds.put(h.owner, h);
    if (h.threadId >= 0) {
      threadHolds.put(h.threadId, h);
    }
  }

  /** For tests: whether an acquisition waits in Redis with no call in flight. */
  boolean waitsForGrant() {
    for (Acquisition a : unsettled) {
      if (a.waitsForGrant()) {
        return true;
      }
    }
    return false;
  }

  /** A grant notification: the previous holder's release handed the lock to {@code owner}. */
  void granted(String owner, long serial, long token) {
    Acquisition a = byOwner.get(owner);
    if (a != null) {
      a.granted(serial, token);
    } else if (!knowsGrant(owner, serial)) {
      // Granted to an acquisition this client no longer has: hand the lock on rather than leave it.
      engine.calls.withdrawOrphan(kind, keys, owner);
    }
  }

  /**
   * Whether the grant of {@code token} to {@code owner} is one this state already has as a hold,
   * held or being released: its notification came late (the acquisition learned of it from a
   * reply), and the hold's own release frees the lock. A withdrawal sent for it now could even
   * reach Redis before that release, which a caller's thread may have sent just before (the
   * driver's I/O thread writes at once, a caller's write waits its turn), free the lock under it,
   * and make the release report a loss. A grant with a later token is another one: Redis granted
   * the owner again after its hold had ended, and withdrawing that one is right.
   */
  private boolean knowsGrant(String owner, long serial) {
    HeldLease h = holds.get(owner);
    if (h != null) {
      return serial <= h.serial;
    }
    for (Release r : releases) {
      if (r.all && r.hold.owner.equals(owner)) {
        return serial <= r.hold.serial;
      }
    }
    return false;
  }

  /**
   * Another client freed the lock {@code owner} holds (force_unlock.lua): check the hold now. An
   * owner not holding it here yet may hold it in Redis (granted by a call, or passed by a release
   * of this client, whose answer is on its way): its hold is checked once it has one.
   */
  void lostNotice(String owner) {
    HeldLease h = holds.get(owner);
    if (h != null) {
      engine.keeper.checkHold(h);
      return;
    }
    Acquisition a = byOwner.get(owner);
    if (a != null) {
      a.heardForcedUnlock();
    }
  }

  /** A Redlock node freed the lock: a waiter waiting in Redis tries again (see Acquisition#freed). */
  void freed() {
    for (Acquisition a : unsettled) {
      a.freed();
    }
  }

  /** The connection to Redis was re-established: what waits for a timer may have missed news. */
  void reconnected() {
    for (Acquisition a : new ArrayList<>(unsettled)) {
      a.reconnected();
    }
    for (Release r : new ArrayList<>(releases)) {
      r.reconnected();
    }
  }

  // ---- releases -----------------------------------------------------------------------------

  /** {@code unlock()} by thread {@code threadId}; see {@link LockEngine#unlock}. */
  void unlock(long threadId, CompletableFuture<Release.Outcome> done) {
    HeldLease h = threadHolds.get(threadId);
    if (h == null && engine.isClosed()) {
      // The thread held it when it called (see LockEngine#unlock); close() released it since.
      done.completeExceptionally(new RelockException("client is closed; it released lock '" + keys.name()
          + "' when it closed"));
      return;
    }
    if (h == null) {
      done.completeExceptionally(new IllegalMonitorStateException(
          "the current thread does not hold lock '" + keys.name() + "'"));
      return;
    }
    h.isValid(); // past its local deadline: lost, as for close() (see LeaseChanges#startClose)
    if (h.threadHolds > 1) {
      // The thread's count is the one that counts; Redis's is kept in step where it can be.
      h.threadHolds--;
      if (h.lostReason() != null) {
        done.complete(new Release.Outcome(h, h.lostReason()));
        return;
      }
      start(new Release(this, h, false, null, false, false, done));
      return;
    }
    h.threadHolds = 0;
    finish(h, done);
  }

  /** {@link HeldLease#close()}: releases a lease, once; completes with null if it was closed before. */
  void close(HeldLease h, CompletableFuture<Release.Outcome> done) {
    if (!h.closed.compareAndSet(false, true)) {
      done.complete(null);
      return;
    }
    finish(h, done);
  }

  /**
   * Releases every hold of {@code h} in Redis, passing the lock (or the permit) to this client's
   * next waiter if one waits in Redis, or if it follows the hold (see Acquisition#follow); ahead of
   * other clients at most {@link LockEngine#PASSES_AHEAD} times in a row.
   */
  private void finish(HeldLease h, CompletableFuture<Release.Outcome> done) {
    h.closed.set(true);
    CompletableFuture<Release.Outcome> answered = endInClient(h, done);
    Acquisition successor = kind.passesWithin() ? nextToPass() : null;
    Acquisition follower = successor == null && kind.passesWithin() ? follower() : null;
    if (follower != null) {
      successor = follower;
      engine.hearGrants(this); // it may be queued, and granted the lock by another client
    }
    boolean ahead = successor != null && passes < LockEngine.PASSES_AHEAD;
    if (ahead) {
      passes++;
    }
    Release r = new Release(this, h, true, successor, ahead, follower != null, answered);
    h.endingRelease = r;
    if (follower != null) {
      follower.promised();
    }
    start(r);
  }

  /**
   * What a release and {@link #closeAfter} both do first, once the hold counts as closed: the
   * client stops counting, renewing and listing it and tells the listeners. Returns the future the
   * Redis call completes: {@code done}, or one that ends the hold's observation first.
   */
  private CompletableFuture<Release.Outcome> endInClient(HeldLease h, CompletableFuture<Release.Outcome> done) {
    engine.holds.decrementAndGet();
    if (engine.listeners.any()) {
      java.time.Duration held = java.time.Duration.ofNanos(System.nanoTime() - h.acquiredAtNanos);
      engine.listeners.emit(l -> l.released(keys.name(), held));
    }
    CompletableFuture<Release.Outcome> answered = h.isObserved() ? endingObserved(h, done) : done;
    engine.keeper.stopTracking(h);
    holds.remove(h.owner, h);
    threadHolds.remove(h.threadId, h);
    return answered;
  }

  /**
   * {@link HeldLease#closeAfter}: the hold ends here at once, as a release would end it, but
   * instead of a release Redis is told to expire it {@code keepMillis} from now (extend.lua). No
   * release will hand the lock on, so this client's first waiter, if it follows the hold (see
   * Acquisition#follow), asks Redis for itself now, where it waits as another client's waiter
   * would. Completes {@code done} as a release does: with null if the lease was closed before,
   * with the loss if Redis found the lock not the hold's any more.
   */
  void closeAfter(HeldLease h, long keepMillis, CompletableFuture<Release.Outcome> done) {
    if (!h.closed.compareAndSet(false, true)) {
      done.complete(null);
      return;
    }
    CompletableFuture<Release.Outcome> answered = endInClient(h, done);
    Acquisition head = kind.queuesLocally() ? queue.peekFirst() : null;
    if (head != null && head.mayFollow()) {
      startFirst(head);
    }
    engine.keeper.runExtend(h, keepMillis).whenComplete((reply, error) -> post(() -> {
      try {
        if (error != null) {
          RuntimeException e = Waiting.unchecked(error);
          answered.completeExceptionally(e instanceof RelockException ? e
              : new RelockException("could not set the expiry of lock '" + keys.name() + "': " + e, e));
        } else if ((Long) reply.get(0) == 1L) {
          answered.complete(new Release.Outcome(h, null));
        } else {
          answered.complete(new Release.Outcome(h, "the lock had expired or is held by another owner (token "
              + h.token + ")"));
        }
      } finally {
        engine.unref(this);
      }
    }));
  }

  /**
   * The first of the local queue if it follows this client's holds (see Acquisition#follow): a
   * release may hand it the lock although it has not asked Redis.
   */
  private Acquisition follower() {
    if (!kind.queuesLocally()) {
      return null;
    }
    Acquisition head = queue.peekFirst();
    return head != null && head.mayFollow() ? head : null;
  }

  /** Whether {@code a} is the first of this client's local waiters. */
  boolean isFirstInQueue(Acquisition a) {
    return queue.peekFirst() == a;
  }

  /**
   * This client's waiter a release may pass the lock to: the head of the local queue, or (for a
   * semaphore, whose waiters all wait in Redis) the longest-waiting one; either only if it waits in
   * Redis and no other release in flight names it already; else null. Redis passes it only if its
   * entry is still there.
   */
  private Acquisition nextToPass() {
    if (kind.queuesLocally()) {
      Acquisition head = queue.peekFirst();
      return head != null && head.isWaitingInRedis() && !namedByRelease(head) ? head : null;
    }
    for (Acquisition a : unsettled) {
      if (a.isWaitingInRedis() && !a.isZeroWait() && !namedByRelease(a)) {
        return a;
      }
    }
    return null;
  }

  private boolean namedByRelease(Acquisition a) {
    for (Release r : releases) {
      if (r.passesTo(a)) {
        return true;
      }
    }
    return false;
  }

  /**
   * A future for the release of {@code h} that, once completed, tells the observers following the
   * hold how it ended, and then completes {@code done}: the hold has ended before its caller hears.
   */
  private CompletableFuture<Release.Outcome> endingObserved(HeldLease h, CompletableFuture<Release.Outcome> done) {
    CompletableFuture<Release.Outcome> answered = new CompletableFuture<>();
    answered.whenComplete((o, e) -> {
      try {
        boolean lost = e == null && o != null && o.lostReason() != null;
        h.endObserved(e != null ? io.relock.LockObserver.Outcome.ERROR
            : lost ? io.relock.LockObserver.Outcome.LOST : io.relock.LockObserver.Outcome.RELEASED,
            e != null ? e : lost ? new io.relock.LockLostException(keys.name(), o.lostReason()) : null);
      } finally {
        if (e != null) {
          done.completeExceptionally(e);
        } else {
          done.complete(o);
        }
      }
    });
    return answered;
  }

  private void start(Release r) {
    releases.add(r);
    r.send();
  }

  /** A full release freed the lock, or handed it to another client's waiter: other clients had a turn. */
  void freedForOthers() {
    passes = 0;
  }

  /** For tests: as after {@link LockEngine#PASSES_AHEAD} passes in a row within the client. */
  void usePassesAhead() {
    passes = LockEngine.PASSES_AHEAD;
  }

  /** For tests: acquisitions in the local queue, the first among them included. */
  int localWaiters() {
    return queue.size();
  }

  /** For tests: releases in flight, full or not. */
  int releasesInFlight() {
    return releases.size();
  }

  /** A release is over (answered, or given up); a full release also ends the hold's reference. */
  void releaseDone(Release r) {
    if (releases.remove(r) && r.all) {
      engine.unref(this);
    }
  }

  // ---- closing ------------------------------------------------------------------------------

  /**
   * The client is closing: fails every acquisition (withdrawing it from Redis) and releases
   * every hold. The future completes when all of that is over, or has been given up.
   *
   * @param longestLeaseMillis told how long, at most, what this state has in Redis may last
   */
  CompletableFuture<Void> closeAll(java.util.concurrent.atomic.LongAccumulator longestLeaseMillis) {
    List<CompletableFuture<?>> pending = new ArrayList<>();
    RelockException closed = engine.closedError(keys.name());
    long now = System.nanoTime();
    for (Acquisition a : new ArrayList<>(unsettled)) {
      // What a grant it withdraws could last, taken by a call it sends now at the latest.
      long until = engine.keeper.extendedByCallTo(now, a.leaseMillis);
      longestLeaseMillis.accumulate(TimeUnit.NANOSECONDS.toMillis(until - now));
      pending.add(a.withdraw(closed));
    }
    for (HeldLease h : new ArrayList<>(holds.values())) {
      CompletableFuture<Release.Outcome> done = new CompletableFuture<>();
      h.threadHolds = 0;
      finish(h, done);
      pending.add(done);
    }
    for (Release r : releases) {
      // Read once each hold is closed: nothing sent to extend it after that (see WatchdogRenewer#renew).
      longestLeaseMillis.accumulate(TimeUnit.NANOSECONDS.toMillis(r.hold.heldInRedisAtMostUntil() - now));
      pending.add(r.finished());
    }
    return CompletableFuture.allOf(pending.toArray(new CompletableFuture<?>[0])).handle((v, e) -> null);
  }
}

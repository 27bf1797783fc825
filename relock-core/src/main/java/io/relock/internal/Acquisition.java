package io.relock.internal;

import io.relock.LockLostException;
import io.relock.LockTimeoutException;
import io.relock.RelockException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One attempt to acquire a lock, from the caller's call until it holds the lock or has given up
 * and left nothing behind in Redis. A state machine confined to its {@link LockState}'s mailbox:
 * every method here runs as an event of that mailbox.
 *
 * <pre>
 *   LOCAL ──head──▶ ACTIVE ──granted / acquired──▶ HELD
 *     │               │
 *     │            gives up (deadline, interrupt, cancel, close, error)
 *     │               ▼
 *     └──timeout──▶ WITHDRAWING ──abandon confirmed──▶ SETTLED
 * </pre>
 *
 * <p>Rules that make every interleaving safe:
 * <ul>
 *   <li><b>One call in flight.</b> The acquisition never sends a call before the previous one has
 *       answered (or failed), so its calls reach Redis in the order it sent them whatever the
 *       driver does, and a withdrawal can never be overtaken by its own earlier attempt.
 *   <li><b>Gave up means cleaned up.</b> Once the caller has its answer (a failure), anything the
 *       acquisition may have in Redis (a queue entry, or the lock itself, granted or taken by an
 *       attempt whose reply was late or lost) is withdrawn with {@code abandon}, retried until
 *       Redis confirms. A later success is never handed to anyone.
 *   <li><b>Redis unreachable is waited out</b> within the acquisition's wait (for zero waits: the
 *       command timeout): every mode may be sent again, since owner ids are unique per
 *       acquisition and {@code acquire.lua} answers a repeat with what the first attempt did.
 *   <li><b>A late grant is not a live one.</b> A grant notification (or a pass within the
 *       client) may arrive after a reply of this owner that found it not holding the lock. Each
 *       such reply says up to which fencing token grants were issued before it; a grant at or
 *       below that token has ended and is ignored, so a lease never counts from a later call's
 *       send time for a grant made before it.
 *   <li><b>No hold ahead of a {@code wait} sent again.</b> A grant learnt while such a call is on
 *       its way counts only once the call has answered: the caller could otherwise release the
 *       hold before the call reaches Redis (on another connection), and the call would take the
 *       freed lock again for nobody.
 * </ul>
 *
 * <p>Waiting: only the head of the client's local queue waits for the lock; the others wait
 * behind it in the client. While its client holds the lock, the head follows that hold (see
 * {@link #follow}): it asks Redis nothing, and the hold's release hands it the lock or queues it.
 * Otherwise it waits in Redis, queued by its own {@code wait}, and is handed the lock by the
 * previous holder's release (a grant notification, or directly within the client), re-checking on
 * its own when the holder's lease should have run out, after the recheck interval, or when the
 * connection comes back. When its time is up it asks once more ({@code giveup}), so a grant that
 * raced the deadline is kept rather than wasted.
 *
 * <p>A re-entry (the thread already holds the lock through {@code lock()}) is an acquisition too:
 * one {@code reenter} call that raises the count in Redis; the thread's own count, the one that
 * counts, rises only when the caller is told of success.
 */
final class Acquisition {
  /** Every step of every acquisition, at TRACE: for chasing a race in a stress run's log. */
  private static final org.slf4j.Logger trace = org.slf4j.LoggerFactory.getLogger("io.relock.trace");
  enum Phase { LOCAL, ACTIVE, HELD, WITHDRAWING, SETTLED }

  final LockEngine engine;
  /** Turns a grant into a hold, and knows how long a grant lasts (the claim arithmetic). */
  private final LeaseKeeper keeper;
  /** Builds this acquisition's calls of the acquire script. */
  private final LockCalls calls;
  final LockState state;
  final String owner;
  final long threadId;
  /** For a reader: the owner id of the same thread's write hold, which lets it in ahead (a downgrade). */
  final String companion;
  final long leaseMillis;
  final boolean renewed;
  private final Duration wait;
  private final long startNanos;
  private final long deadlineNanos;
  /** Completed with the hold, or exceptionally, exactly once. */
  final CompletableFuture<HeldLease> result = new CompletableFuture<>();
  private final CompletableFuture<Void> settled = new CompletableFuture<>();
  private final Retry timer;
  /** For one lock of a multi-lock: sends this acquisition's first attempt with the others' (see {@link JointAttempt}). */
  private final JointAttempt joint;
  /** The {@link io.relock.LockObserver}s following this acquisition, or null. */
  private final Observers.Wait watched;

  // Mailbox-confined state.
  /** Whether this acquisition has joined {@link #joint}, or declined it: later calls go alone. */
  private boolean jointDone;
  private Phase phase = Phase.LOCAL;
  private HeldLease reentering;
  private HeldLease held;
  private boolean inFlight;
  /**
   * Whether the call in flight is a {@code wait} sent while Redis may already hold a queue entry
   * of this owner (a call before it failed): Redis may hand the lock over from that entry before
   * this call arrives, and on a driver of several connections the call may even arrive after that
   * hold has been released, find the lock free and take it again, for a hold nobody would release.
   * A grant learnt meanwhile therefore waits for this call's reply (see {@link #askAfterGrant}).
   */
  private boolean waitSentAgain;
  /** Whether Redis may hold a queue entry or the lock for this owner. */
  private boolean inRedis;
  /** Latest send time of a call that Redis ran before any grant: a safe start for a granted lease. */
  private long grantNoEarlierThan;
  /**
   * Grants to this owner with a token up to here have ended: a reply found the owner not holding
   * the lock after they were issued. A notification of one of them is late and must be ignored.
   */
  private long endedGrantsUpTo;
  /** Replica acknowledgements are on and a grant arrived: ask Redis (with WAIT) at once. */
  private boolean confirmGrant;
  /** A Redlock master freed the lock while a call was in flight (see {@link #freed()}). */
  private boolean freedInFlight;
  /** Whether the lock came by hand-over (a grant, or a pass within the client): for observers. */
  private boolean handedOver;
  /**
   * Whether a release in flight names this waiter as its follower (see {@link #promised}): it may
   * hold the lock or be queued in Redis without having asked, and asks nothing until that release
   * has answered.
   */
  private boolean promised;
  /** Whether this acquisition sent a call while {@link #promised} (for a grant it heard of). */
  private boolean askedWhilePromised;
  /** Whether the connection came back while {@link #promised}: a grant's notification may have been lost. */
  private boolean reconnectedWhilePromised;
  /**
   * The release that named this follower failed with its outcome unknown: done once that release
   * is over in every way. Until then Redis may still run it, even after this owner's own later
   * calls (on a driver of several connections), and hand this owner the lock; so the acquisition,
   * if it gives up, settles only after one more {@code abandon} sent once it is done (see {@link
   * #settle}). After that, the release's hold is gone from Redis, and the call that named this
   * follower can hand nothing (release.lua hands over only the caller's own hold).
   */
  private CompletableFuture<Void> releaseInDoubt;
  /**
   * The latest Redis may hold the lock for this owner by a call whose outcome is unknown (its
   * reply was lost): such a call may have taken or renewed it for a whole lease, even where the
   * hold that follows counts only a claim time. Handed to the hold (see LeaseKeeper#acquired).
   */
  private long extendedTo;
  /**
   * A notice of a forced unlock named this owner before it held the lock here: the lock may have
   * been granted to it in Redis, and freed, while the reply or the pass that tells it was on its
   * way. The hold, once it has one, is checked at once (see LeaseKeeper#checkHold).
   */
  private boolean toldOfForcedUnlock;

  Acquisition(LockEngine engine, LockState state, String owner, long threadId, String companion, Duration wait,
      long leaseMillis, boolean renewed, JointAttempt joint, Observers.Wait watched) {
    this.joint = joint;
    this.watched = watched;
    this.engine = engine;
    this.keeper = engine.keeper;
    this.calls = engine.calls;
    this.state = state;
    this.owner = owner;
    this.threadId = threadId;
    this.companion = companion;
    this.wait = wait;
    this.leaseMillis = leaseMillis;
    this.renewed = renewed;
    this.startNanos = System.nanoTime();
    this.extendedTo = startNanos;
    this.deadlineNanos = wait == null ? 0 : startNanos + saturatedNanos(wait);
    this.timer = new Retry(engine.timer, state);
  }

  /** {@code d} in nanoseconds; one too long to count so, a quarter of the longest (a wait without limit). */
  static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException tooLong) {
      return Long.MAX_VALUE / 4;
    }
  }

  boolean isZeroWait() {
    return wait != null && wait.isZero();
  }

  private boolean timed() {
    return wait != null;
  }

  /** Queued in Redis and still waiting there: a release of this client may pass the lock to it. */
  boolean isWaitingInRedis() {
    return phase == Phase.ACTIVE && inRedis && reentering == null && !promised;
  }

  /** Waiting in Redis with every reply handled: for a grant, or for its next recheck. */
  boolean waitsForGrant() {
    return isWaitingInRedis() && !inFlight;
  }

  // ---- starting -----------------------------------------------------------------------------

  /** A zero wait: one attempt that never queues. */
  void startAttempt() {
    phase = Phase.ACTIVE;
    send(AcquireMode.TRY);
  }

  /** The thread already holds {@code h}: raise its count. */
  void startReentry(HeldLease h) {
    leaveJoint();
    reentering = h;
    phase = Phase.ACTIVE;
    if (h.lostReason() != null) {
      fail(new LockLostException(h.lockName(), h.lostReason()));
      return;
    }
    send(AcquireMode.REENTER);
  }

  /** Queued behind other waiters of this client: nothing to do until it is first, or its time is up. */
  void waitLocally() {
    if (timed()) {
      timer.after(deadlineNanos - System.nanoTime(), () -> fail(timeout()));
    }
  }

  /** First in the client's queue: start waiting in Redis, unless the time is already up. */
  void becomeHead() {
    if (phase != Phase.LOCAL) {
      return;
    }
    timer.cancel();
    if (timed() && System.nanoTime() - deadlineNanos >= 0) {
      fail(timeout());
      return;
    }
    phase = Phase.ACTIVE;
    send(AcquireMode.WAIT);
  }

  // ---- a follower: first of the client's waiters while the client holds the lock -----------

  /**
   * Whether this waiter may follow a hold of its client (see {@link #follow}): waiting in the
   * client, with time left, never having asked Redis, and not part of a multi-lock.
   */
  boolean mayFollow() {
    return phase == Phase.LOCAL && !promised && !inRedis && reentering == null && joint == null && !isZeroWait()
        && (!timed() || deadlineNanos - System.nanoTime() > 0);
  }

  /**
   * First in the client's queue while the client holds the lock: rather than queue in Redis, wait
   * for that hold's release, which hands the lock to this waiter (or queues it behind other
   * clients' waiters) in the same call, so that the acquisition costs Redis nothing of its own.
   * While it follows, Redis has nothing to give it: the lock is its client's. It looks again at
   * the recheck interval, when the hold's lease would run out, and at its deadline: once the client
   * has no hold left that is not known lost and within its lease (a hold that is never released
   * must not keep it from a lock Redis has freed), it asks Redis itself, as any first waiter does.
   *
   * @param holdValidUntilNanos the followed hold's local deadline now
   */
  void follow(long holdValidUntilNanos) {
    long now = System.nanoTime();
    long next = Math.min(engine.settings().recheckInterval().toNanos(), holdValidUntilNanos - now);
    if (timed()) {
      next = Math.min(next, deadlineNanos - now);
    }
    timer.after(next, this::lookAgain);
  }

  private void lookAgain() {
    if (phase == Phase.LOCAL && state.isFirstInQueue(this)) {
      state.startFirst(this); // follows on, asks Redis, or gives up if its time is up
    } else if (promised && timed() && System.nanoTime() - deadlineNanos >= 0) {
      fail(timeout()); // the release that named it answers first (see followerAnswered)
    }
  }

  /** The release that named this follower handed it the lock, with {@code token}. */
  void passedToFollower(long token, long releaseSentNanos) {
    promised = false;
    reconnectedWhilePromised = false;
    switch (phase) {
      case ACTIVE -> passed(token, releaseSentNanos);
      case WITHDRAWING -> {
        if (!inFlight) {
          cleanUp(null); // gave up meanwhile: releases what it was handed
        }
      }
      default -> {
        // HELD or SETTLED cannot be reached while promised: nothing to do.
      }
    }
  }

  /**
   * A release of this client names this follower: Redis hands it the lock, or queues it behind
   * other clients' waiters, as its own {@code wait} would have. Until the release answers, this
   * acquisition counts as waiting in Redis with a call in flight: once queued, Redis may grant it
   * the lock from the queue (a grant notification then completes it, as for any waiter), and it
   * sends nothing of its own (a call of its own could reach Redis after a grant it learnt of from
   * the notification, and take the lock again for nobody). Any grant to it starts after now.
   */
  void promised() {
    promised = true;
    phase = Phase.ACTIVE;
    inRedis = true;
    grantNoEarlierThan = System.nanoTime();
    if (timed()) {
      timer.after(deadlineNanos - grantNoEarlierThan, this::lookAgain); // the deadline holds while promised
    } else {
      timer.cancel();
    }
    if (trace.isTraceEnabled()) {
      trace.trace("{} named follower", owner);
    }
  }

  /**
   * The release that named this follower has answered without handing it the lock: queued ({@code
   * TRUE}), not ({@code FALSE}: the hold had ended, or the topology does not hand over), or not
   * known ({@code null}: the call failed and may have run; {@code release} completes when that
   * release is over).
   */
  void followerAnswered(Boolean queued, CompletableFuture<Void> release) {
    if (!promised) {
      return;
    }
    promised = false;
    if (queued == null) {
      releaseInDoubt = release;
    }
    boolean nudged = reconnectedWhilePromised;
    reconnectedWhilePromised = false;
    if (trace.isTraceEnabled()) {
      trace.trace("{} follower queued {} phase {} in flight {}", owner, queued, phase, inFlight);
    }
    if (Boolean.FALSE.equals(queued) && !askedWhilePromised) {
      inRedis = false; // not queued, so granted nothing, and it asked nothing itself
    }
    switch (phase) {
      case WITHDRAWING -> {
        if (!inFlight) {
          cleanUp(null); // withdraws the entry, or whatever was granted from it
        }
      }
      case ACTIVE -> {
        if (inFlight) {
          return; // a recheck it sent for a grant: its reply says what Redis holds
        }
        if (Boolean.TRUE.equals(queued)) {
          busy(AcquireMode.WAIT, grantNoEarlierThan, -1); // waits in Redis, as if its own 'wait' had queued it
          if (nudged) {
            timer.now(); // the re-check a reconnect asks for, deferred while promised
          }
          return;
        }
        timer.cancel(); // its look-again timer (see follow)
        if (timed() && System.nanoTime() - deadlineNanos >= 0) {
          fail(timeout());
          return;
        }
        send(AcquireMode.WAIT); // what Redis holds for it, if the call may have run; else it queues now
      }
      default -> {
        // HELD (granted from the queue) or SETTLED: nothing left to do.
      }
    }
  }

  // ---- talking to Redis ---------------------------------------------------------------------

  private void send(AcquireMode mode) {
    inFlight = true;
    askedWhilePromised |= promised;
    waitSentAgain = mode == AcquireMode.WAIT && inRedis;
    if (mode != AcquireMode.REENTER) {
      inRedis = true;
    }
    long sent = System.nanoTime();
    if (grantNoEarlierThan == 0) {
      grantNoEarlierThan = sent;
    }
    String runAs = reentering != null ? reentering.owner : owner;
    if (reentering != null) {
      // A re-entry extends the hold in Redis to its lease from when it runs, whatever its reply.
      reentering.mayBeExtendedTo(keeper.extendedByCallTo(sent, leaseMillis));
    }
    if (trace.isTraceEnabled()) {
      trace.trace("{} send {} phase {}", runAs, mode, phase);
    }
    CompletableFuture<List<Object>> call;
    if (joint != null && !jointDone && mode == AcquireMode.TRY) {
      jointDone = true;
      call = joint.join(this);
    } else {
      call = calls.runAcquire(this, runAs, mode, entryLifetimeMillis());
    }
    call.whenComplete((reply, error) -> state.post(() -> onReply(mode, sent, reply, error)));
  }

  /** This acquisition will not send its first attempt with a multi-lock's others: they go alone. */
  private void leaveJoint() {
    if (joint != null && !jointDone) {
      jointDone = true;
      joint.decline(1);
    }
  }

  /** A queue entry lives three recheck intervals unless refreshed, and never past the deadline. */
  long entryLifetimeMillis() {
    long life = 3 * engine.settings().recheckInterval().toMillis();
    if (timed() && !isZeroWait()) {
      long left = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()) + 1;
      life = Math.min(life, left);
    }
    return Math.max(1, life);
  }

  private void onReply(AcquireMode mode, long sent, List<Object> reply, Throwable error) {
    inFlight = false;
    waitSentAgain = false;
    while (error instanceof java.util.concurrent.CompletionException && error.getCause() != null) {
      error = error.getCause(); // from a stage that transformed the reply (see runAcquire)
    }
    int code = 0;
    long token = 0;
    long n = 0;
    long issued = 0;
    long serial = 0;
    long acks = -1;
    if (error == null) {
      try {
        code = ((Long) reply.get(0)).intValue();
        token = (Long) reply.get(1);
        n = (Long) reply.get(2);
        long fourth = reply.size() > 3 ? (Long) reply.get(3) : 0;
        // The fourth element: after "not held", up to which serial grants have ended; after "held",
        // the grant's serial where it is not its token (a read lock's, see readwrite.lua).
        issued = code == 0 || code == -3 ? fourth : 0;
        serial = (code == 1 || code == 3) && fourth > 0 ? fourth : token;
        acks = reply.size() > LockCalls.ACKS_INDEX ? (Long) reply.get(LockCalls.ACKS_INDEX) : -1;
      } catch (RuntimeException badShape) {
        error = new ScriptRunner.UnexpectedReplyException("unexpected reply " + reply + " from acquire.lua for lock '"
            + state.keys.name() + "'", badShape);
      }
    }
    if (trace.isTraceEnabled()) {
      trace.trace("{} reply {} to {} phase {} sent {} us ago: {}", owner, error == null ? reply : error, mode, phase,
          (System.nanoTime() - sent) / 1000, error == null ? "" : error.getClass().getSimpleName());
    }
    if (error != null && reentering == null && mode != AcquireMode.ABANDON && ScriptRunner.mayHaveRun(error)) {
      extendedByUnknown(sent);
    }
    if (error == null) {
      timer.succeeded();
      // What Redis now holds for this owner, as far as this reply tells.
      inRedis = !(mode == AcquireMode.TRY && code == 0) && code != -1 && code != -2 && code != -3;
      endedGrantsUpTo = Math.max(endedGrantsUpTo, issued);
    }
    switch (phase) {
      case ACTIVE -> {
        if (error != null) {
          attemptFailed(mode, error);
        } else {
          answered(mode, sent, code, token, serial, n, acks);
        }
      }
      case WITHDRAWING -> cleanUp(error);
      case HELD -> {
        // A grant arrived while this call was in flight. Normally the reply says the same or less;
        // but if Redis ran the call after that grant had ended, the hold is gone, and a 'wait' has
        // queued the owner again.
        if (reentering == null && issued != 0 && held.serial <= issued) {
          held.lost("the lock handed over to it had expired before the client learned of the grant");
          if (code == 0) {
            calls.withdrawOrphan(state.kind, state.keys, owner);
          }
        }
      }
      default -> {
        // SETTLED: nothing left to do.
      }
    }
  }

  private void answered(AcquireMode mode, long sent, int code, long token, long serial, long n, long acks) {
    if ((code == 1 || code == 3) && calls.waitsForReplicas() && acks < engine.settings().replicaAcks()) {
      // Held in Redis, but a failover could still erase it: it does not count. fail() releases it.
      fail(new RelockException("lock '" + state.keys.name() + "' was acquired, but only " + Math.max(0, acks)
          + " of " + engine.settings().replicaAcks() + " replicas acknowledged it within "
          + engine.settings().replicaAckTimeout() + " (replicaAcks); released it"));
      return;
    }
    switch (code) {
      case 1 -> {
        if (!arrivedTooLate(sent, false, token, serial)) {
          succeed(token, serial, sent, false);
        }
      }
      case 2 -> reentered();
      case 3 -> {
        handedOver = true;
        if (!arrivedTooLate(grantNoEarlierThan, true, token, serial)) {
          succeed(token, serial, grantNoEarlierThan, true);
        }
      }
      case 0 -> busy(mode, sent, n);
      case -1 -> fail(timeout()); // 'giveup' withdrew it
      case -2 -> {
        reentering.lost("re-entry found the lock expired or held by another owner");
        fail(new LockLostException(reentering.lockName(), reentering.lostReason()));
      }
      case -3 -> send(AcquireMode.WAIT); // the entry expired while this client was stalled
      default -> fail(new RelockException("unexpected reply code " + code + " from acquire.lua for lock '"
          + state.keys.name() + "'"));
    }
  }

  /**
   * Whether a grant came too late to count from when it is known to have started: the reply to
   * this acquisition's own call came after the lease that call began would have run out (the
   * client stalled, or the reply was delayed past the lease), or a grant handed over while it
   * waited is known only to have started after its last call, so long ago that less than a third
   * of its claim time is left (too little for the hand-over's confirmation to be sure to run: the
   * caller would get a lease that is lost a moment later). Such a
   * grant is not handed to the caller as a lease lost on arrival, nor thrown away while Redis may
   * still hold it for this owner (left to expire, it would keep others out for nothing): the
   * acquisition first renews it ({@link #confirm}), and the lease then counts from that call. With
   * its wait over, it gives up instead, and its withdrawal releases the grant.
   */
  private boolean arrivedTooLate(long validFromNanos, boolean handedOff, long token, long serial) {
    long ends = keeper.grantEndsNanos(leaseMillis, validFromNanos, handedOff);
    // A handed-over grant must also leave its confirmation (see LeaseKeeper#acquired) time to run.
    if (ends - System.nanoTime() > (handedOff ? keeper.claimMarginNanos(leaseMillis) : 0)) {
      return false;
    }
    if (timed() && System.nanoTime() - deadlineNanos >= 0) {
      fail(timeout()); // no time left to confirm it: withdrawn, released if Redis still holds it
      return true;
    }
    if (trace.isTraceEnabled()) {
      trace.trace("{} grant {} known {} us after its lease could have run out: confirming it", owner, serial,
          (System.nanoTime() - ends) / 1000);
    }
    confirm(token, serial);
    return true;
  }

  /**
   * Renews a grant whose start is not known closely enough (see {@link #arrivedTooLate}) for a
   * whole lease, as the watchdog would. Renewed: held, from this call's send time. Not held (it
   * expired or was taken meanwhile): that grant has ended, and the acquisition asks again.
   */
  private void confirm(long token, long serial) {
    inFlight = true;
    long sent = System.nanoTime();
    keeper.renewHold(state, owner, leaseMillis)
        .whenComplete((held, error) -> state.post(() -> onConfirmed(sent, token, serial, held, error)));
  }

  private void onConfirmed(long sent, long token, long serial, Boolean held, Throwable error) {
    inFlight = false;
    if (error != null && ScriptRunner.mayHaveRun(error)) {
      extendedByUnknown(sent);
    }
    switch (phase) {
      case ACTIVE -> {
        if (error != null) {
          attemptFailed(AcquireMode.RECHECK, error); // sends 'wait' again, which answers what Redis holds now
        } else if (held) {
          timer.succeeded();
          if (!arrivedTooLate(sent, false, token, serial)) {
            succeed(token, serial, sent, false);
          }
        } else {
          timer.succeeded();
          endedGrantsUpTo = Math.max(endedGrantsUpTo, serial);
          recheck();
        }
      }
      case WITHDRAWING -> cleanUp(error);
      default -> {
        // SETTLED: nothing left to do.
      }
    }
  }

  /** A call sent at {@code sent} may have taken or renewed the lock for a whole lease: see {@link #extendedTo}. */
  private void extendedByUnknown(long sent) {
    long until = keeper.extendedByCallTo(sent, leaseMillis);
    if (until - extendedTo > 0) {
      extendedTo = until;
    }
    if (held != null) {
      held.mayBeExtendedTo(until);
    }
  }

  /** See {@link #extendedTo}. */
  long extendedTo() {
    return extendedTo;
  }

  /** See {@link #toldOfForcedUnlock}. */
  void heardForcedUnlock() {
    toldOfForcedUnlock = true;
  }

  private void busy(AcquireMode mode, long sent, long pttlMillis) {
    if (mode == AcquireMode.TRY) {
      fail(timeout());
      return;
    }
    engine.hearGrants(state); // queued: on a sharded cluster, listen on the lock's channel
    if (sent - grantNoEarlierThan > 0) {
      grantNoEarlierThan = sent;
    }
    if (confirmGrant) {
      confirmGrant = false;
      recheck(); // a grant arrived while this call was in flight
      return;
    }
    if (freedInFlight) {
      freedInFlight = false;
      retryAfterFree(); // a Redlock master freed the lock while this call was in flight
      return;
    }
    long delay = engine.settings().recheckInterval().toNanos();
    if (pttlMillis >= 0) {
      // 0: the hold ends within the millisecond (acquire.lua counts it from the hold's value); -1
      // or -2: no end known, a grant or a recheck will come.
      delay = Math.min(delay, TimeUnit.MILLISECONDS.toNanos(pttlMillis + 1));
    }
    if (timed()) {
      delay = Math.min(delay, deadlineNanos - System.nanoTime());
    }
    timer.after(delay, this::recheck);
  }

  private void recheck() {
    if (phase != Phase.ACTIVE || inFlight) {
      return;
    }
    send(timed() && System.nanoTime() - deadlineNanos >= 0 ? AcquireMode.GIVEUP : AcquireMode.RECHECK);
  }

  /** Redis could not be asked: try again while the wait lasts, else give up. */
  private void attemptFailed(AcquireMode mode, Throwable error) {
    long now = System.nanoTime();
    // A zero (or tiny) wait still gets one command timeout's worth of attempts; no wait limit, no end.
    long until = timed() ? Math.max(deadlineNanos, startNanos + engine.settings().commandTimeout().toNanos())
        : Long.MAX_VALUE;
    if (!ScriptRunner.isTransient(error) || engine.isClosed() || now - until >= 0) {
      fail(error instanceof RelockException r ? r : new RelockException(String.valueOf(error), error));
      return;
    }
    AcquireMode again = switch (mode) {
      case RECHECK -> AcquireMode.WAIT;
      default -> mode;
    };
    long delay = timer.nextBackoffNanos();
    if (until != Long.MAX_VALUE) {
      delay = Math.min(delay, until - now);
    }
    timer.after(delay, () -> send(again));
  }

  // ---- outcomes -----------------------------------------------------------------------------

  /**
   * @param handedOff whether the lock was granted by another owner's release (it then first
   *     lasts only the claim time, see handoff.lua)
   */
  private void succeed(long token, long serial, long validFromNanos, boolean handedOff) {
    if (phase != Phase.ACTIVE) {
      return;
    }
    timer.cancel();
    phase = Phase.HELD;
    if (trace.isTraceEnabled()) {
      trace.trace("{} holds token {} valid from {} us ago, handed off {}", owner, token,
          (System.nanoTime() - validFromNanos) / 1000, handedOff);
    }
    held = keeper.acquired(this, token, serial, validFromNanos, handedOff);
    engine.holds.incrementAndGet();
    reportAcquired();
    held.handedOver = handedOver;
    if (watched != null) {
      held.observe(watched.acquired(token, handedOver, false, 1));
    }
    state.held(this, held);
    state.leaveQueue(this);
    if (toldOfForcedUnlock) {
      keeper.checkHold(held); // the notice came before the hold: read who holds the lock now
    }
    result.complete(held);
  }

  private void reportAcquired() {
    if (engine.listeners.any()) {
      java.time.Duration waited = java.time.Duration.ofNanos(System.nanoTime() - startNanos);
      engine.listeners.emit(l -> l.acquired(state.keys.name(), waited));
    }
  }

  private void reentered() {
    timer.cancel();
    phase = Phase.HELD;
    held = reentering;
    reentering.threadHolds++;
    reportAcquired();
    if (watched != null) {
      watched.acquired(reentering.token, false, true, 1);
    }
    result.complete(reentering);
    settle();
  }

  /**
   * Delivered from a grant notification: the previous holder's release handed us the lock.
   *
   * @param serial tells this grant from earlier ones of the owner (see {@link HeldLease#serial})
   */
  void granted(long serial, long token) {
    if (trace.isTraceEnabled()) {
      trace.trace("{} granted {} ({}) phase {} ended up to {} in flight {}", owner, token, serial, phase, endedGrantsUpTo,
          inFlight);
    }
    if (reentering != null || serial <= endedGrantsUpTo) {
      return; // a late notification of a grant that Redis has since ended
    }
    handedOver = true;
    if (calls.waitsForReplicas() || waitSentAgain) {
      askAfterGrant();
      return;
    }
    if (phase == Phase.ACTIVE
        && keeper.claimEndsNanos(leaseMillis, grantNoEarlierThan) - System.nanoTime() <= keeper.claimMarginNanos(leaseMillis)) {
      // Known too late to count from grantNoEarlierThan: confirm it first (see arrivedTooLate). A
      // call in flight answers for it instead.
      if (!inFlight) {
        timer.cancel();
        arrivedTooLate(grantNoEarlierThan, true, token, serial);
      }
      return;
    }
    succeed(token, serial, grantNoEarlierThan, true);
  }

  /**
   * A release by another owner of this client passed the lock straight to this waiter; the lease
   * started no earlier than that release was sent. If this acquisition has given up meanwhile,
   * its pending {@code abandon} releases it; if that is already over, release it here.
   */
  void passed(long token, long releaseSentNanos) {
    if (trace.isTraceEnabled()) {
      trace.trace("{} passed {} phase {} ended up to {}", owner, token, phase, endedGrantsUpTo);
    }
    if (token <= endedGrantsUpTo) {
      return; // the release's reply came after one of this owner's own, which found it ended
    }
    handedOver = true;
    if (phase == Phase.ACTIVE && (calls.waitsForReplicas() || waitSentAgain)) {
      askAfterGrant();
    } else if (phase == Phase.ACTIVE) {
      succeed(token, token, Math.max(releaseSentNanos, grantNoEarlierThan), false);
    } else if (phase == Phase.SETTLED) {
      calls.withdrawOrphan(state.kind, state.keys, owner);
    }
  }

  /**
   * A grant that this owner's own call must confirm before it counts: re-check now ({@code
   * recheck} answers "held"), or as soon as the call in flight answers. With replica
   * acknowledgements on, a grant counts only once replicas acknowledged it, and only this owner's
   * own call can be followed by a WAIT that covers it ({@code recheck} then answers with a write,
   * see acquire.lua). With a {@code wait} sent again on its way ({@link #waitSentAgain}), the
   * grant counts only once that call has run: its reply then says "held", or what became of the
   * grant.
   */
  private void askAfterGrant() {
    if (phase != Phase.ACTIVE) {
      return;
    }
    if (inFlight) {
      confirmGrant = true;
    } else {
      timer.cancel();
      recheck();
    }
  }

  /** The caller gets {@code error}; whatever Redis may hold for this owner is withdrawn. */
  void fail(Throwable error) {
    leaveJoint();
    if (phase == Phase.HELD || phase == Phase.WITHDRAWING || phase == Phase.SETTLED) {
      return;
    }
    timer.cancel();
    state.leaveQueue(this);
    phase = Phase.WITHDRAWING;
    if (engine.listeners.any()) {
      java.time.Duration waited = java.time.Duration.ofNanos(System.nanoTime() - startNanos);
      engine.listeners.emit(l -> l.acquireFailed(state.keys.name(), waited, error));
    }
    if (watched != null) {
      watched.failed(error);
    }
    result.completeExceptionally(error);
    if (!inFlight || reentering != null) {
      // A re-entry leaves nothing to withdraw (an extra count in Redis is harmless: the last
      // unlock frees every hold), so it is over at once; a reply still on its way is ignored.
      cleanUp(null);
    }
  }

  /**
   * After the caller gave up, and after every reply that came in since: withdraw from Redis
   * whatever may still be there, until Redis confirms it is gone.
   */
  private void cleanUp(Throwable lastError) {
    if (promised) {
      return; // the release that named it as follower answers first (see followerAnswered)
    }
    if (lastError == null && (!inRedis || reentering != null)) {
      // Nothing in Redis (a re-entry's extra count there is harmless: the last unlock frees all).
      settle();
      return;
    }
    if (lastError != null && !ScriptRunner.isTransient(lastError) || engine.isTerminated()) {
      settle(); // Redis refuses the call itself (a key of the wrong type): nothing more can be done
      return;
    }
    if (lastError != null) {
      timer.after(timer.nextBackoffNanos(), () -> cleanUp(null));
      return;
    }
    send(AcquireMode.ABANDON);
  }

  private void settle() {
    if (phase == Phase.SETTLED) {
      return;
    }
    if (phase != Phase.HELD && releaseInDoubt != null && !engine.isTerminated()) {
      CompletableFuture<Void> doubt = releaseInDoubt;
      releaseInDoubt = null;
      doubt.whenComplete((v, e) -> state.post(() -> {
        inRedis = true; // the lock, if that release handed it over after this owner's last call
        cleanUp(null);
      }));
      return;
    }
    if (phase != Phase.HELD) {
      phase = Phase.SETTLED;
    }
    timer.cancel();
    settled.complete(null);
    if (reentering != null || phase == Phase.SETTLED) {
      state.settled(this);
    }
  }

  /**
   * The caller stops waiting (interrupt, cancel, client closing). Completes with the hold if the
   * acquisition had already succeeded (the caller must take it), else with null once Redis has
   * confirmed that nothing is left there, or the attempt to make sure went on in the background.
   */
  CompletableFuture<HeldLease> withdraw(Throwable reason) {
    switch (phase) {
      case HELD -> {
        return CompletableFuture.completedFuture(held);
      }
      case SETTLED -> {
        return CompletableFuture.completedFuture(null);
      }
      default -> {
        fail(reason);
        return settled.thenApply(v -> null);
      }
    }
  }

  /**
   * A Redlock node freed the lock (Redlock has no hand-over): if waiting in Redis, try again after
   * a pause of 1 ms (the release is still under way on the other nodes) plus a random part of up
   * to {@link #FREED_JITTER_NANOS}, so that clients woken by the same release seldom split the
   * nodes between them. The first node's message sets the time; later ones do not postpone it.
   */
  void freed() {
    if (phase == Phase.ACTIVE && inFlight && reentering == null) {
      // The attempt out now may be refused by a hold that has just ended: retry soon after its
      // reply instead of waiting out the lease that reply will report (see busy()).
      freedInFlight = true;
    } else if (waitsForGrant() && !timer.isArmedSoonerThan(FREED_PAUSE_NANOS + FREED_JITTER_NANOS)) {
      retryAfterFree();
    }
  }

  private void retryAfterFree() {
    long pause = FREED_PAUSE_NANOS + java.util.concurrent.ThreadLocalRandom.current().nextLong(FREED_JITTER_NANOS);
    timer.after(pause, this::recheck);
  }

  private static final long FREED_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
  private static final long FREED_JITTER_NANOS = TimeUnit.MILLISECONDS.toNanos(3);

  /** The connection came back: re-check or retry now rather than at the next timer. */
  void reconnected() {
    if (promised) {
      reconnectedWhilePromised = true;
    } else if (phase == Phase.ACTIVE || phase == Phase.WITHDRAWING) {
      timer.now();
    }
  }

  private LockTimeoutException timeout() {
    return new LockTimeoutException(state.keys.name(), timed() ? wait : Duration.ZERO);
  }
}

package io.relock.internal;

import io.relock.RelockException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One release of a hold in Redis: all of it ({@code unlock()} of the last hold, a lease's {@code
 * close()}, a client closing), or one of a thread's several holds. Confined to its {@link
 * LockState}'s mailbox, like everything the state owns.
 *
 * <p>Redis unreachable: the release is tried again (at once when the connection comes back, else
 * after a backoff) until the command timeout has passed since it began; the caller is then told
 * with a {@link RelockException}, and a full release goes on trying in the background until the
 * lock would have expired in Redis anyway ({@link HeldLease#heldInRedisAtMostUntil}: a renewal
 * whose reply never came may have extended it for a whole lease), so that a brief outage does not
 * keep others waiting for a whole lease. A retry never names a successor: the lock may already
 * have been passed on by the attempt whose reply was lost.
 */
final class Release {
  private static final org.slf4j.Logger trace = org.slf4j.LoggerFactory.getLogger("io.relock.trace");
  /** How a release ended for its caller: {@code lostReason} is null unless the hold had been lost. */
  record Outcome(HeldLease hold, String lostReason) {}

  private final LockState state;
  private final LockEngine engine;
  final HeldLease hold;
  /** Every hold at once, freeing the lock; or one of several, never freeing it. */
  final boolean all;
  private Acquisition successor;
  private boolean ahead;
  /**
   * Whether the successor is a follower: a waiter of this client that has not asked Redis, which
   * the release hands the lock to or queues (see LockState#finish). It waits for this release's
   * answer before it asks anything itself.
   */
  private final boolean follows;
  private final CompletableFuture<Outcome> caller;
  private final CompletableFuture<Void> finished = new CompletableFuture<>();
  private final long callerDeadline;
  private final Retry retry;
  /** Send time of the first attempt, and whether some attempt's outcome is unknown. */
  private long firstSent;
  private boolean outcomeUnknown;

  Release(LockState state, HeldLease hold, boolean all, Acquisition successor, boolean ahead, boolean follows,
      CompletableFuture<Outcome> caller) {
    this.follows = follows;
    this.state = state;
    this.engine = state.engine;
    this.hold = hold;
    this.all = all;
    this.successor = successor;
    this.ahead = ahead;
    this.caller = caller;
    long now = System.nanoTime();
    this.callerDeadline = now + engine.settings().commandTimeout().toNanos();
    this.retry = new Retry(engine.timer, state);
  }

  /**
   * When a failed attempt is no longer tried again: a full release tries until Redis has let the
   * lock go by itself, however late a call that may have extended it there was sent. Read at each
   * failure, not when the release began: a renewal sent just before the hold closed may be counted
   * only after (see WatchdogRenewer#renew).
   */
  private long giveUpAt() {
    long expiry = hold.heldInRedisAtMostUntil();
    return all && expiry - callerDeadline > 0 ? expiry : callerDeadline;
  }

  /** Completes when this release is over in every way, background retries included. */
  CompletableFuture<Void> finished() {
    return finished;
  }

  void send() {
    long sent = System.nanoTime();
    if (firstSent == 0) {
      firstSent = sent;
    }
    Acquisition passTo = successor;
    if (trace.isTraceEnabled()) {
      trace.trace("{} release all {} token {} to {}{}", hold.owner, all, hold.token,
          passTo == null ? "-" : passTo.owner, follows && passTo != null ? " (follower)" : "");
    }
    // Where the hold may well be another owner's by now, Redis reads it before taking it.
    boolean careful = all && (outcomeUnknown || hold.lostReason() != null || sent - hold.validUntilNanos() >= 0);
    engine.calls.runRelease(hold, all, careful, passTo, ahead, follows && passTo != null)
        .whenComplete((reply, error) -> state.post(() -> onReply(passTo, sent, reply, error)));
  }

  /** Whether this release, still unanswered, names {@code a} as the one to pass the lock to. */
  boolean passesTo(Acquisition a) {
    return successor == a && !finished.isDone();
  }

  void reconnected() {
    retry.now();
  }

  private void onReply(Acquisition passTo, long sent, List<Object> reply, Throwable error) {
    if (trace.isTraceEnabled()) {
      trace.trace("{} release reply {}", hold.owner, error == null ? reply : error);
    }
    if (error != null) {
      failed(error);
      return;
    }
    long code;
    try {
      code = (Long) reply.get(0);
    } catch (RuntimeException badShape) {
      failed(new ScriptRunner.UnexpectedReplyException("unexpected reply " + reply + " from release.lua for lock '"
          + hold.lockName() + "'", badShape));
      return;
    }
    if (all && outcomeUnknown && code <= 0 && firstSent - hold.validUntilNanos() < 0) {
      // Not ours any more, though it still was when the first attempt went out: that attempt
      // released it and its reply was lost. (Dropping one of several holds never frees the lock.)
      code = 2;
    }
    if (code == 3) {
      // This hold has ended before the next one begins: observers hear it in that order.
      hold.endObserved(io.relock.LockObserver.Outcome.RELEASED, null);
      if (follows) {
        passTo.passedToFollower((Long) reply.get(1), sent);
      } else {
        passTo.passed((Long) reply.get(1), sent);
      }
    } else {
      if (code == 2 || code == 4) {
        state.freedForOthers();
      }
      if (follows && passTo != null) {
        passTo.followerAnswered(code == 4, finished); // queued behind others' waiters, or not (it asks for itself)
      }
    }
    String lost = null;
    if (code <= 0) {
      lost = (code == 0 ? "the lock is held by another owner" : "the lock had expired") + deadlineNote();
      Release ending = hold.endingRelease;
      if (!all && ending != null) {
        // The release of every hold (close() of the client) began after this one and may have
        // reached Redis first: then it freed the lock. Lost only if that release found it lost.
        ending.caller.whenComplete((o, e) -> state.post(() -> caller.complete(
            new Outcome(hold, o == null ? null : o.lostReason()))));
        done();
        return;
      }
      if (!all) {
        hold.lost(lost);
      }
    }
    caller.complete(new Outcome(hold, lost));
    done();
  }

  /** Whether the release left before the lease's local deadline: tells a late release from a loss in use. */
  private String deadlineNote() {
    long ms = TimeUnit.NANOSECONDS.toMillis(hold.validUntilNanos() - firstSent);
    return ms >= 0
        ? " (token " + hold.token + "; the release left " + ms + " ms before the lease's local deadline: Redis ran it late, or lost the lock)"
        : " (token " + hold.token + "; the lease's local deadline had passed " + -ms + " ms before the release)";
  }

  private void failed(Throwable error) {
    boolean mayHaveRun = ScriptRunner.mayHaveRun(error);
    outcomeUnknown |= mayHaveRun;
    if (follows && successor != null) {
      // Handed the lock, queued, or neither: unknown if the call may have run.
      successor.followerAnswered(mayHaveRun ? null : Boolean.FALSE, finished);
    }
    successor = null;
    ahead = false;
    long now = System.nanoTime();
    boolean transientFailure = ScriptRunner.isTransient(error);
    if (!caller.isDone() && (!transientFailure || now - callerDeadline >= 0)) {
      if (hold.lostReason() != null) {
        // Already known lost: that is what the caller must hear, not that Redis could not be
        // reached to release a lock that is no longer its own.
        caller.complete(new Outcome(hold, hold.lostReason()));
      } else {
        RelockException e = error instanceof RelockException r ? r
            : new RelockException("could not release lock '" + hold.lockName() + "': " + error, error);
        caller.completeExceptionally(e);
      }
    }
    long giveUpAt = giveUpAt();
    if (transientFailure && now - giveUpAt < 0 && !engine.isTerminated()) {
      long delay = Math.min(retry.nextBackoffNanos(), Math.max(0, (caller.isDone() ? giveUpAt : callerDeadline) - now));
      retry.after(delay, this::send);
      return;
    }
    done();
  }

  private void done() {
    retry.cancel();
    finished.complete(null);
    state.releaseDone(this);
  }
}

package io.relock.internal;

import io.relock.LockLostException;
import io.relock.RelockException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a holder asks of its lease, on the holder's thread: {@link HeldLease#close()}, {@link
 * HeldLease#extend} and {@link HeldLease#closeAfter}, and the wait for a release to be confirmed
 * (also for {@code unlock()} and a multi-lock's leases). A release itself is the lock state's
 * (posted to its mailbox); an extension sets the hold's deadline and asks the {@link
 * LeaseKeeper}, which made this object, to take the hold off the watchdog or re-arm its expiry
 * check. The keeper calls nothing here.
 */
final class LeaseChanges {
  /** The engine's logger (see {@link LeaseKeeper}). */
  private static final Logger log = LoggerFactory.getLogger(LockEngine.class);

  private final LeaseKeeper keeper;
  private final WatchdogRenewer watchdog;
  private final RelockSettings settings;
  /** How long a caller waits for Redis to confirm a release: twice the command timeout, and a second. */
  private final Duration releaseWait;

  LeaseChanges(LeaseKeeper keeper, WatchdogRenewer watchdog, RelockSettings settings, Duration releaseWait) {
    this.keeper = keeper;
    this.watchdog = watchdog;
    this.settings = settings;
    this.releaseWait = releaseWait;
  }

  // ---- releasing ----------------------------------------------------------------------------

  /** {@link HeldLease#close()}: releases a lease, once, from any thread. */
  void close(HeldLease h) {
    finishRelease(startClose(h), h.lockName());
  }

  /**
   * Starts releasing a lease without waiting: several leases' releases then travel together (a
   * multi-lock's), each finished with {@link #finishRelease}.
   */
  CompletableFuture<Release.Outcome> startClose(HeldLease h) {
    // A lease closed past its local deadline is lost, whether or not the expiry check has come
    // round (isValid() marks it, as it does for any caller): what the release then finds in Redis
    // under this owner may be a key that a late call of its own acquisition wrote after the hold
    // had ended (a call failed at the command timeout may still run), not the hold it had. Found
    // by the model (issue 42, point 1). Reported here, on the closing thread, as LockLease#onLost
    // promises for a loss close() finds (isValid() would hand the listeners to the event thread).
    if (!h.closed.get() && h.lostReason() == null && System.nanoTime() - h.validUntilNanos() >= 0) {
      h.lostOnClose(keeper.expiryReason(h));
    }
    CompletableFuture<Release.Outcome> done = new CompletableFuture<>();
    h.state.post(() -> h.state.close(h, done));
    return done;
  }

  /** Waits for a release and throws what its caller must hear: a loss, or Redis failing. */
  void finishRelease(CompletableFuture<Release.Outcome> done, String name) {
    Release.Outcome outcome;
    try {
      outcome = Waiting.awaitUninterruptibly(done, releaseWait);
    } catch (TimeoutException e) {
      throw new RelockException("Redis did not confirm the release of lock '" + name + "' in time", e);
    }
    if (outcome == null) {
      return; // closed before: closing again does nothing
    }
    // A loss already reported to the holder keeps the reason it was reported with.
    String lost = outcome.hold().lostReason() != null ? outcome.hold().lostReason() : outcome.lostReason();
    if (lost != null) {
      outcome.hold().lostOnClose(lost);
      throw new LockLostException(name, lost);
    }
  }

  // ---- changing a lease: extend and closeAfter ----------------------------------------------

  /**
   * {@link HeldLease#extend}: sets the hold's time to live in Redis (extend.lua), owner-checked,
   * and its local deadline with it. The hold's state is not involved: nothing but the deadline
   * changes, and that belongs to the hold (see {@link HeldLease#beginLeaseChange}).
   */
  void extend(HeldLease h, Duration lease) {
    Checks.lease("lease", lease);
    requireWithinRestartDelay("lease", lease, h.lockName());
    long millis = lease.toMillis();
    java.util.concurrent.locks.ReentrantLock turn = h.leaseChanges();
    turn.lock();
    try {
      awaitConfirmation(h);
      if (h.closed.get()) {
        throw new IllegalStateException("the lease on lock '" + h.lockName() + "' (token " + h.token
            + ") is closed; it cannot be extended");
      }
      if (!h.isValid()) {
        throw new LockLostException(h.lockName(), h.lostReason());
      }
      // A watchdog-renewed lease becomes a fixed one: the watchdog's next round would undo the
      // extension (renew.lua sets the default lease), and a shorter one could run out before it.
      boolean wasRenewed = h.renewed;
      watchdog.remove(h);
      long sent = System.nanoTime();
      long until = sent + TimeUnit.MILLISECONDS.toNanos(millis) - settings.driftNanosForMillis(millis);
      // A longer extension whose answer is lost may still have run: a release keeps trying that long.
      h.mayBeExtendedTo(keeper.extendedByCallTo(sent, millis));
      h.beginLeaseChange(until);
      boolean held;
      try {
        held = (Long) Waiting.await(keeper.runExtend(h, millis)).get(0) == 1L;
      } catch (RuntimeException e) {
        h.endLeaseChange(false, 0);
        if (wasRenewed && !h.closed.get() && h.lostReason() == null) {
          watchdog.add(h); // as it was: renewed on, whatever Redis ran
        }
        keeper.rearmExpiryCheck(h);
        throw e;
      }
      if (!held) {
        h.endLeaseChange(false, 0);
        h.lost("an extension found the lock expired or held by another owner");
        throw new LockLostException(h.lockName(), h.lostReason());
      }
      h.renewed = false;
      if (!h.endLeaseChange(true, until)) {
        h.lost("an extension was answered after the lease's local deadline had passed");
        throw new LockLostException(h.lockName(), h.lostReason());
      }
      h.extendedMillis = millis;
      keeper.rearmExpiryCheck(h);
    } finally {
      turn.unlock();
    }
  }

  /**
   * {@link HeldLease#closeAfter}: closes the lease in the client (see LockState#closeAfter) and has
   * Redis expire its hold {@code keep} from now (extend.lua); {@code keep} zero or negative is a
   * plain close. A lease already lost or past its deadline is closed as {@link #close} does, which
   * reads the lock before it takes anything and reports the loss.
   */
  void closeAfter(HeldLease h, Duration keep) {
    java.util.Objects.requireNonNull(keep, "keep must not be null");
    if (keep.isZero() || keep.isNegative()) {
      close(h);
      return;
    }
    requireWithinRestartDelay("keep", keep, h.lockName());
    long millis = Math.max(1, keep.toMillis());
    java.util.concurrent.locks.ReentrantLock turn = h.leaseChanges();
    turn.lock();
    try {
      awaitConfirmation(h);
      if (h.closed.get()) {
        return;
      }
      if (!h.isValid()) {
        close(h);
        return;
      }
      CompletableFuture<Release.Outcome> done = new CompletableFuture<>();
      h.state.post(() -> h.state.closeAfter(h, millis, done));
      finishRelease(done, h.lockName());
    } finally {
      turn.unlock();
    }
  }

  /** On Redlock, no hold may outlast the restart delay (see {@link LockEngine#acquire}). */
  private void requireWithinRestartDelay(String what, Duration d, String name) {
    if (settings.redlockRestartDelay() != null && d.compareTo(settings.redlockRestartDelay()) > 0) {
      throw new IllegalArgumentException(what + " " + d + " for lock '" + name + "' is longer than the Redlock restart"
          + " delay " + settings.redlockRestartDelay() + ": a node that lost its data could rejoin while the lock is"
          + " still held; raise redlockRestartDelay(...) or ask for less");
    }
  }

  /**
   * Waits (at most the release wait) for a hand-over's confirmation under way: its write must not
   * land after a change of the lease and undo it.
   */
  private void awaitConfirmation(HeldLease h) {
    CompletableFuture<Void> c = h.confirmation;
    if (c != null && !c.isDone()) {
      try {
        Waiting.awaitUninterruptibly(c, releaseWait);
      } catch (TimeoutException e) {
        log.debug("lock '{}': changing the lease without its hand-over's confirmation, which is late", h.lockName());
      }
    }
  }
}

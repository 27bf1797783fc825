package io.relock.internal;

import io.relock.LockLease;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One owner's hold on a lock in Redis. Lease-style acquisitions get one each; a thread's {@code
 * lock()} holds share one, counted by {@link #threadHolds}.
 *
 * <p>Validity is judged by the local monotonic clock: {@link #validUntilNanos} is the time the
 * acquisition (or the last successful renewal) was sent plus the lease minus the drift allowance.
 * Redis started the lease after that send, so the local deadline never outlasts Redis's.
 *
 * <p>Two kinds of state live here. Validity and loss only ever move one way (later deadline, valid
 * to lost, open to closed) and are set with atomic writes by whoever learns of them: the watchdog,
 * an expiry check, a caller of {@link #isValid()}. The one exception is {@link #extend}, which may
 * set a sooner deadline (see {@link #beginLeaseChange}). Everything else, the thread's hold count
 * included, belongs to the lock's {@link LockState} and is written only by its mailbox.
 */
final class HeldLease implements LockLease {
  final LeaseKeeper keeper;
  final LockState state;
  final LockKeys keys;
  /** The key this hold lives under in Redis, which the watchdog renews (see {@link LockKind#holdKey}). */
  final String holdKey;
  final String owner;
  final long token;
  /**
   * Tells the grant that made this hold from the owner's earlier ones, so that a late notification
   * of an ended grant is known as such: the token, except for a read lock's hold that joined a read
   * epoch, whose token is the epoch's and whose serial is a token of its own, issued from the fence
   * for its grant as any token is (see readwrite.lua).
   */
  final long serial;
  final long leaseNanos;
  final long driftNanos;
  /**
   * Whether the watchdog renews this lease (no explicit lease was given); an {@link #extend} takes
   * it off the watchdog for good.
   */
  volatile boolean renewed;
  /** The lease the last {@link #extend} set, in ms (0: never extended), for the loss's message. */
  volatile long extendedMillis;
  /** The owning thread's id for {@code lock()} style holds, or -1 for a lease-style owner. */
  final long threadId;
  /**
   * Whether the lock came by hand-over rather than found free (for {@link io.relock.LockObserver}s
   * of a multi-lock). Written by the mailbox before the acquisition completes.
   */
  boolean handedOver;
  /** When the client learned it holds the lock, for {@link io.relock.RelockListener#released}. */
  final long acquiredAtNanos = System.nanoTime();

  /**
   * {@code lock()} holds not yet matched by {@code unlock()}. Written only by the state's mailbox;
   * read by the owning thread, which waited for that write.
   */
  volatile int threadHolds = 1;

  private volatile long validUntilNanos;
  /**
   * The latest Redis may hold this lease until, as the calls sent to extend it tell (see {@link
   * #mayBeExtendedTo}): a call's extension counts from when it runs, which the client learns only
   * from its reply, so a call whose reply is still on its way (or never came) may have moved Redis's
   * expiry far past {@link #validUntilNanos}. A release must keep trying until then.
   */
  private volatile long extendedToNanos;
  private static final java.util.concurrent.atomic.AtomicLongFieldUpdater<HeldLease> EXTENDED_TO =
      java.util.concurrent.atomic.AtomicLongFieldUpdater.newUpdater(HeldLease.class, "extendedToNanos");
  /**
   * The release of every hold of this one, once it has begun (see LockState#finish): a release of
   * one of several holds sent before it may reach Redis after it. Written and read by the state's
   * mailbox only.
   */
  Release endingRelease;
  private volatile String lostReason;
  private final AtomicBoolean lostReported = new AtomicBoolean();
  final AtomicBoolean closed = new AtomicBoolean();
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
  volatile ScheduledFuture<?> expiryCheck;
  /** Whether the watchdog's last call to renew this lease failed (see {@link io.relock.RelockStats}). */
  volatile boolean renewalFailed;
  /**
   * 1 while a pass of the watchdog owns this lease's renewal (from its tick until a call renews it,
   * or until the retries of a call that failed end): a tick skips a lease another pass still owns,
   * so that no lease has two renewals under way.
   */
  volatile int renewing;
  static final java.util.concurrent.atomic.AtomicIntegerFieldUpdater<HeldLease> RENEWING =
      java.util.concurrent.atomic.AtomicIntegerFieldUpdater.newUpdater(HeldLease.class, "renewing");
  /**
   * Notices of a forced unlock since the last check began (see LeaseKeeper#checkHold): a field, not
   * an object, since every hold has one and almost none ever hears such a notice.
   */
  volatile int notices;
  static final java.util.concurrent.atomic.AtomicIntegerFieldUpdater<HeldLease> NOTICES =
      java.util.concurrent.atomic.AtomicIntegerFieldUpdater.newUpdater(HeldLease.class, "notices");
  /**
   * Set while a handed-over hold waits for its confirmation (see LeaseKeeper#confirmHandoff), which
   * completes it: a change of its lease waits for that first, so that the confirmation's write
   * cannot land after the change and undo it. Null otherwise.
   */
  volatile java.util.concurrent.CompletableFuture<Void> confirmation;
  /** Serialises {@link #extend} and {@link #closeAfter} of this lease; made on first use. */
  private volatile java.util.concurrent.locks.ReentrantLock leaseChanges;
  /**
   * Whether an {@link #extend} is under way, whether one ever was, and from when renewals count
   * again after the last one (see {@link #renewed}); guarded by this object's monitor.
   */
  private boolean changing;
  private boolean changedOnce;
  private long renewalsCountFromNanos;
  /** The {@link io.relock.LockObserver}s following this hold, until told it ended; usually null. */
  private volatile Observers.Hold observed;
  private static final java.util.concurrent.atomic.AtomicReferenceFieldUpdater<HeldLease, Observers.Hold> OBSERVED =
      java.util.concurrent.atomic.AtomicReferenceFieldUpdater.newUpdater(HeldLease.class, Observers.Hold.class,
          "observed");

  HeldLease(LeaseKeeper keeper, LockState state, String owner, long token, long serial, long leaseNanos,
      long driftNanos, boolean renewed, long threadId, long validUntilNanos) {
    this.keeper = keeper;
    this.state = state;
    this.keys = state.keys;
    this.holdKey = state.kind.holdKey(state.keys, owner);
    this.owner = owner;
    this.token = token;
    this.serial = serial;
    this.leaseNanos = leaseNanos;
    this.driftNanos = driftNanos;
    this.renewed = renewed;
    this.threadId = threadId;
    this.validUntilNanos = validUntilNanos;
    this.extendedToNanos = validUntilNanos + driftNanos;
  }

  @Override
  public String lockName() {
    return keys.name();
  }

  @Override
  public long fencingToken() {
    return token;
  }

  @Override
  public boolean isValid() {
    if (lostReason != null || closed.get()) {
      return false;
    }
    if (System.nanoTime() - validUntilNanos < 0) {
      return true;
    }
    // Past the deadline: report it now rather than when the expiry check comes round, so that a
    // holder that sees isValid() false also gets its onLost listeners.
    lost(keeper.expiryReason(this));
    return false;
  }

  @Override
  public Duration remaining() {
    if (lostReason != null || closed.get()) {
      return Duration.ZERO;
    }
    long left = validUntilNanos - System.nanoTime();
    return left <= 0 ? Duration.ZERO : Duration.ofNanos(left);
  }

  @Override
  public void onLost(Runnable listener) {
    Objects.requireNonNull(listener, "listener");
    listeners.add(listener);
    if (lostReason != null && lostReported.get()) {
      // Lost before the listener arrived: run it now, unless the reporting pass picks it up too.
      if (listeners.remove(listener)) {
        keeper.runListener(keys.name(), listener);
      }
    }
  }

  @Override
  public void close() {
    keeper.changes().close(this);
  }

  @Override
  public void extend(Duration lease) {
    keeper.changes().extend(this, lease);
  }

  @Override
  public void closeAfter(Duration keep) {
    keeper.changes().closeAfter(this, keep);
  }

  /** The lock that serialises this lease's changes (see {@link LeaseChanges#extend}). */
  java.util.concurrent.locks.ReentrantLock leaseChanges() {
    java.util.concurrent.locks.ReentrantLock l = leaseChanges;
    if (l == null) {
      synchronized (this) {
        l = leaseChanges;
        if (l == null) {
          l = new java.util.concurrent.locks.ReentrantLock();
          leaseChanges = l;
        }
      }
    }
    return l;
  }

  long validUntilNanos() {
    return validUntilNanos;
  }

  /**
   * A renewal sent at {@code sentNanos} found the lock still ours and extended it. One sent before
   * the last {@link #extend} was answered counts for nothing: Redis may have run it before the
   * extension (on another connection), whose end then stands, sooner perhaps.
   */
  synchronized void renewed(long sentNanos) {
    if (changing || changedOnce && sentNanos - renewalsCountFromNanos < 0) {
      return;
    }
    extendTo(sentNanos + leaseNanos - driftNanos);
  }

  /**
   * Moves the local deadline later (never earlier), unless it has passed: a lease past its deadline
   * is lost (as {@link #isValid()} says) even if a renewal's or a confirmation's answer comes after
   * it, since the key that call found under this owner may be one that a late call of the lease's
   * own acquisition wrote after the hold had ended (found by the model, issue 42 point 1). The
   * expiry check, or the next look at the lease, reports it.
   */
  synchronized void extendTo(long untilNanos) {
    if (System.nanoTime() - validUntilNanos >= 0) {
      return;
    }
    if (untilNanos - validUntilNanos > 0) {
      validUntilNanos = untilNanos;
    }
  }

  /**
   * A call that may extend this hold in Redis (a renewal, a hand-over's confirmation, a re-entry)
   * is about to be sent, or an acquisition's call whose outcome is unknown was: Redis may hold the
   * lock until {@code untilNanos} (see {@link LeaseKeeper#extendedByCallTo}). Never moves earlier.
   */
  void mayBeExtendedTo(long untilNanos) {
    EXTENDED_TO.accumulateAndGet(this, untilNanos, (was, now) -> now - was > 0 ? now : was);
  }

  /**
   * The latest Redis may still hold this lease: its local deadline plus the drift allowance, or
   * later if a call sent to extend it may have run there (see {@link #mayBeExtendedTo}).
   */
  long heldInRedisAtMostUntil() {
    long local = validUntilNanos + driftNanos;
    long extended = extendedToNanos;
    return extended - local > 0 ? extended : local;
  }

  /**
   * An extension that ends at {@code untilNanos} by the local clock is about to be sent: until it is
   * answered, the hold ends at the sooner of that and its deadline before (Redis may run it at any
   * moment), and no renewal counts.
   */
  synchronized void beginLeaseChange(long untilNanos) {
    changing = true;
    changedOnce = true;
    if (untilNanos - validUntilNanos < 0) {
      validUntilNanos = untilNanos;
    }
  }

  /**
   * The extension is over: Redis ran it ({@code ran}: {@code untilNanos} is then the hold's
   * deadline, sooner or later than before), or its outcome is unknown (the sooner deadline stands).
   * Renewals count again from those sent now on.
   *
   * @return whether the answer came before the deadline; if not, the deadline stays where it was
   */
  synchronized boolean endLeaseChange(boolean ran, long untilNanos) {
    // As for extendTo: an answer that comes after the deadline may have found a key a late call of
    // the lease's own acquisition wrote after the hold had ended; it does not revive the lease.
    boolean inTime = System.nanoTime() - validUntilNanos < 0;
    if (ran && inTime) {
      validUntilNanos = untilNanos;
    }
    changing = false;
    renewalsCountFromNanos = System.nanoTime();
    return inTime;
  }

  String lostReason() {
    return lostReason;
  }

  /**
   * Has {@code hold} follow this hold until it ends (a multi-lock's hold follows each of its
   * locks'). A hold already lost or closed ends it at once, so that no end goes unheard.
   */
  void observe(Observers.Hold hold) {
    if (hold == null) {
      return;
    }
    observed = hold;
    if (lostReason != null) {
      endObserved(io.relock.LockObserver.Outcome.LOST, new io.relock.LockLostException(keys.name(), lostReason));
    } else if (closed.get()) {
      // Closed before it could be followed (a multi-lock's caller may close it at once): its
      // release did not wait to tell the observers, so they hear it ended now.
      endObserved(io.relock.LockObserver.Outcome.RELEASED, null);
    }
  }

  boolean isObserved() {
    return observed != null;
  }

  /** Tells the observers following this hold that it ended, once; later calls do nothing. */
  void endObserved(io.relock.LockObserver.Outcome outcome, Throwable error) {
    Observers.Hold h = observed == null ? null : OBSERVED.getAndSet(this, null);
    if (h != null) {
      h.ended(outcome, error);
    }
  }

  /** Marks the lease lost and runs the listeners, once. Ignored after a normal close. */
  void lost(String reason) {
    if (closed.get()) {
      return;
    }
    if (lostReason == null) {
      lostReason = reason;
    }
    if (lostReported.compareAndSet(false, true)) {
      keeper.leaseLost(this);
      endObserved(io.relock.LockObserver.Outcome.LOST, new io.relock.LockLostException(keys.name(), lostReason));
      for (Runnable l : listeners) {
        if (listeners.remove(l)) {
          keeper.runListener(keys.name(), l);
        }
      }
    }
  }

  /**
   * Records a loss discovered while closing and runs the listeners not yet run, on the closing
   * thread, before the close throws.
   */
  void lostOnClose(String reason) {
    if (lostReason == null) {
      lostReason = reason;
    }
    if (lostReported.compareAndSet(false, true)) {
      String why = lostReason;
      keeper.listeners.emit(l -> l.leaseLost(keys.name(), why));
      endObserved(io.relock.LockObserver.Outcome.LOST, new io.relock.LockLostException(keys.name(), why));
      for (Runnable l : listeners) {
        if (listeners.remove(l)) {
          keeper.runListenerHere(keys.name(), l);
        }
      }
    }
  }

  /** The Redis Cluster slot of the lock's keys. */
  int slot() {
    return Slots.slotOf(holdKey);
  }

  @Override
  public String toString() {
    return "LockLease[" + keys.name() + ", token " + token + (isValid() ? ", valid" : ", not valid") + "]";
  }
}

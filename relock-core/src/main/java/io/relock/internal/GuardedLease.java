package io.relock.internal;

import io.relock.LockLease;
import io.relock.LockLostException;
import java.time.Duration;
import java.util.Map;

/**
 * The lease a guarded section hands its task: the acquired lease, which the section alone
 * releases, and which refuses to be used once the section ended (a task that kept it, or a
 * coroutine it launched outside its scope, would otherwise go on writing with a token the lock no
 * longer backs). Reading whether it is valid stays allowed, and answers false after the end.
 */
public final class GuardedLease implements LockLease {
  private final LockLease held;
  private volatile boolean ended;

  public GuardedLease(LockLease held) {
    this.held = held;
  }

  /** The lease as acquired, which the section closes. */
  public LockLease held() {
    return held;
  }

  /** The section ended: from now on the lease refuses to be used. */
  public void end() {
    ended = true;
  }

  @Override
  public String lockName() {
    return held.lockName();
  }

  @Override
  public long fencingToken() {
    requireOpen("fencingToken()");
    return held.fencingToken();
  }

  @Override
  public Map<String, Long> fencingTokens() {
    requireOpen("fencingTokens()");
    return held.fencingTokens();
  }

  @Override
  public boolean isValid() {
    return !ended && held.isValid();
  }

  @Override
  public Duration remaining() {
    return ended ? Duration.ZERO : held.remaining();
  }

  @Override
  public void onLost(Runnable listener) {
    requireOpen("onLost(...)");
    held.onLost(listener);
  }

  /** Refused: the guarded section releases the lease when its task ends. */
  @Override
  public void close() {
    throw new IllegalStateException(ended
        ? "the lease of lock '" + lockName() + "' was released when its guarded section ended"
        : "the lease of lock '" + lockName() + "' belongs to its guarded section, which releases it when the"
            + " task ends; do not close it");
  }

  /**
   * The loss of this lease as an exception, with the reason relock gave for it where the lease
   * knows one (the lease of a multi-lock: the first of its locks found lost).
   */
  public LockLostException lostException() {
    String reason = lostReason(held);
    return new LockLostException(lockName(), reason != null ? reason : "lost while its guarded section ran");
  }

  private static String lostReason(LockLease lease) {
    if (lease instanceof HeldLease h) {
      return h.lostReason();
    }
    if (lease instanceof MultiLease m) {
      for (LockLease l : m.leases()) {
        String reason = lostReason(l);
        if (reason != null) {
          return l.lockName() + ": " + reason;
        }
      }
    }
    return null;
  }

  private void requireOpen(String what) {
    if (ended) {
      throw new IllegalStateException(what + " of the lease of lock '" + lockName() + "' after its guarded section"
          + " ended: the lock was released (or lost) then, and its token no longer protects anything");
    }
  }

  @Override
  public String toString() {
    return held + (ended ? " (guarded section ended)" : " (guarded)");
  }
}

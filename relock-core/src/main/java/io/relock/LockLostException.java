package io.relock;

/**
 * A holder tried to release a lock whose lease had been lost: it expired (a long pause, Redis
 * unreachable), was force-unlocked, or is now held by another owner. Another owner's lock is never
 * touched by the release that throws this.
 *
 * <p>It extends {@link IllegalMonitorStateException} because, like an illegal unlock of a {@link
 * java.util.concurrent.locks.Lock}, it tells the caller it did not hold the lock at the moment of
 * release; catching {@code IllegalMonitorStateException} therefore also catches this.
 *
 * <p>Work done under the lock after the loss may have overlapped with another holder. A resource
 * that checks {@link LockLease#fencingToken() fencing tokens} will have refused the stale writes.
 */
public class LockLostException extends IllegalMonitorStateException {
  private static final long serialVersionUID = 1L;

  /** The name of the lock whose lease was lost. */
  private final String lockName;

  /**
   * Creates the exception; its message names the lock and the reason.
   *
   * @param lockName the name of the lock whose lease was lost
   * @param reason how it was lost (expired, taken by another owner, ...), for the message
   */
  public LockLostException(String lockName, String reason) {
    super("lease on lock '" + lockName + "' was lost: " + reason);
    this.lockName = lockName;
  }

  /**
   * The name of the lock whose lease was lost.
   *
   * @return the lock's name, as given to the constructor
   */
  public String lockName() {
    return lockName;
  }
}

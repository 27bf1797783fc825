package io.relock;

import java.time.Duration;

/**
 * An acquisition gave up because the lock stayed held by another owner for the whole wait.
 * Nothing is left behind in Redis: the waiter's queue entry is removed before this is thrown.
 */
public class LockTimeoutException extends RelockException {
  private static final long serialVersionUID = 1L;

  private final String lockName;
  private final Duration wait;

  public LockTimeoutException(String lockName, Duration wait) {
    super("could not acquire lock '" + lockName + "' within " + wait);
    this.lockName = lockName;
    this.wait = wait;
  }

  /** The name of the lock that could not be acquired. */
  public String lockName() {
    return lockName;
  }

  /** How long the caller was prepared to wait. */
  public Duration waitTime() {
    return wait;
  }
}

package io.relock;

import java.time.Duration;

/**
 * An acquisition gave up because the lock stayed held by another owner for the whole wait.
 * Nothing is left behind in Redis: the waiter's queue entry is removed before this is thrown.
 */
public class LockTimeoutException extends RelockException {
  private static final long serialVersionUID = 1L;

  /** The name of the lock that could not be acquired. */
  private final String lockName;
  /** How long the caller was prepared to wait. */
  private final Duration wait;

  /**
   * Creates the exception; its message names the lock and the wait.
   *
   * @param lockName the name of the lock that could not be acquired
   * @param wait how long the caller was prepared to wait
   */
  public LockTimeoutException(String lockName, Duration wait) {
    super("could not acquire lock '" + lockName + "' within " + wait);
    this.lockName = lockName;
    this.wait = wait;
  }

  /**
   * The name of the lock that could not be acquired.
   *
   * @return the lock's name, as given to the constructor
   */
  public String lockName() {
    return lockName;
  }

  /**
   * How long the caller was prepared to wait.
   *
   * @return the wait given to the acquisition that timed out
   */
  public Duration waitTime() {
    return wait;
  }
}

package io.relock;

/**
 * Root of the exceptions relock throws: Redis unreachable, a Redis error reply, a client that was
 * closed. Unchecked, so lock calls compose with lambdas and streams.
 *
 * <p>Messages name the lock (and the key) involved, never a password.
 */
public class RelockException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception without a cause.
   *
   * @param message what failed
   */
  public RelockException(String message) {
    super(message);
  }

  /**
   * Creates the exception with the failure that led to it.
   *
   * @param message what failed
   * @param cause the underlying failure, such as the driver's exception; may be null
   */
  public RelockException(String message, Throwable cause) {
    super(message, cause);
  }
}

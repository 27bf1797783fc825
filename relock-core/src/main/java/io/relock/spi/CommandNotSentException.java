package io.relock.spi;

/**
 * The driver never wrote the command to Redis (no connection could be had, or the client rejects
 * commands while it reconnects), so Redis cannot have run it. Drivers report such failures with
 * this exception, or with one that has it as a cause, so that the engine can tell them from a
 * command that failed after it was sent (a timeout, a reset connection), whose effect is unknown.
 * Anything else a driver reports is treated as possibly run.
 */
public class CommandNotSentException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what could not be sent, and why
   * @param cause the failure that kept the command from being sent (a failed connection attempt,
   *     say); null if there is none
   */
  public CommandNotSentException(String message, Throwable cause) {
    super(message, cause);
  }
}

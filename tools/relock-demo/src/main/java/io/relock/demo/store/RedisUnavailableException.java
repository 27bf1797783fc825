package io.relock.demo.store;

/**
 * Redis could not be reached, or did not answer in time, while a request needed it. The service
 * answers 503. {@link #writeOutcomeUnknown()} tells whether a sale might have been recorded anyway
 * (the write was sent but its answer never came); a sale is never recorded in part, since the write
 * is a single script.
 */
public class RedisUnavailableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final boolean writeOutcomeUnknown;

  public RedisUnavailableException(String message, Throwable cause, boolean writeOutcomeUnknown) {
    super(message, cause);
    this.writeOutcomeUnknown = writeOutcomeUnknown;
  }

  /** Whether the failed command was a sale's write that Redis may have run before failing. */
  public boolean writeOutcomeUnknown() {
    return writeOutcomeUnknown;
  }
}

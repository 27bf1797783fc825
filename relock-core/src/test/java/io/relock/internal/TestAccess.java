package io.relock.internal;

/** Lets the contract tests read engine constants they assert against. */
public final class TestAccess {
  private TestAccess() {}

  public static int passesAhead() {
    return LockEngine.PASSES_AHEAD;
  }

  public static int renewalBatch() {
    return WatchdogRenewer.BATCH;
  }
}

package io.relock.internal;

/**
 * What one call of a lock kind's acquire script asks: its {@code ARGV[3]}, which {@code
 * acquire.lua}'s header describes mode by mode (the semaphore's and the read-write lock's scripts
 * answer the same modes). The engine names a mode by this enum; on the wire, and in the trace log,
 * it is its {@link #wire} value.
 */
enum AcquireMode {
  /** Take or re-enter the lock if possible, never queue. */
  TRY("try"),
  /** Take or re-enter the lock, or queue for it. */
  WAIT("wait"),
  /** A queued waiter asking again: take the lock if free, report a grant, refresh the entry. */
  RECHECK("recheck"),
  /** A waiter whose time ran out: keep the lock if it was granted, else withdraw. */
  GIVEUP("giveup"),
  /** A cancelled waiter, or an owner id nobody serves: withdraw, and release the lock if granted. */
  ABANDON("abandon"),
  /** Re-enter a hold the caller believes it has; never takes a free lock. */
  REENTER("reenter");

  private final String wire;

  AcquireMode(String wire) {
    this.wire = wire;
  }

  /** The mode as the scripts read it. */
  String wire() {
    return wire;
  }

  /** The mode the scripts read as {@code wire}; for a call read back (the Redlock driver's). */
  static AcquireMode ofWire(String wire) {
    for (AcquireMode m : values()) {
      if (m.wire.equals(wire)) {
        return m;
      }
    }
    throw new IllegalArgumentException("not an acquire script's mode: '" + wire + "'");
  }

  /** The wire value, as the trace log has always named a mode. */
  @Override
  public String toString() {
    return wire;
  }
}

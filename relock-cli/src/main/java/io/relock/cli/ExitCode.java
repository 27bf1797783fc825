package io.relock.cli;

/**
 * The exit codes of {@code relock}, besides 0 and {@code run}'s pass-through of its command's
 * code. Taken from BSD's sysexits.h where one means the same, so that scripts and supervisors
 * that know those read them right; each is distinct from the others.
 */
final class ExitCode {
  /** {@code run}: the lock was still held by another owner when {@code --wait} ran out; nothing was run. */
  static final int BUSY = 75;
  /**
   * {@code run}: the lock was lost while the command ran (Redis unreachable past the lease, or a
   * forced unlock); the command was told with SIGTERM, then SIGKILL after {@code --grace}.
   */
  static final int LOST = 76;
  /** A bad option or argument: a duration, a URI, a lock name. Nothing was sent to Redis. */
  static final int USAGE = 64;
  /** Redis could not be reached, did not answer in time, or refused a call (such as an ACL denial). */
  static final int REDIS = 69;
  /** {@code unlock}: not confirmed, or the lock changed hands before it could be released; nothing released. */
  static final int NOT_DONE = 1;
  /** {@code run}: the command exists but could not be started (as a shell reports it). */
  static final int CANNOT_RUN = 126;
  /** {@code run}: the command was not found (as a shell reports it). */
  static final int NOT_FOUND = 127;

  /** The table printed by {@code --help}. */
  static final String[] HELP = {
      "Exit codes:",
      "  0    done; run: the command's own exit code, whatever it is",
      "  " + BUSY + "   run: the lock was still held when --wait ran out; not run",
      "  " + LOST + "   run: the lock was lost while the command ran (it got SIGTERM)",
      "  " + USAGE + "   bad option or argument; Redis was not contacted",
      "  " + REDIS + "   Redis unreachable, too slow, or refusing (e.g. ACL)",
      "  " + NOT_DONE + "    unlock: not confirmed, or the lock changed hands; not released",
      "  " + CANNOT_RUN + "  run: the command could not be started (" + NOT_FOUND + ": not found)",
  };

  private ExitCode() {}
}

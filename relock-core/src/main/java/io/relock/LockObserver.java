package io.relock;

/**
 * Follows each acquisition from its call to its end, and each hold from its grant to its end: the
 * hook for tracing (relock-micrometer's {@code RelockObservations} turns these into Micrometer
 * Observations, and so into spans). Register one with {@link Relock#addObserver}.
 *
 * <p>Unlike a {@link RelockListener}, which hears events as totals, an observer gets one object per
 * acquisition, created <b>on the caller's thread</b> when the acquisition starts, so that it can
 * take the caller's context (the current span, a trace id, an MDC) with it; that object then
 * hears how the wait ended, and what it returns hears how the hold ended, on whatever thread
 * learns of it (a relock thread or a Redis I/O thread). Every acquisition is followed: {@code
 * lock()}, {@code tryLock}, {@code acquire}, {@code acquireAsync}, a re-entry, each lane of a
 * read-write lock, a semaphore permit, and a multi-lock as one acquisition (its locks are not
 * followed one by one).
 *
 * <p>Methods must return quickly and never block or call back into relock. One that throws is
 * logged and otherwise ignored: it never changes what the lock does. With no observer registered,
 * an acquisition costs one volatile read more.
 */
public interface LockObserver {

  /** What was acquired. */
  enum Kind {
    /** An exclusive lock: {@link Relock#lock(String)}. */
    LOCK,
    /** The read lane of a {@link DistributedReadWriteLock}. */
    READ,
    /** The write lane of a {@link DistributedReadWriteLock}. */
    WRITE,
    /** A permit of a {@link DistributedSemaphore}. */
    SEMAPHORE,
    /** Several locks taken as one: {@link Relock#multiLock(String...)}. */
    MULTI_LOCK
  }

  /** How a wait or a hold ended. */
  enum Outcome {
    /** The wait ended with the lock. */
    ACQUIRED,
    /** The wait ran out ({@link LockTimeoutException}, or {@code tryLock} returning false). */
    TIMEOUT,
    /** The waiting thread was interrupted. */
    INTERRUPTED,
    /** The caller cancelled the wait ({@code acquireAsync}'s future). */
    CANCELLED,
    /** The wait or the release failed: Redis failed, or the client closed. */
    ERROR,
    /** The hold ended with its release, which Redis confirmed. */
    RELEASED,
    /** The hold was lost before its release: expired, taken, or forcibly unlocked. */
    LOST
  }

  /**
   * An acquisition starts; called on the caller's thread before anything is sent to Redis.
   *
   * @param kind what is being acquired
   * @param lockName the name the caller gave (for a multi-lock: the names, separated by commas)
   * @return what follows this acquisition, or null not to follow it
   */
  Wait waitStarted(Kind kind, String lockName);

  /** One acquisition, from {@link #waitStarted} on. Exactly one of its methods is called, once. */
  interface Wait {
    /**
     * The acquisition got the lock.
     *
     * @param fencingToken the hold's token (for a multi-lock, the largest of its locks' tokens)
     * @param handedOver whether the lock came by hand-over from a previous holder's release
     *     (within this client or from another) rather than found free
     * @param reentry whether it is a re-entry by a thread that already held the lock through
     *     {@code lock()}: no new hold begins, and the return value is ignored
     * @return what follows the hold, or null not to follow it
     */
    Hold acquired(long fencingToken, boolean handedOver, boolean reentry);

    /**
     * The acquisition ended without the lock.
     *
     * @param outcome {@link Outcome#TIMEOUT}, {@link Outcome#INTERRUPTED}, {@link
     *     Outcome#CANCELLED} or {@link Outcome#ERROR}
     * @param error what the caller was told (for a {@code tryLock} that returned false, the
     *     {@link LockTimeoutException} behind it)
     */
    void failed(Outcome outcome, Throwable error);
  }

  /** One hold, from its grant to its end. {@link #ended} is called once. */
  interface Hold {
    /**
     * The hold ended: its full release was answered ({@link Outcome#RELEASED}, or {@link
     * Outcome#LOST} if the release found it lost, or {@link Outcome#ERROR} if Redis could not be
     * reached in time), or it was found lost while held ({@link Outcome#LOST}).
     *
     * @param outcome {@link Outcome#RELEASED}, {@link Outcome#LOST} or {@link Outcome#ERROR}
     * @param error null when released; else why it was lost or could not be released
     */
    void ended(Outcome outcome, Throwable error);
  }
}

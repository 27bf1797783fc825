package io.relock;

/**
 * Hears a {@link LeaderCandidate} win and lose its election. Register one with {@link
 * LeaderCandidate#addListener}; both methods do nothing by default.
 *
 * <p>Both run on the candidate's own relock thread, never on a Redis I/O thread, one call at a
 * time for the whole candidate: for each listener, {@link #onElected} and {@link #onRevoked}
 * strictly alternate, each {@code onRevoked} naming the leadership its {@code onElected} gave. A
 * callback may block (the candidate waits for it, and does not release its lock on a yield or a
 * close until {@code onRevoked} returns), and may call the candidate ({@link
 * LeaderCandidate#yieldLeadership()}, {@link LeaderCandidate#close()}). One that throws is logged
 * and otherwise ignored: the election goes on, and the other listeners still hear of it.
 */
public interface LeaderListener {

  /**
   * The candidate became leader, or this listener was added while it leads.
   *
   * @param leadership the new term of leadership; its {@link Leadership#term()} is the fencing
   *     token to pass with the leader's writes
   */
  default void onElected(Leadership leadership) {}

  /**
   * The leadership given to {@link #onElected} ended: its lease was lost (it expired, a renewal
   * found it gone, or it was force-unlocked), the candidate yielded it, or the candidate or its
   * client closed. {@link Leadership#isValid()} is false by now. Unless the candidate closed, it
   * is back in the election.
   *
   * @param leadership the leadership that ended
   */
  default void onRevoked(Leadership leadership) {}
}

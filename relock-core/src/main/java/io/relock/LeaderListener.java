package io.relock;

/**
 * Hears a {@link LeaderCandidate} win and lose its election. Register one with {@link
 * LeaderCandidate#addListener}; both methods do nothing by default.
 *
 * <p>Both run on the candidate's own relock thread, never on a Redis I/O thread, one call at a
 * time for the whole candidate: for each listener, {@link #onElected} and {@link #onRevoked}
 * strictly alternate, each {@code onRevoked} naming the leadership its {@code onElected} gave.
 *
 * <p>A callback may block, but the candidate's next callback waits for it: a revocation that comes
 * while {@code onElected} runs is heard when it returns (its {@link Leadership#isValid()} turns
 * false on time all the same). Do long work elsewhere and check {@code isValid()} as it goes. On a
 * yield or a close the lock is released only once {@code onRevoked} has returned.
 *
 * <p>A callback may call the candidate: {@link LeaderCandidate#yieldLeadership()} or {@link
 * LeaderCandidate#close()} from {@code onElected} runs on the spot, so this listener hears {@code
 * onRevoked} before its {@code onElected} returns, and listeners after it never hear of that
 * leadership. One that throws is logged and otherwise ignored: the election goes on, and the other
 * listeners still hear of it.
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

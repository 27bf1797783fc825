package io.relock;

/**
 * One term of leadership: a {@link LeaderCandidate} won its election and holds it until the
 * leadership is revoked, yielded or the candidate is closed. Given to {@link
 * LeaderListener#onElected} and {@link LeaderListener#onRevoked}, and by {@link
 * LeaderCandidate#leadership()}.
 *
 * <p>A leader that acts on a shared resource passes {@link #term()} with each write, and the
 * resource refuses a term lower than the highest it has accepted: a deposed leader that has not
 * heard of its revocation yet (a long pause, a partition) is refused there, as a lock holder's
 * stale writes are by its {@link LockLease#fencingToken() fencing token}.
 */
public interface Leadership {

  /**
   * The election's name, as given to {@link Relock#leader(String)}.
   *
   * @return the name of the election this leadership is a term of
   */
  String name();

  /**
   * The term: the fencing token of the lock that made this candidate leader, strictly greater than
   * every term before it in the same election, whichever candidate or client held it, also across
   * a restart of Redis without persistence (single Redis, Sentinel and Cluster: terms follow the
   * Redis server's clock in microseconds; Redlock: see {@link LeaderCandidate}).
   *
   * @return this leadership's term, the same for its whole life
   */
  long term();

  /**
   * Whether this leadership still holds: it was not revoked, yielded or closed, and its lease is
   * valid by the local monotonic clock (see {@link LockLease#isValid()}). Never contacts Redis.
   * It turns false no later than the candidate's {@link LeaderListener#onRevoked} runs, and once
   * false it stays false.
   *
   * @return true while this term of leadership lasts
   */
  boolean isValid();
}

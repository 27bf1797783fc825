package io.relock;

import java.time.Duration;
import java.util.Optional;

/**
 * One candidate in a leader election kept in Redis: every candidate of the same name (and key
 * prefix), in any process, competes, and one at a time leads. Obtain one with {@link
 * Relock#leader(String)}, add {@link LeaderListener}s, {@link #start()} it, and {@link #close()} it
 * to leave the election:
 *
 * <pre>{@code
 * try (LeaderCandidate candidate = relock.leader("billing-scheduler")) {
 *   candidate.addListener(new LeaderListener() {
 *     public void onElected(Leadership leadership) { scheduler.run(leadership.term()); }
 *     public void onRevoked(Leadership leadership) { scheduler.stop(); }
 *   });
 *   candidate.start();
 *   ...
 * }
 * }</pre>
 *
 * <h2>How it is elected</h2>
 * A candidate is a waiter for the exclusive lock of its name ({@link Relock#lock(String)}: do not
 * take that lock yourself). It waits without polling and without limit, through Redis outages
 * too; the release of the lock by the leader (a yield, a close) hands it to the candidate that has
 * waited longest. The leader holds the lock with the client's default lease, renewed by the
 * watchdog. An acquisition that Redis refuses (a key of the wrong type, an ACL) is logged and
 * tried again after a backoff of up to a second.
 *
 * <h2>Terms</h2>
 * Each {@link Leadership} carries a {@link Leadership#term() term}: the fencing token of the lock
 * that made it, strictly greater than every earlier term of the election, whichever candidate or
 * client led. On one Redis, Sentinel and Cluster, tokens follow the Redis server's clock in
 * microseconds, so terms keep increasing across a restart of Redis without persistence. On
 * Redlock ({@link Relock.Builder#redlock}) a term is one above the highest fence a majority of the
 * masters granting it had recorded, written to that majority before it counts: terms increase as
 * long as fewer than a majority of the masters lose their data at once (a master that lost its
 * data is kept out of every majority for the delayed restart, its fence raised above the others').
 *
 * <h2>At most one leader</h2>
 * A leadership is valid until its lease's local deadline: the last renewal's send time plus the
 * lease, less the clock drift allowance, which Redis's own expiry of the lock comes after. So, by
 * the clocks, a new leader is elected only after the old leadership has stopped being valid; a
 * process that is paused past its deadline, or a clock that drifts beyond the allowance, can still
 * act as a deposed leader for a moment, which is what the term is for: let the resource refuse it.
 *
 * <h2>Revocation</h2>
 * {@link LeaderListener#onRevoked} runs, and the candidate rejoins the election, when the lease is
 * lost:
 * <ul>
 *   <li>force-unlocked ({@link DistributedLock#forceUnlock()}, {@code relock unlock --force}): the
 *       notice on the client's channel reaches the leader at once (one Redis round trip to confirm
 *       it), within milliseconds. Should that notice be lost, the next renewal finds the loss,
 *       within a third of the default lease;
 *   <li>not renewed in time (Redis unreachable, the process paused): at the lease's local
 *       deadline, before Redis lets the lock go;
 *   <li>found gone or taken by a renewal (Redis restarted without its data): at that renewal.
 * </ul>
 *
 * <h2>Threads</h2>
 * Listeners run on the candidate's own relock thread, one call at a time, never concurrently: see
 * {@link LeaderListener}. The methods here may be called from any thread, listeners included.
 */
public interface LeaderCandidate extends AutoCloseable {

  /**
   * The election's name, as given to {@link Relock#leader(String)}.
   *
   * @return the name of the election this candidate stands in
   */
  String name();

  /**
   * Registers {@code listener} to hear this candidate's elections and revocations from now on. If
   * the candidate leads when the listener is added, it first hears {@link LeaderListener#onElected}
   * for that leadership, on the candidate's thread, so that every listener sees {@code onElected}
   * and {@code onRevoked} alternate whenever it was added. Adding listeners before {@link #start()}
   * misses nothing.
   *
   * @param listener the listener to add
   * @throws NullPointerException if {@code listener} is null
   */
  void addListener(LeaderListener listener);

  /**
   * Stops {@code listener} hearing this candidate; does nothing if it was not registered. A call
   * already under way on the candidate's thread may still reach it once.
   *
   * @param listener a listener given to {@link #addListener}
   */
  void removeListener(LeaderListener listener);

  /**
   * Joins the election: the candidate starts waiting for the leadership in the background, and
   * returns at once.
   *
   * @throws IllegalStateException if the candidate was started before, or has been closed
   * @throws RelockException if its client is closed or closing (the candidate is then closed)
   */
  void start();

  /**
   * Whether this candidate leads now. Local, no Redis call: the same as {@code
   * leadership().isPresent()}.
   *
   * @return true while this candidate holds a valid {@link Leadership}
   */
  boolean isLeader();

  /**
   * This candidate's leadership now, if it leads. Local, no Redis call.
   *
   * @return the current leadership while it is {@link Leadership#isValid() valid}; empty when the
   *     candidate does not lead (not started, waiting, revoked, closed)
   */
  Optional<Leadership> leadership();

  /**
   * Waits until this candidate leads.
   *
   * @return the leadership, valid when this returns
   * @throws InterruptedException if the thread was interrupted while waiting
   * @throws IllegalStateException if the candidate is closed, before or while waiting
   */
  Leadership awaitLeadership() throws InterruptedException;

  /**
   * Waits at most {@code timeout} until this candidate leads.
   *
   * @param timeout how long to wait; zero to look without waiting
   * @return the leadership, valid when this returns; empty if the candidate did not lead within
   *     {@code timeout}
   * @throws NullPointerException if {@code timeout} is null
   * @throws IllegalArgumentException if {@code timeout} is negative; the message names it
   * @throws InterruptedException if the thread was interrupted while waiting
   * @throws IllegalStateException if the candidate is closed, before or while waiting
   */
  Optional<Leadership> awaitLeadership(Duration timeout) throws InterruptedException;

  /**
   * Gives up the leadership, if this candidate leads, and rejoins the election. In order: the
   * leadership turns invalid, {@link LeaderListener#onRevoked} runs, the lock is released (which
   * hands it to the candidate that has waited longest, so the next leader is elected only after
   * this one's {@code onRevoked} returned), and the candidate waits again, behind the others. With
   * no other candidate waiting it is elected again, with a new term. On Redlock, which has no
   * queue to hand the lock over by, the candidate first stands back for one recheck interval
   * ({@link Relock.Builder#recheckInterval}) so that the others may take it.
   *
   * <p>Returns once the release is confirmed by Redis (or, Redis unreachable, after about twice the
   * command timeout, the release going on in the background). Waits for a listener call under way
   * to return; called from a listener, it runs on the spot (see {@link LeaderListener}).
   *
   * @return true if this candidate led and yielded; false if it did not lead (or was closed)
   */
  boolean yieldLeadership();

  /**
   * Leaves the election: a leader's leadership turns invalid and its {@link
   * LeaderListener#onRevoked} runs, then its lock is released (handed to the next candidate); a
   * waiting candidate is withdrawn from Redis. Waits for a listener call under way to return, and
   * for Redis to confirm, at most about twice the command timeout (past that, the release goes on
   * in the background). Closing the {@link Relock} client closes its candidates first, the same
   * way. Idempotent; callable from a listener.
   */
  @Override
  void close();
}

package io.relock;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What Redis holds for one lock at one moment, from {@link Relock#inspect(String)} or {@link
 * Relock#list(String)}: its holder, if any, its waiters in the order they will be served, and the
 * last fencing token issued for its name. For operators and tools (the {@code relock} command
 * line is built on it).
 *
 * <p>Each {@code LockInfo} is read by one script call, so its fields agree with each other; it
 * may be out of date as soon as it is returned. Never decide from it whether a process may write:
 * that is what the fencing token of the writer's own {@link LockLease} is for.
 *
 * @param name the lock name, as given to {@link Relock#lock(String)}
 * @param holder who holds the lock; empty when it is free
 * @param waiters the owners queued in Redis, in the order the lock will be handed to them. One per
 *     waiting client at most, since the threads of one client that wait for the same lock queue
 *     behind the first of them inside that client; usually none for the holder's own client,
 *     whose first waiter waits there for the hold's release to hand it the lock; owners whose
 *     queue entry has expired (their process died) are left out. Always empty on Redlock, which
 *     has no queue across processes.
 * @param lastToken the highest fencing token issued for this name that Redis remembers; 0 if none
 *     (never locked, or unused for longer than the fence retention). An attempt to take the lock
 *     is issued one before it learns whether the lock is free, so this may be above the holder's.
 *     The next acquisition gets a higher one. On Redlock, where each master keeps one fence for every lock name, this is the
 *     highest token written on any master that answered, for whatever name.
 */
public record LockInfo(String name, Optional<Holder> holder, List<Waiter> waiters, long lastToken) {

  /**
   * Checks the components, and copies {@code waiters} into an unmodifiable list.
   *
   * @param name the lock name
   * @param holder who holds the lock; empty when it is free
   * @param waiters the owners queued in Redis, in the order they will be served
   * @param lastToken the highest fencing token issued for this name; 0 if none
   * @throws NullPointerException if a component is null
   */
  public LockInfo {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(holder, "holder");
    waiters = List.copyOf(waiters);
  }

  /**
   * Whether an owner holds the lock.
   *
   * @return true if {@link #holder()} is present
   */
  public boolean isHeld() {
    return holder.isPresent();
  }

  /**
   * The current hold.
   *
   * @param ownerId the holding owner: one acquisition of one client (every lease, and every thread
   *     holding through {@code lock()}, is an owner of its own). It starts with the client id and
   *     a colon.
   * @param clientId the {@link Relock#clientId()} of the holding client: 32 hex digits
   * @param holdCount how many holds Redis counts for the owner (re-entries of a thread's {@code
   *     lock()}); 1 for a lease. Redis's copy of the count, for operators: it can run ahead of the
   *     holding client's after a re-entry interrupted while Redis ran it.
   * @param fencingToken the token of this hold (see {@link LockLease#fencingToken()}). On Redlock,
   *     0 for a moment after the masters granted the lock and before the holder wrote its token.
   * @param remainingLease how long Redis keeps the lock unless the holder renews or releases it,
   *     as of the moment Redis answered. On Redlock: until fewer than a majority of masters would
   *     hold it. A hold that has no expiry at all (which relock never writes) reports {@link
   *     java.time.temporal.ChronoUnit#FOREVER}'s duration.
   * @param since when the owner was granted the lock, by the Redis server clock (a re-entry or
   *     renewal does not move it); empty if Redis does not say
   */
  public record Holder(String ownerId, String clientId, int holdCount, long fencingToken, Duration remainingLease,
      Optional<Instant> since) {

    /**
     * Checks the components.
     *
     * @param ownerId the holding owner
     * @param clientId the {@link Relock#clientId()} of the holding client
     * @param holdCount how many holds Redis counts for the owner
     * @param fencingToken the token of this hold
     * @param remainingLease how long Redis keeps the lock unless it is renewed or released
     * @param since when the owner was granted the lock; empty if Redis does not say
     * @throws NullPointerException if a component is null
     */
    public Holder {
      Objects.requireNonNull(ownerId, "ownerId");
      Objects.requireNonNull(clientId, "clientId");
      Objects.requireNonNull(remainingLease, "remainingLease");
      Objects.requireNonNull(since, "since");
    }
  }

  /**
   * One owner queued for the lock.
   *
   * @param ownerId the waiting owner (see {@link Holder#ownerId()})
   * @param clientId the {@link Relock#clientId()} of its client
   */
  public record Waiter(String ownerId, String clientId) {

    /**
     * Checks the components.
     *
     * @param ownerId the waiting owner
     * @param clientId the {@link Relock#clientId()} of its client
     * @throws NullPointerException if a component is null
     */
    public Waiter {
      Objects.requireNonNull(ownerId, "ownerId");
      Objects.requireNonNull(clientId, "clientId");
    }
  }
}

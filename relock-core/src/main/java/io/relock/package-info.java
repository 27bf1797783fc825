/**
 * The relock API: {@link io.relock.Relock} (the client), {@link io.relock.DistributedLock} (a
 * named lock, also a {@link java.util.concurrent.locks.Lock}), {@link io.relock.LockLease} (one
 * hold, with its fencing token), {@link io.relock.LeaderCandidate} (leader election with terms)
 * and the exceptions rooted at {@link io.relock.RelockException}.
 *
 * <p>Everything under {@code io.relock.internal} may change without notice; {@code io.relock.spi}
 * is for driver authors.
 */
package io.relock;

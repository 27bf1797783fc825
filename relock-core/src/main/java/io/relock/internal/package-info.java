/**
 * relock's engine. May change without notice; use {@link io.relock} instead.
 *
 * <p>Where to start: {@link io.relock.internal.LockEngine} (one per client: owner ids, the
 * notification listener, acquire and release), {@link io.relock.internal.Acquisition} (one waiter's
 * life: local queue, Redis queue, grant, recheck, give-up), {@link io.relock.internal.HeldLease} (a
 * hold and its validity), {@link io.relock.internal.WatchdogRenewer} (batched renewals) and the
 * scripts in {@code src/main/resources/io/relock/scripts}.
 */
package io.relock.internal;

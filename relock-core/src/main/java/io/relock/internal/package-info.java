/**
 * relock's engine. May change without notice; use {@link io.relock} instead.
 *
 * <p>Where to start: {@link io.relock.internal.LockEngine} (one per client: its lifecycle, the
 * registry of lock states, the entry points), {@link io.relock.internal.Acquisition} (one waiter's
 * life: local queue, Redis queue, grant, recheck, give-up), {@link io.relock.internal.HeldLease} (a
 * hold and its validity), {@link io.relock.internal.LeaseKeeper} (what keeps a hold: the watchdog,
 * {@link io.relock.internal.WatchdogRenewer}'s batched renewals, expiry checks, hand-over
 * confirmation, loss reports), {@link io.relock.internal.LeaseChanges} (a holder's close, extend,
 * closeAfter), {@link io.relock.internal.LockCalls} (the lock scripts' calls) and the scripts in
 * {@code src/main/resources/io/relock/scripts}.
 */
package io.relock.internal;

/**
 * Kotlin coroutines for relock: suspending acquisition, and blocks that hold a lock, a permit or a
 * lane of a read-write lock, are cancelled when its lease is lost, and release it however they end.
 *
 * Every wait here is a [kotlin.time.Duration]: `lock.acquire(5.seconds)` suspends, where the Java
 * method `lock.acquire(Duration.ofSeconds(5))` (a `java.time.Duration`) blocks its thread.
 */
package io.relock.kotlin

import io.relock.DistributedLock
import io.relock.DistributedReadWriteLock
import io.relock.DistributedSemaphore
import io.relock.LockLease
import io.relock.LockLostException
import io.relock.internal.GuardedLease
import io.relock.internal.GuardedSection
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CompletionException
import java.util.concurrent.ExecutionException
import java.util.concurrent.atomic.AtomicReference
import kotlin.coroutines.cancellation.CancellationException
import kotlin.coroutines.resume
import kotlin.coroutines.resumeWithException
import kotlin.time.Duration
import kotlin.time.toJavaDuration
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.cancel
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.ensureActive
import kotlinx.coroutines.suspendCancellableCoroutine
import kotlinx.coroutines.withContext

/**
 * Acquires the lock with the default lease (renewed by the watchdog), suspending, not blocking a
 * thread, for at most [wait]. The lease belongs to no thread and no coroutine: each call is its own
 * owner, so two coroutines never share a hold, even on one thread. Close the lease to release it,
 * or use [withLease], which releases it for you.
 *
 * Cancelling the calling coroutine while it waits withdraws the acquisition: whatever it had in
 * Redis (a place in the queue, or the lock granted as the cancellation came) is released, and the
 * call throws [CancellationException]. No lock is left held for nobody.
 *
 * @param wait how long to wait; [Duration.ZERO] for one attempt, [Duration.INFINITE] for as long
 *   as it takes
 * @return the lease, which the caller closes
 * @throws io.relock.LockTimeoutException if the lock stayed held for the whole wait
 * @throws IllegalArgumentException if [wait] is negative
 * @throws io.relock.RelockException if Redis failed
 */
public suspend fun DistributedLock.acquire(wait: Duration): LockLease = awaitLease(acquireAsync(javaWait(wait)))

/**
 * Takes a permit with the default lease, suspending for at most [wait]; see
 * [DistributedLock.acquire] for ownership and cancellation.
 *
 * @param wait how long to wait for a free permit; [Duration.ZERO] for one attempt
 * @return the permit's lease, which the caller closes to give the permit back
 * @throws io.relock.LockTimeoutException if no permit came free within the wait
 * @throws IllegalArgumentException if [wait] is negative
 */
public suspend fun DistributedSemaphore.acquire(wait: Duration): LockLease = awaitLease(acquireAsync(javaWait(wait)))

/**
 * Runs [block] while holding the lock, and releases it when the block ends, however it ends: the
 * coroutine form of a guarded section (see [DistributedLock.callLocked] for the Java one).
 *
 * - **Waiting** suspends, for at most [wait]; cancelling the caller while it waits withdraws the
 *   acquisition, as [acquire] does, and [block] never runs.
 * - **The block** runs in a child scope, like [coroutineScope]: coroutines it launches are part of
 *   it, and the lock is released only when all of them have ended.
 * - **A lost lease** (a forced unlock, a renewal that found the lock gone, renewals that did not get
 *   through until the lease's local deadline: see [DistributedLock.callLocked] for when relock
 *   learns of each) cancels the block's scope with a [CancellationException] whose cause is a
 *   [LockLostException]; once the block has ended, the lock is released and the call throws that
 *   [LockLostException], with any other exception the block threw suppressed in it. A block that
 *   does not reach a suspension point (or checks `isActive`) runs on to its end, and the call throws
 *   all the same. A loss found only by the release also throws [LockLostException].
 * - **Cancelling the caller** while the block runs cancels the block; the lock is released and the
 *   call throws [CancellationException], as any cancelled suspending call does.
 * - **Releasing** runs even when the caller is cancelled, off the caller's thread (it waits one
 *   Redis round trip). A release that fails (Redis did not answer in time; it goes on in the
 *   background) is suppressed in the block's exception, or thrown if the block returned.
 *
 * The [LockLease] given to the block is for its fencing token: pass it with every write, since a
 * lost lease stops the block only once relock learns of the loss, and only at its next suspension
 * point; the resource's check of the token is the only protection against work done meanwhile. The
 * block must not close it ([IllegalStateException]), and once the block has ended, its fencing
 * token and `onLost` throw [IllegalStateException]; [LockLease.isValid] answers false.
 *
 * @param wait how long to wait for the lock; [Duration.ZERO] for one attempt
 * @param block the work, given the lease
 * @return what [block] returned
 * @throws LockLostException if the lease was lost before the block ended and the lock was released
 * @throws io.relock.LockTimeoutException if the lock stayed held for the whole wait
 * @throws IllegalArgumentException if [wait] is negative
 */
public suspend fun <T> DistributedLock.withLease(wait: Duration, block: suspend CoroutineScope.(LockLease) -> T): T =
    guarded(acquire(wait), block)

/**
 * Runs [block] while holding a permit, and gives the permit back when the block ends, however it
 * ends; a lost lease cancels the block. The contract of [DistributedLock.withLease].
 *
 * @param wait how long to wait for a free permit; [Duration.ZERO] for one attempt
 * @param block the work, given the permit's lease
 * @return what [block] returned
 * @throws LockLostException if the permit's lease was lost before the block ended
 * @throws io.relock.LockTimeoutException if no permit came free within the wait
 */
public suspend fun <T> DistributedSemaphore.withPermit(wait: Duration, block: suspend CoroutineScope.(LockLease) -> T): T =
    guarded(acquire(wait), block)

/**
 * Runs [block] while holding the read lock (shared with other readers); the contract of
 * [DistributedLock.withLease].
 *
 * @param wait how long to wait for the read lock; [Duration.ZERO] for one attempt
 * @param block the work, given the read lease (the read epoch's fencing token)
 * @return what [block] returned
 * @throws LockLostException if the lease was lost before the block ended
 */
public suspend fun <T> DistributedReadWriteLock.withRead(wait: Duration, block: suspend CoroutineScope.(LockLease) -> T): T =
    readLock().withLease(wait, block)

/**
 * Runs [block] while holding the write lock (alone); the contract of [DistributedLock.withLease].
 *
 * @param wait how long to wait for the write lock; [Duration.ZERO] for one attempt
 * @param block the work, given the write lease
 * @return what [block] returned
 * @throws LockLostException if the lease was lost before the block ended
 */
public suspend fun <T> DistributedReadWriteLock.withWrite(wait: Duration, block: suspend CoroutineScope.(LockLease) -> T): T =
    writeLock().withLease(wait, block)

private fun javaWait(wait: Duration): java.time.Duration {
    require(!wait.isNegative()) { "wait must not be negative, was $wait" }
    // INFINITE becomes the longest java.time.Duration, which relock's waits saturate.
    return if (wait.isInfinite()) java.time.Duration.ofSeconds(Long.MAX_VALUE) else wait.toJavaDuration()
}

/**
 * Suspends until [acquiring] gives a lease. A cancellation withdraws the acquisition (cancelling the
 * future does, and releases a lock granted meanwhile); a lease that arrives as the caller is being
 * cancelled is released rather than dropped.
 */
private suspend fun awaitLease(acquiring: CompletableFuture<LockLease>): LockLease =
    suspendCancellableCoroutine { continuation ->
        continuation.invokeOnCancellation { acquiring.cancel(false) }
        acquiring.whenComplete { lease, error ->
            if (error != null) {
                continuation.resumeWithException(unwrap(error))
            } else {
                continuation.resume(lease) { _, unused, _ -> GuardedSection.releaseInBackground(unused) }
            }
        }
    }

private fun unwrap(error: Throwable): Throwable {
    var t = error
    while ((t is CompletionException || t is ExecutionException) && t.cause != null) {
        t = t.cause!!
    }
    return t
}

/** The guarded block: [held] is released when [block] ends, and its loss cancels the block. */
private suspend fun <T> guarded(held: LockLease, block: suspend CoroutineScope.(LockLease) -> T): T {
    val lease = GuardedLease(held)
    val lost = AtomicReference<LockLostException?>()
    val outcome = try {
        Result.success(coroutineScope {
            val scope = this
            held.onLost {
                val loss = lease.lostException()
                if (lost.compareAndSet(null, loss)) {
                    scope.cancel(CancellationException("the lease of lock '${held.lockName()}' was lost", loss))
                }
            }
            block(lease)
        })
    } catch (t: Throwable) {
        Result.failure(t)
    }
    lease.end()
    val releaseFailure: Throwable? = withContext(NonCancellable + Dispatchers.IO) {
        try {
            held.close()
            null
        } catch (e: LockLostException) {
            lost.compareAndSet(null, e)
            null
        } catch (e: RuntimeException) {
            e
        }
    }
    val failure = outcome.exceptionOrNull()
    // A cancelled caller hears its own cancellation, as from any suspending call.
    currentCoroutineContext().ensureActive()
    val loss = lost.get()
    if (loss != null) {
        // The block's cancellation by the loss itself is not news (it may come wrapped: kotlinx.coroutines
        // copies exceptions to recover stack traces when assertions are on).
        if (failure != null && generateSequence(failure) { it.cause }.none { it === loss }) {
            loss.addSuppressed(failure)
        }
        releaseFailure?.let(loss::addSuppressed)
        throw loss
    }
    if (failure != null) {
        releaseFailure?.let(failure::addSuppressed)
        throw failure
    }
    if (releaseFailure != null) {
        throw releaseFailure
    }
    @Suppress("UNCHECKED_CAST")
    return outcome.getOrNull() as T
}

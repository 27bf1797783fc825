package io.relock.kotlin

import io.relock.LeaderListener
import io.relock.Leadership
import io.relock.Relock
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.channels.awaitClose
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.buffer
import kotlinx.coroutines.flow.callbackFlow
import kotlinx.coroutines.withContext

/**
 * This client's standing in the leader election [name], as a flow of states: the current
 * [Leadership] while this client leads, `null` while it does not. Built on [Relock.leader].
 *
 * The flow is cold: each collection stands a candidate of its own in the election (from the start
 * of the collection) and leaves the election when the collection ends, yielding a leadership it
 * holds (its lock is released and handed to the next candidate). It emits `null` first, then a
 * [Leadership] each time the candidate is elected and `null` each time that leadership is revoked
 * (lost, yielded). Like a `StateFlow`, it is conflated: a collector slower than the election may
 * miss states in between, never the latest; a [Leadership] it missed had already ended.
 *
 * Collect it with `collectLatest`, so that the leader's work, started for a [Leadership], is
 * cancelled by the `null` that follows its revocation:
 * ```
 * relock.leadership("billing-scheduler").collectLatest { leadership ->
 *     if (leadership != null) runScheduler(term = leadership.term())
 * }
 * ```
 * The revocation reaches the flow as [io.relock.LeaderCandidate] reports it (a forced unlock within
 * milliseconds, renewals that did not get through at the lease's local deadline); as with locks,
 * pass [Leadership.term] with the leader's writes so that the resource refuses a deposed leader.
 *
 * @param name the election's name, as for [Relock.leader]
 * @return a cold flow of this collection's leadership, `null` while it does not lead
 */
public fun Relock.leadership(name: String): Flow<Leadership?> {
    val relock = this
    return callbackFlow {
        val candidate = relock.leader(name)
        candidate.addListener(object : LeaderListener {
            override fun onElected(leadership: Leadership) {
                trySend(leadership)
            }

            override fun onRevoked(leadership: Leadership) {
                trySend(null)
            }
        })
        send(null)
        candidate.start()
        try {
            awaitClose()
        } finally {
            // Leaving the election waits for Redis to confirm the release: not on the collector's thread.
            withContext(NonCancellable + Dispatchers.IO) { candidate.close() }
        }
    }.buffer(Channel.CONFLATED)
}

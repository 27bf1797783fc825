package com.example.restock

import io.relock.Relock
import io.relock.kotlin.withLease
import kotlin.time.Duration
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.delay

/**
 * A shelf in a store that checks fencing tokens: it refuses a write whose token is lower than the
 * highest it has accepted, so a restocker that lost its lock cannot overwrite a newer one's count.
 */
class Shelf {
    private var highestToken = 0L
    private var units = 0

    @Synchronized
    fun count(token: Long): Int {
        admit(token)
        return units
    }

    @Synchronized
    fun set(newUnits: Int, token: Long) {
        admit(token)
        units = newUnits
    }

    private fun admit(token: Long) {
        check(token >= highestToken) { "refused: token $token is older than $highestToken" }
        highestToken = token
    }
}

/** Tops a shelf up, one restocker at a time across every instance; a delivery takes [delivery]. */
class Restocker(private val relock: Relock, private val shelf: Shelf, private val delivery: Duration = 20.milliseconds) {

    /**
     * Holds the shelf's lock while it counts, orders and stores; a lost lock cancels it at its next
     * suspension, and the call throws LockLostException.
     *
     * @return how many units it added
     */
    suspend fun topUp(shelfName: String, target: Int): Int =
        relock.lock("shelf:$shelfName").withLease(5.seconds) { lease ->
            val missing = target - shelf.count(lease.fencingToken())
            if (missing > 0) {
                delay(delivery) // suspends: a lost lock cancels the block here
                shelf.set(target, lease.fencingToken())
            }
            maxOf(missing, 0)
        }
}

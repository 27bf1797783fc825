package com.example.restock

import io.relock.LockLostException
import io.relock.Relock
import io.relock.testkit.RedisExtension
import io.relock.testkit.RedisServer
import kotlin.time.Duration
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension

/** Runs against a real redis-server that relock's test kit starts on a free port. */
class RestockerTest {

    @Test
    fun manyRestockersAtOnce_topTheShelfUpExactlyOnce(server: RedisServer): Unit = runBlocking(Dispatchers.Default) {
        val shelf = Shelf()
        Relock.connect(server.uri()).use { first ->
            Relock.connect(server.uri()).use { second ->
                val added = (1..8).map { i ->
                    async { Restocker(if (i % 2 == 0) first else second, shelf).topUp("apples", 40) }
                }.awaitAll()
                assertEquals(40, added.sum(), "one restocker added the 40 units; the others found the shelf full")
            }
        }
    }

    @Test
    fun aForcedUnlock_stopsTheRestocker_withLockLostException(server: RedisServer): Unit = runBlocking {
        // A lease of minutes: only the forced unlock can end it while the test runs.
        Relock.builder().uri(server.uri()).defaultLease(java.time.Duration.ofMinutes(10)).build().use { relock ->
            val shelf = Shelf()
            val forever = Restocker(relock, shelf, delivery = Duration.INFINITE)
            val restocking = async(Dispatchers.Default) { runCatching { forever.topUp("pears", 10) } }
            Relock.connect(server.uri()).use { operator ->
                withTimeout(20.seconds) {
                    while (!operator.lock("shelf:pears").forceUnlock()) delay(10)
                }
            }
            val outcome = withTimeout(20.seconds) { restocking.await() }
            assertTrue(outcome.exceptionOrNull() is LockLostException, "got $outcome")
            assertEquals(0, shelf.count(Long.MAX_VALUE), "the cancelled delivery stored nothing")
        }
    }

    companion object {
        @JvmField
        @RegisterExtension
        val redis = RedisExtension()
    }
}

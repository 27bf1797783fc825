package io.relock.kotlin

import io.relock.LockLease
import io.relock.LockLostException
import io.relock.LockTimeoutException
import io.relock.Relock
import io.relock.testkit.RedisServer
import java.util.concurrent.CompletableFuture
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicReference
import kotlin.coroutines.cancellation.CancellationException
import kotlin.random.Random
import kotlin.time.Duration
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.collect
import kotlinx.coroutines.flow.onEach
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.yield
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance

/** The coroutine API against a real redis-server that the test kit starts. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CoroutineLocksTest {
    private lateinit var redis: RedisServer
    private val clients = mutableListOf<Relock>()

    @BeforeAll
    fun startRedis() {
        redis = RedisServer.start()
    }

    @AfterAll
    fun stopRedis() {
        redis.close()
    }

    @BeforeEach
    fun flush() {
        redis.execute("FLUSHALL")
    }

    @AfterEach
    fun closeClients() {
        clients.forEach(Relock::close)
        clients.clear()
    }

    /** A client whose leases are renewed for minutes before they could end: only a forced unlock loses them. */
    private fun client(lease: java.time.Duration = java.time.Duration.ofMinutes(10)): Relock =
        Relock.builder().uri(redis.uri()).defaultLease(lease).build().also(clients::add)

    private fun holder(name: String): String? = redis.execute("GET", "relock:{$name}") as String?

    private fun nothingLeftOf(name: String): Boolean =
        redis.execute("EXISTS", "relock:{$name}") == 0L && redis.execute("EXISTS", "relock:{$name}:q") == 0L

    private suspend fun eventually(what: String, condition: () -> Boolean) {
        val deadline = System.nanoTime() + PATIENCE.inWholeNanoseconds
        while (!condition()) {
            check(System.nanoTime() - deadline < 0) { "timed out after $PATIENCE waiting until $what" }
            delay(10)
        }
    }

    @Test
    fun withLease_returnsTheBlocksValue_andReleases(): Unit = runBlocking {
        val lock = client().lock("orders")
        val token = lock.withLease(1.seconds) { lease ->
            assertThat(holder("orders")).isNotNull()
            lease.fencingToken()
        }
        assertThat(token).isPositive()
        assertThat(holder("orders")).isNull()
    }

    @Test
    fun aForcedUnlock_cancelsTheBlock_withLockLostAsTheCause_andTheCallThrowsIt(): Unit = runBlocking {
        val lock = client().lock("forced")
        val running = CompletableDeferred<Unit>()
        val cancelledWith = AtomicReference<Throwable>()
        val child = AtomicReference<Throwable>()
        val call = async(Dispatchers.Default) {
            runCatching {
                lock.withLease(Duration.ZERO) {
                    launch {
                        try {
                            awaitCancellation()
                        } catch (e: CancellationException) {
                            child.set(e)
                            throw e
                        }
                    }
                    running.complete(Unit)
                    try {
                        awaitCancellation()
                    } catch (e: CancellationException) {
                        cancelledWith.set(e)
                        throw e
                    }
                }
            }
        }
        running.await()
        assertThat(client().lock("forced").forceUnlock()).isTrue()
        val thrown = withTimeout(PATIENCE) { call.await() }.exceptionOrNull()
        assertThat(thrown).isInstanceOf(LockLostException::class.java).hasMessageContaining("forced unlock")
        assertThat(cancelledWith.get()).isInstanceOf(CancellationException::class.java)
        // With assertions on, kotlinx.coroutines recovers stack traces by wrapping the exception in a
        // copy of itself: the LockLostException is at the end of the chain either way.
        assertThat(generateSequence(cancelledWith.get()) { it.cause }.last()).isSameAs(thrown)
        assertThat(child.get()).`as`("a coroutine the block launched is cancelled too").isNotNull()
        assertThat(thrown!!.suppressed).isEmpty()
        assertThat(holder("forced")).isNull()
    }

    @Test
    fun aBlockThatDoesNotSuspend_runsToItsEnd_andTheCallStillThrowsLockLost(): Unit = runBlocking {
        val lock = client().lock("busy")
        val operator = client()
        val lossSeen = CompletableFuture<Unit>()
        val call = async(Dispatchers.Default) {
            runCatching {
                lock.withLease(Duration.ZERO) { lease ->
                    lease.onLost { lossSeen.complete(Unit) }
                    operator.lock("busy").forceUnlock()
                    lossSeen.get(PATIENCE.inWholeMilliseconds, TimeUnit.MILLISECONDS) // blocks; no suspension point
                    "finished"
                }
            }
        }
        assertThat(withTimeout(PATIENCE) { call.await() }.exceptionOrNull()).isInstanceOf(LockLostException::class.java)
    }

    /**
     * The caller is cancelled while it waits for a lock that another client releases at about the
     * same moment, many times: whichever wins, nothing is left held or queued (the other client gets
     * the lock back in time each round, which a hold left behind, renewed by its watchdog, would
     * prevent).
     */
    @Test
    fun cancellingTheCallerWhileItWaits_withdrawsTheWait_evenAsTheLockIsGranted(): Unit = runBlocking(Dispatchers.Default) {
        val waiter = client().lock("contended")
        val other = client().lock("contended")
        val ran = AtomicInteger()
        repeat(200) { round ->
            // Not at once: an acquisition the last cancel withdrew may still be on its way to Redis.
            val holding = other.acquire(PATIENCE)
            val job = launch(start = CoroutineStart.UNDISPATCHED) {
                waiter.withLease(PATIENCE) { ran.incrementAndGet() }
            }
            if (round % 2 == 0) {
                holding.close()
                val spinUntil = System.nanoTime() + Random.nextLong(0, 2_000_000)
                while (System.nanoTime() - spinUntil < 0) Thread.onSpinWait()
            }
            job.cancelAndJoin()
            if (round % 2 == 1) holding.close()
        }
        other.acquire(PATIENCE).close()
        eventually("nothing is left of the lock") { nothingLeftOf("contended") }
        println("cancellation races: the block ran in ${ran.get()} of 200 rounds")
    }

    @Test
    fun twoCoroutinesOnOneThread_neverShareAHold(): Unit = runBlocking {
        // runBlocking's event loop: both coroutines run on this one thread.
        val lock = client().lock("one-thread")
        val inside = AtomicInteger()
        val most = AtomicInteger()
        val jobs = (1..2).map {
            launch {
                lock.withLease(PATIENCE) {
                    most.accumulateAndGet(inside.incrementAndGet(), ::maxOf)
                    delay(100) // the other coroutine runs on this thread meanwhile
                    inside.decrementAndGet()
                }
            }
        }
        jobs.forEach { it.join() }
        assertThat(most.get()).`as`("holders at once").isEqualTo(1)
        assertThat(holder("one-thread")).isNull()
    }

    @Test
    fun theBlocksException_passesThrough_andTheLockIsReleased(): Unit = runBlocking {
        val lock = client().lock("failing")
        val failure = IllegalStateException("no stock")
        assertThatThrownBy { runBlocking { lock.withLease(Duration.ZERO) { throw failure } } }.isSameAs(failure)
        assertThat(holder("failing")).isNull()

        val running = CompletableDeferred<Unit>()
        val job = launch(Dispatchers.Default) {
            lock.withLease(Duration.ZERO) {
                running.complete(Unit)
                awaitCancellation()
            }
        }
        running.await()
        job.cancelAndJoin()
        assertThat(holder("failing")).`as`("released when the caller was cancelled").isNull()

        client().lock("failing").acquire(Duration.ZERO).use {
            assertThatThrownBy { runBlocking { lock.withLease(50.milliseconds) { "never" } } }
                .isInstanceOf(LockTimeoutException::class.java)
        }
    }

    @Test
    fun theLeaseGivenToTheBlock_refusesUseAfterTheBlockEnded(): Unit = runBlocking {
        val lock = client().lock("kept")
        val kept = lock.withLease(Duration.ZERO) { lease ->
            assertThatThrownBy { lease.close() }.isInstanceOf(IllegalStateException::class.java)
                .hasMessageContaining("do not close it")
            lease
        }
        assertThat(kept.isValid).isFalse()
        assertThatThrownBy { kept.fencingToken() }.isInstanceOf(IllegalStateException::class.java)
            .hasMessageContaining("'kept'").hasMessageContaining("after its guarded section ended")
    }

    @Test
    fun badInput_aNegativeWait_failsBeforeAnythingIsAcquired(): Unit = runBlocking {
        val relock = client()
        assertThatThrownBy { runBlocking { relock.lock("bad").withLease((-1).seconds) { } } }
            .isInstanceOf(IllegalArgumentException::class.java).hasMessageContaining("-1s")
        assertThatThrownBy { runBlocking { relock.semaphore("bad-permits", 1).withPermit((-1).seconds) { } } }
            .isInstanceOf(IllegalArgumentException::class.java)
        assertThat(holder("bad")).isNull()
    }

    @Test
    fun permitsAndLanes_areHeldForTheBlock_andALostLaneCancelsIt(): Unit = runBlocking {
        val relock = client()
        val semaphore = relock.semaphore("permits", 1)
        semaphore.withPermit(Duration.ZERO) {
            assertThat(semaphore.availablePermits()).isZero()
            assertThatThrownBy { runBlocking { semaphore.withPermit(Duration.ZERO) { } } }
                .isInstanceOf(LockTimeoutException::class.java)
        }
        assertThat(semaphore.availablePermits()).isEqualTo(1)

        val rw = relock.readWriteLock("lanes")
        rw.withRead(Duration.ZERO) {
            rw.withRead(Duration.ZERO) { assertThat(rw.readLock().isLocked).isTrue() }
            assertThatThrownBy { runBlocking { rw.withWrite(Duration.ZERO) { } } }.isInstanceOf(LockTimeoutException::class.java)
        }
        val running = CompletableDeferred<Unit>()
        val writing = async(Dispatchers.Default) {
            runCatching { rw.withWrite(Duration.ZERO) { running.complete(Unit); awaitCancellation() } }
        }
        running.await()
        assertThat(client().readWriteLock("lanes").writeLock().forceUnlock()).isTrue()
        assertThat(withTimeout(PATIENCE) { writing.await() }.exceptionOrNull()).isInstanceOf(LockLostException::class.java)
        assertThat(rw.writeLock().isLocked).isFalse()
    }

    @Test
    fun leadership_isAFlowOfStates_revokedByALoss_andLeftWhenTheCollectionEnds(): Unit = runBlocking {
        val relock = client()
        val states = mutableListOf<io.relock.Leadership?>()
        val elected = CompletableDeferred<io.relock.Leadership>()
        val reElected = CompletableDeferred<io.relock.Leadership>()
        val collecting = launch(Dispatchers.Default) {
            relock.leadership("scheduler").onEach { state ->
                synchronized(states) { states.add(state) }
                if (state != null && !elected.complete(state)) reElected.complete(state)
            }.collect()
        }
        val first = withTimeout(PATIENCE) { elected.await() }
        assertThat(first.isValid).isTrue()
        assertThat(client().lock("scheduler").forceUnlock()).isTrue()
        val second = withTimeout(PATIENCE) { reElected.await() }
        assertThat(first.isValid).isFalse()
        assertThat(second.term()).isGreaterThan(first.term())
        collecting.cancelAndJoin()
        assertThat(second.isValid).`as`("the collection's end left the election").isFalse()
        eventually("the leader's lock is released") { holder("scheduler") == null }
        synchronized(states) {
            assertThat(states.first()).isNull()
            assertThat(states.filterNotNull()).containsExactly(first, second)
            assertThat(states.indexOf(second)).isGreaterThan(states.indexOf(first) + 1) // a null between
        }
    }

    @Test
    fun suspendingAcquire_givesAnOwnLeasePerCall(): Unit = runBlocking {
        val lock = client().lock("suspending")
        val first: LockLease = lock.acquire(Duration.ZERO)
        val second = async { lock.acquire(PATIENCE) }
        yield()
        assertThat(second.isActive).isTrue()
        first.close()
        withTimeout(PATIENCE) { second.await() }.use { assertThat(it.fencingToken()).isGreaterThan(first.fencingToken()) }
    }

    private companion object {
        val PATIENCE: Duration = 20.seconds
    }
}

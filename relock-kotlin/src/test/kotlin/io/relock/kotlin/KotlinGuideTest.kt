package io.relock.kotlin

import io.relock.LockLostException
import io.relock.Relock
import io.relock.testkit.RedisServer
import java.nio.file.Files
import java.nio.file.Path
import java.util.concurrent.atomic.AtomicLong
import kotlin.time.Duration
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.collectLatest
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance

/**
 * The Kotlin code of docs/kotlin.md, compiled and run on a real redis-server; and the check that
 * every `kotlin` block of that page, marked `<!-- kotlin-snippet: NAME -->`, is a region of this
 * file (`// snippet:NAME` to `// end:NAME`), as relock-docs checks the Java blocks of the pages.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KotlinGuideTest {
    private val redis = RedisServer.start()

    @AfterAll
    fun stop() {
        redis.close()
    }

    /** A resource that refuses a token lower than the highest it has accepted. */
    class Ledger {
        private var highest = 0L
        private var balance = 100L

        @Synchronized
        fun read(token: Long): Long {
            admit(token)
            return balance
        }

        @Synchronized
        fun write(newBalance: Long, token: Long) {
            admit(token)
            balance = newBalance
        }

        private fun admit(token: Long) {
            check(token >= highest) { "stale token $token, highest $highest" }
            highest = token
        }
    }

    // snippet:kotlin-with-lease
    suspend fun addInterest(relock: Relock, ledger: Ledger): Long =
        relock.lock("savings").withLease(5.seconds) { lease ->
            val balance = ledger.read(lease.fencingToken())
            delay(50.milliseconds) // suspends: a lost lease cancels the block here
            ledger.write(balance + balance / 100, lease.fencingToken())
            balance
        }
    // end:kotlin-with-lease

    @Test
    fun withLease_example(): Unit = runBlocking {
        Relock.connect(redis.uri()).use { relock ->
            val ledger = Ledger()
            assertThat(addInterest(relock, ledger)).isEqualTo(100L)
            assertThat(ledger.read(Long.MAX_VALUE)).isEqualTo(101L)
        }
    }

    // snippet:kotlin-loss
    suspend fun exportOrReport(relock: Relock, export: suspend (token: Long) -> Unit): String =
        try {
            relock.lock("export").withLease(Duration.ZERO) { lease -> export(lease.fencingToken()) }
            "exported"
        } catch (e: LockLostException) {
            // The block was cancelled (its CancellationException's cause is e) and the lock released.
            "stopped: ${e.message}"
        }
    // end:kotlin-loss

    @Test
    fun loss_example(): Unit = runBlocking {
        Relock.builder().uri(redis.uri()).defaultLease(java.time.Duration.ofMinutes(10)).build().use { relock ->
            val exporting = CompletableDeferred<Unit>()
            val outcome = async(Dispatchers.Default) {
                exportOrReport(relock) { exporting.complete(Unit); delay(Duration.INFINITE) }
            }
            exporting.await()
            Relock.connect(redis.uri()).use { it.lock("export").forceUnlock() }
            assertThat(withTimeout(20.seconds) { outcome.await() }).startsWith("stopped: ").contains("forced unlock")
        }
    }

    // snippet:kotlin-permits-and-lanes
    suspend fun render(relock: Relock, pages: List<String>): Int {
        val renderers = relock.semaphore("pdf-renderers", 2)
        val catalog = relock.readWriteLock("catalog")
        return catalog.withRead(1.seconds) {
            pages.sumOf { page -> renderers.withPermit(30.seconds) { page.length } }
        }
    }
    // end:kotlin-permits-and-lanes

    @Test
    fun permitsAndLanes_example(): Unit = runBlocking {
        Relock.connect(redis.uri()).use { relock -> assertThat(render(relock, listOf("a", "bc"))).isEqualTo(3) }
    }

    // snippet:kotlin-leadership
    suspend fun runWhileLeading(relock: Relock, bill: suspend (term: Long) -> Unit) {
        relock.leadership("billing").collectLatest { leadership ->
            // collectLatest cancels this block when the next state (null: revoked) arrives.
            if (leadership != null) {
                while (true) {
                    bill(leadership.term()) // the store refuses a deposed leader's term
                    delay(1.seconds)
                }
            }
        }
    }
    // end:kotlin-leadership

    @Test
    fun leadership_example(): Unit = runBlocking {
        Relock.connect(redis.uri()).use { relock ->
            val billed = AtomicLong()
            val job = launch(Dispatchers.Default) { runWhileLeading(relock) { term -> billed.set(term) } }
            withTimeout(20.seconds) { while (billed.get() == 0L) delay(10.milliseconds) }
            job.cancel()
            job.join()
            assertThat(billed.get()).isPositive()
        }
    }

    @Test
    fun everyKotlinBlockOfTheGuide_isARegionOfThisFile() {
        val page = Files.readString(Path.of("..", "docs", "kotlin.md"))
        val source = Files.readString(Path.of("src", "test", "kotlin", "io", "relock", "kotlin", "KotlinGuideTest.kt"))
        val blocks = Regex("<!-- kotlin-snippet: ([\\w-]+) -->\\s*```kotlin\\n(.*?)```", RegexOption.DOT_MATCHES_ALL)
            .findAll(page).associate { it.groupValues[1] to it.groupValues[2] }
        val unmarked = Regex("```kotlin").findAll(page).count()
        assertThat(blocks).`as`("kotlin blocks with a snippet marker").hasSize(unmarked)
        for ((name, block) in blocks) {
            val region = Regex("// snippet:$name\\n(.*?)\\s*// end:$name", RegexOption.DOT_MATCHES_ALL).find(source)
            assertThat(region).`as`("the region $name of KotlinGuideTest.kt").isNotNull()
            assertThat(normalized(block)).`as`("the block $name of docs/kotlin.md").isEqualTo(normalized(region!!.groupValues[1]))
        }
    }

    private fun normalized(code: String): List<String> =
        code.lines().map { it.trim().replace(Regex("\\s+"), " ") }.filter { it.isNotEmpty() }
}

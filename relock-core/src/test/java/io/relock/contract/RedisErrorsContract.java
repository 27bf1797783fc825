package io.relock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.LockLease;
import io.relock.LockTimeoutException;
import io.relock.Relock;
import io.relock.RelockException;
import io.relock.spi.DriverSettings;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Redis failures surface as RelockException naming the lock, never as a hang (item 9). */
public abstract class RedisErrorsContract extends RelockContract {

  private static final DriverSettings FAST =
      new DriverSettings(Duration.ofMillis(300), Duration.ofSeconds(2), "relock-test");

  /** A client with a 300 ms command timeout, its scripts loaded and connections up. */
  private Relock fastClient() {
    Relock relock = client(redis.uri(), FAST, b -> b.commandTimeout(Duration.ofMillis(300)));
    relock.lock("warm-up").acquire(Duration.ZERO).close();
    return relock;
  }

  @Test
  void pausedRedis_isWaitedOutForTheWholeWait_thenTheAcquireFailsWithRelockException() {
    Relock relock = fastClient();
    redis.pause();
    long tookMs;
    try {
      long start = System.nanoTime();
      assertThatThrownBy(() -> relock.lock("paused").acquire(Duration.ofSeconds(2)))
          .isInstanceOf(RelockException.class).isNotInstanceOf(LockTimeoutException.class)
          .hasMessageContaining("paused");
      tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    } finally {
      redis.resume();
    }
    assertThat(tookMs).as("kept trying for its whole wait, not one command timeout").isGreaterThanOrEqualTo(1_900L);
    assertThat(tookMs).as("then gave up within a few command timeouts (generous bound)").isLessThan(2_000L + 5_000L);
    awaitNothingLeftOf("paused"); // the attempts that reached Redis late were withdrawn
  }

  @Test
  void zeroWait_withRedisPaused_failsAfterAboutOneCommandTimeout() {
    Relock relock = fastClient();
    redis.pause();
    long tookMs;
    try {
      long start = System.nanoTime();
      assertThatThrownBy(() -> relock.lock("paused-zero").acquire(Duration.ZERO)).isInstanceOf(RelockException.class)
          .isNotInstanceOf(LockTimeoutException.class).hasMessageContaining("paused-zero");
      tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    } finally {
      redis.resume();
    }
    assertThat(tookMs).as("bounded by the command timeout (generous bound)").isLessThan(5_000L);
    awaitNothingLeftOf("paused-zero");
  }

  @Test
  void stoppedRedis_failsWithRelockExceptionOnceTheWaitRunsOut() {
    Relock relock = fastClient();
    redis.kill();
    long start = System.nanoTime();
    assertThatThrownBy(() -> relock.lock("gone").acquire(Duration.ofMillis(800)))
        .isInstanceOf(RelockException.class).isNotInstanceOf(LockTimeoutException.class).hasMessageContaining("gone");
    long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertThat(tookMs).as("kept trying for its wait").isGreaterThanOrEqualTo(750L);
    assertThatThrownBy(() -> relock.lock("gone").isLocked()).isInstanceOf(RelockException.class);
  }

  @Test
  void acquisitions_rideOutARestart_whenTheirWaitCoversIt() throws Exception {
    Relock relock = client();
    relock.lock("warm-up").acquire(Duration.ZERO).close();
    redis.kill();
    CompletableFuture<LockLease> issuedWhileDown =
        CompletableFuture.supplyAsync(() -> relock.lock("restarted").acquire(Duration.ofSeconds(20)));
    await("the acquisition is under way", () -> localStates(relock) == 1);
    assertThat(issuedWhileDown).isNotDone();
    redis.restart();
    LockLease first = issuedWhileDown.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(first.isValid()).isTrue();
    first.close();

    redis.restart();
    try (LockLease rightAfter = relock.lock("restarted").acquire(Duration.ofSeconds(20))) {
      assertThat(rightAfter.isValid()).as("issued right after a restart, while the client reconnects").isTrue();
      assertThat(rightAfter.fencingToken()).isGreaterThan(first.fencingToken());
    }
    awaitNothingLeftOf("restarted");
  }

  @Test
  void scriptFlush_isRecoveredTransparently() {
    Relock relock = client();
    relock.lock("before-flush").acquire(Duration.ZERO).close();
    redis("SCRIPT", "FLUSH");
    try (LockLease lease = relock.lock("after-flush").acquire(Duration.ZERO)) {
      assertThat(lease.isValid()).isTrue();
    }
    assertThat(commandCalls("script|load") + commandCalls("script")).as("reloaded once").isPositive();
  }

  @Test
  void keyOfTheWrongType_givesRelockExceptionNamingTheKey_andIsLeftAsItWas() {
    Relock relock = client();
    redis("SET", lockKey("typed"), "not a lock");
    redis("HSET", lockKey("hashed"), "f", "v");
    for (String name : List.of("typed", "hashed")) {
      assertThatThrownBy(() -> relock.lock(name).acquire(Duration.ZERO))
          .isInstanceOf(RelockException.class)
          .hasMessageContaining("'" + name + "'")
          .hasMessageContaining(lockKey(name))
          .hasMessageContaining("WRONGTYPE");
    }
    assertThat(redis("GET", lockKey("typed"))).isEqualTo("not a lock");
    assertThat(redis("HGET", lockKey("hashed"), "f")).isEqualTo("v");
  }

  @Test
  void aHeldLockOverwrittenBySomethingElse_failsItsReleaseWithRelockException_andThatValueIsKept() {
    Relock relock = client();
    LockLease lease = relock.lock("overwritten").acquire(Duration.ZERO);
    redis("SET", lockKey("overwritten"), "someone's data");
    assertThatThrownBy(lease::close).isInstanceOf(RelockException.class).hasMessageContaining("WRONGTYPE");
    assertThat(redis("GET", lockKey("overwritten"))).isEqualTo("someone's data");
  }

  @Test
  void serverThatMayEvictKeys_isNamedInAWarningAtConnect() {
    try {
      redis("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
      assertThat(stderrOf(this::client)).contains("maxmemory-policy allkeys-lru").contains("noeviction");
      redis("CONFIG", "SET", "maxmemory-policy", "noeviction");
      assertThat(stderrOf(this::client)).doesNotContain("maxmemory-policy");
    } finally {
      redis("CONFIG", "SET", "maxmemory-policy", "noeviction");
    }
  }

  @Test
  void closedClient_refusesNewAcquisitions() {
    Relock relock = client();
    relock.close();
    assertThatThrownBy(() -> relock.lock("closed").acquire(Duration.ZERO))
        .isInstanceOf(RelockException.class).hasMessageContaining("closed");
  }

  @Test
  void closingAClient_failsPendingAsyncAcquisitionsWithRelockException() {
    Relock holder = client();
    Relock closing = client();
    LockLease blocker = holder.lock("async-at-close").acquire(Duration.ZERO);
    CompletableFuture<LockLease> waiting = closing.lock("async-at-close").acquireAsync(PATIENCE);
    await("the waiter is queued", () -> redis("ZCARD", lockKey("async-at-close") + ":q").equals(1L));
    closing.close();
    assertThat(waiting).failsWithin(PATIENCE).withThrowableThat().havingCause()
        .isInstanceOf(RelockException.class).withMessageContaining("closed");
    assertNoWaiters("async-at-close");
    blocker.close();
  }

  @Test
  void closingAClient_releasesItsLocksAndWithdrawsItsWaiters() {
    Relock holder = client();
    Relock other = client();
    holder.lock("held-at-close").acquire(Duration.ZERO);
    LockLease blocker = other.lock("waited-at-close").acquire(Duration.ZERO);
    var waiting = holder.lock("waited-at-close").acquireAsync(PATIENCE);
    await("the waiter is queued", () -> redis("ZCARD", lockKey("waited-at-close") + ":q").equals(1L));
    holder.close();
    assertThat(redis("EXISTS", lockKey("held-at-close"))).isEqualTo(0L);
    assertNoWaiters("waited-at-close");
    assertThat(waiting).isCompletedExceptionally();
    blocker.close();
  }
}

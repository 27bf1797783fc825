package io.relock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.LockLease;
import io.relock.Relock;
import io.relock.RelockException;
import io.relock.spi.DriverSettings;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Redis failures surface as RelockException naming the lock, never as a hang (item 9). */
public abstract class RedisErrorsContract extends RelockContract {

  private static final DriverSettings FAST =
      new DriverSettings(Duration.ofMillis(300), Duration.ofSeconds(2), "relock-test");

  @Test
  void pausedRedis_failsTheAcquireWithinTheCommandTimeout() {
    Relock relock = client(redis.uri(), FAST, b -> b.commandTimeout(Duration.ofMillis(300)));
    relock.lock("warm-up").acquire(Duration.ZERO).close();
    redis.pause();
    try {
      long start = System.nanoTime();
      assertThatThrownBy(() -> relock.lock("paused").acquire(Duration.ofSeconds(30)))
          .isInstanceOf(RelockException.class).hasMessageContaining("paused");
      long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      assertThat(tookMs).as("bounded by the command timeout, not the 30 s wait (generous bound)").isLessThan(5_000);
    } finally {
      redis.resume();
    }
  }

  @Test
  void stoppedRedis_failsFastWithRelockException() {
    Relock relock = client(redis.uri(), FAST, b -> b.commandTimeout(Duration.ofMillis(300)));
    relock.lock("warm-up").acquire(Duration.ZERO).close();
    redis.kill();
    assertThatThrownBy(() -> relock.lock("gone").acquire(Duration.ofSeconds(30)))
        .isInstanceOf(RelockException.class).hasMessageContaining("gone");
    assertThatThrownBy(() -> relock.lock("gone").isLocked()).isInstanceOf(RelockException.class);
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
  void keyOfTheWrongType_givesRelockExceptionNamingTheKey() {
    Relock relock = client();
    redis("SET", lockKey("typed"), "not a hash");
    assertThatThrownBy(() -> relock.lock("typed").acquire(Duration.ZERO))
        .isInstanceOf(RelockException.class)
        .hasMessageContaining("'typed'")
        .hasMessageContaining(lockKey("typed"))
        .hasMessageContaining("WRONGTYPE");
    assertThat(redis("GET", lockKey("typed"))).isEqualTo("not a hash");
  }

  @Test
  void closedClient_refusesNewAcquisitions() {
    Relock relock = client();
    relock.close();
    assertThatThrownBy(() -> relock.lock("closed").acquire(Duration.ZERO))
        .isInstanceOf(RelockException.class).hasMessageContaining("closed");
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

package io.relock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.DistributedLock;
import io.relock.LockLease;
import io.relock.LockLostException;
import io.relock.Relock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Atomic acquire, owner-checked release, bad input, key layout (issue items 1, 2, 10, 11). */
public abstract class AcquireReleaseContract extends RelockContract {

  @Test
  void acquire_createsOneLockKeyWithARedisKeptExpiry() {
    Relock relock = client();
    try (LockLease lease = relock.lock("orders").acquire(Duration.ZERO, Duration.ofSeconds(10))) {
      long pttl = (Long) redis("PTTL", lockKey("orders"));
      assertThat(pttl).isBetween(1L, 10_000L);
      assertThat(holderInRedis("orders")).startsWith(relock.clientId() + ":");
      assertThat(stored("orders").token()).isEqualTo(lease.fencingToken());
      assertThat(lease.isValid()).isTrue();
    }
    assertThat(redis("EXISTS", lockKey("orders"))).isEqualTo(0L);
  }

  @Test
  void acquire_isOneScriptCall() {
    Relock relock = client();
    redis("CONFIG", "RESETSTAT");
    relock.lock("one-call").acquire(Duration.ZERO).close();
    assertThat(scriptCalls()).as("acquire + release").isEqualTo(2);
  }

  /**
   * What Redis runs for an uncontended lock and unlock, script commands included: at most six
   * (each script call, the clock, the fence and the lock; the release's one GETDEL), so that the
   * guarantees cost Redis little more than the bare SET NX recipe's four.
   */
  @Test
  void uncontendedLockAndUnlock_costRedisAtMostSixCommands() {
    Relock relock = client();
    DistributedLock lock = relock.lock("lean");
    lock.acquire(Duration.ZERO).close(); // the first use of a name also creates its fence
    redis("CONFIG", "RESETSTAT");
    int rounds = 50;
    for (int i = 0; i < rounds; i++) {
      lock.acquire(Duration.ZERO).close();
      lock.lock();
      lock.unlock();
    }
    var seen = commandsSinceReset();
    long commands = seen.values().stream().mapToLong(Long::longValue).sum();
    assertThat(commands).as("commands for %d lock+unlock: %s", 2 * rounds, seen).isLessThanOrEqualTo(6L * 2 * rounds);
    assertThat(scriptCalls()).as("round trips").isEqualTo(2L * 2 * rounds);
  }

  @Test
  void clientIds_are128RandomBitsAndDistinct() {
    String a = client().clientId();
    String b = client().clientId();
    assertThat(a).matches("[0-9a-f]{32}");
    assertThat(b).matches("[0-9a-f]{32}").isNotEqualTo(a);
  }

  @Test
  void secondOwner_cannotAcquireAHeldLock() {
    Relock a = client();
    Relock b = client();
    try (LockLease held = a.lock("busy").acquire(Duration.ZERO)) {
      assertThat(b.lock("busy").tryAcquire(Duration.ZERO)).isEmpty();
      assertThat(b.lock("busy").tryLock()).isFalse();
      assertThat(a.lock("busy").tryAcquire(Duration.ZERO)).as("leases are not re-entrant").isEmpty();
      assertThat(held.isValid()).isTrue();
    }
  }

  @Test
  void unlock_byThreadThatDoesNotHoldIt_throwsAndKeepsLock() throws Exception {
    Relock relock = client();
    DistributedLock lock = relock.lock("owned");
    lock.lock();
    try {
      CompletableFuture<Throwable> other = CompletableFuture.supplyAsync(() -> {
        try {
          lock.unlock();
          return null;
        } catch (Throwable t) {
          return t;
        }
      });
      assertThat(other.get()).isInstanceOf(IllegalMonitorStateException.class)
          .isNotInstanceOf(LockLostException.class).hasMessageContaining("owned");
      assertThat(redis("EXISTS", lockKey("owned"))).isEqualTo(1L);
      assertThat(lock.isHeldByCurrentThread()).isTrue();
    } finally {
      lock.unlock();
    }
  }

  @Test
  void unlock_byOtherClient_throwsAndKeepsLock() {
    DistributedLock mine = client().lock("theirs");
    DistributedLock theirs = client().lock("theirs");
    mine.lock();
    try {
      assertThatThrownBy(theirs::unlock).isInstanceOf(IllegalMonitorStateException.class);
      assertThat(redis("EXISTS", lockKey("theirs"))).isEqualTo(1L);
    } finally {
      mine.unlock();
    }
  }

  @Test
  void close_afterLeaseExpiredAndOtherOwnerTookIt_throwsLockLostAndKeepsOtherOwnersLock() {
    Relock a = client();
    Relock b = client();
    LockLease stale = a.lock("expiring").acquire(Duration.ZERO, Duration.ofMillis(200));
    LockLease fresh = b.lock("expiring").acquire(PATIENCE);
    Object ownerBefore = holderInRedis("expiring");
    assertThatThrownBy(stale::close).isInstanceOf(LockLostException.class).hasMessageContaining("expiring");
    assertThat(holderInRedis("expiring")).isEqualTo(ownerBefore);
    assertThat(fresh.isValid()).isTrue();
    fresh.close();
  }

  @Test
  void close_isIdempotent() {
    LockLease lease = client().lock("twice").acquire(Duration.ZERO);
    lease.close();
    lease.close();
    assertThat(lease.isValid()).isFalse();
    assertThat(lease.remaining()).isEqualTo(Duration.ZERO);
  }

  @Test
  void badNames_failFastNamingTheValue_andLeaveRedisUntouched() {
    Relock relock = client();
    redis("CONFIG", "RESETSTAT");
    assertThatThrownBy(() -> relock.lock(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("name");
    assertThatThrownBy(() -> relock.lock("")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("''");
    assertThatThrownBy(() -> relock.lock("   ")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'   '");
    String tooLong = "x".repeat(1025);
    assertThatThrownBy(() -> relock.lock(tooLong)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1025").hasMessageContaining("xxxx");
    String multiByte = "é".repeat(513); // 1,026 bytes in 513 characters
    assertThatThrownBy(() -> relock.lock(multiByte)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1026");
    assertThat(relock.lock("x".repeat(1024)).name()).hasSize(1024);
    assertThat(scriptCalls()).isZero();
    assertThat(redis("DBSIZE")).isEqualTo(0L);
  }

  @Test
  void badDurations_failFastNamingTheValue_andLeaveRedisUntouched() {
    DistributedLock lock = client().lock("durations");
    redis("CONFIG", "RESETSTAT");
    assertThatThrownBy(() -> lock.acquire(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("wait").hasMessageContaining("PT-0.001S");
    assertThatThrownBy(() -> lock.acquire(Duration.ZERO, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lease").hasMessageContaining("PT0S");
    assertThatThrownBy(() -> lock.acquire(Duration.ZERO, Duration.ofSeconds(-5))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PT-5S");
    assertThatThrownBy(() -> lock.acquire(Duration.ZERO, Duration.ofNanos(999_999))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1 ms");
    assertThatThrownBy(() -> lock.acquireAsync(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> lock.acquire(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("wait");
    assertThatThrownBy(() -> Relock.builder().defaultLease(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("defaultLease");
    assertThatThrownBy(() -> Relock.builder().uri("http://x")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("http://x");
    assertThat(scriptCalls()).isZero();
    assertThat(redis("DBSIZE")).isEqualTo(0L);
  }

  @Test
  void allKeysOfALock_shareOneClusterSlot() {
    assertThat(io.relock.internal.Slots.slotOf("foo")).as("the CRC16 of the Redis Cluster spec").isEqualTo(12182);
    Relock a = client();
    Relock b = client();
    for (String name : List.of("plain", "with{brace", "}leading", "a}b{c", "100%")) {
      LockLease held = a.lock(name).acquire(Duration.ZERO);
      CompletableFuture<LockLease> waiting = b.lock(name).acquireAsync(PATIENCE);
      await("the waiter of " + name + " is queued", () -> ((List<?>) redis("KEYS", "*")).size() >= 4);
      @SuppressWarnings("unchecked")
      List<String> keys = (List<String>) redis("KEYS", "*");
      assertThat(keys).hasSize(4);
      assertThat(keys.stream().map(io.relock.internal.Slots::slotOf).distinct()).as("slots of %s", keys).hasSize(1);
      held.close();
      waiting.join().close();
      redis("FLUSHALL");
    }
  }

  @Test
  void distinctNames_neverShareKeys() {
    Relock relock = client();
    try (LockLease a = relock.lock("a{b}").acquire(Duration.ZERO);
         LockLease b = relock.lock("a%7Bb%7D").acquire(Duration.ZERO)) {
      assertThat(a.isValid()).isTrue();
      assertThat(b.isValid()).isTrue();
    }
  }
}

package io.relock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.DistributedReadWriteLock;
import io.relock.DistributedSemaphore;
import io.relock.LockLease;
import io.relock.LockLostException;
import io.relock.Relock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link LockLease#extend} and {@link LockLease#closeAfter} (issue 41, item 1): owner-checked
 * changes of a hold's time to live in Redis, on every kind of lock.
 */
public abstract class LeaseChangeContract extends RelockContract {

  /**
   * Whether the contract runs on Redlock masters (see {@link RedlockTopology}): no semaphores or
   * read-write locks there, and the contract's server is one master of three.
   */
  protected boolean onRedlock() {
    return false;
  }

  /**
   * A lease that ends within the test. On Redlock an acquisition counts only if it took less than
   * its lease: on a busy machine a fresh client's first round over three masters can take longer
   * than 300 ms (seen in CI on the embedded Redis 6.2), so the lease there is longer, and the
   * acquisition may retry.
   */
  private Duration shortLease() {
    return onRedlock() ? Duration.ofSeconds(2) : Duration.ofMillis(300);
  }

  // ---- extend ---------------------------------------------------------------------------------

  @Test
  void extend_ofAFixedLease_keepsTheLockPastItsFirstLease_untilTheNewEnd() {
    LockLease lease = client().lock("extended").acquire(Duration.ZERO, Duration.ofSeconds(1));
    lease.extend(Duration.ofSeconds(30));
    assertThat((Long) redis("PTTL", lockKey("extended"))).isGreaterThan(20_000);
    assertThat(lease.remaining()).isGreaterThan(Duration.ofSeconds(20));
    long firstEnd = System.nanoTime() + Duration.ofMillis(1500).toNanos();
    await("the first lease would have ended", () -> System.nanoTime() - firstEnd > 0);
    assertThat(lease.isValid()).isTrue();
    assertThat(holderInRedis("extended")).isNotNull();
    lease.close();
    awaitNothingLeftOf("extended");
  }

  @Test
  void extend_toASoonerEnd_shortensTheHold_andItsLossIsReportedAtTheNewEnd() {
    LockLease lease = client().lock("shortened").acquire(Duration.ZERO, Duration.ofSeconds(50));
    AtomicInteger lost = new AtomicInteger();
    lease.onLost(lost::incrementAndGet);
    lease.extend(Duration.ofMillis(300));
    assertThat((Long) redis("PTTL", lockKey("shortened"))).isBetween(0L, 300L);
    assertThat(lease.remaining()).isLessThanOrEqualTo(Duration.ofMillis(300));
    // Well before the 50 s: the expiry check follows the new end.
    await("the loss is reported at the new end", Duration.ofSeconds(5), () -> lost.get() == 1);
    awaitNothingLeftOf("shortened");
    assertThatThrownBy(lease::close).isInstanceOf(LockLostException.class);
  }

  @Test
  void extend_longerThanTheLeaseTakenFor_raisesTheLeaseTheHoldRecords() {
    LockLease lease = client().lock("recorded").acquire(Duration.ZERO, Duration.ofSeconds(1));
    lease.extend(Duration.ofSeconds(50));
    // lockvalue.lua: the value's lease bounds every write of the key's expiry (release.lua puts
    // another owner's hold back with it), so it must follow a longer extension.
    assertThat(String.valueOf(redis("GET", lockKey("recorded"))).split(" ")[3]).isEqualTo("50000");
    lease.close();
  }

  @Test
  void extend_ofAWatchdogLease_takesItOffTheWatchdog_asAFixedLeaseEndingThen() {
    Relock relock = client(b -> b.defaultLease(Duration.ofMillis(1500)));
    LockLease lease = relock.lock("watched").acquire(Duration.ZERO);
    AtomicInteger lost = new AtomicInteger();
    lease.onLost(lost::incrementAndGet);
    lease.extend(Duration.ofMillis(2500));
    assertThat((Long) redis("PTTL", lockKey("watched"))).isGreaterThan(1500);
    // The watchdog renews every 500 ms with its 1.5 s lease: had it gone on, the time to live
    // would have come back down to 1.5 s, and the lease would never end.
    long until = System.nanoTime() + Duration.ofMillis(900).toNanos();
    await("two of the watchdog's rounds have passed", () -> System.nanoTime() - until > 0);
    assertThat((Long) redis("PTTL", lockKey("watched"))).as("not renewed since").isBetween(1L, 1600L);
    await("the fixed lease ran out", Duration.ofSeconds(10), () -> lost.get() == 1);
    awaitNothingLeftOf("watched");
    assertThatThrownBy(lease::close).isInstanceOf(LockLostException.class).hasMessageContaining("extended");
  }

  @Test
  void extend_ofALockJustHandedOver_isNotUndoneByTheHandOversConfirmation() throws Exception {
    LockLease first = client().lock("handed").acquire(Duration.ZERO);
    // A waiter in Redis: the release hands it the lock for the claim time (2 s here), and its
    // client confirms the hand-over a third of the way in, renewing it to what is left of its 10 s.
    Relock waiter = client();
    CompletableFuture<LockLease> next = CompletableFuture.supplyAsync(
        () -> waiter.lock("handed").acquire(PATIENCE, Duration.ofSeconds(10)));
    awaitQueued("handed", 1);
    first.close();
    LockLease second = next.get();
    second.extend(Duration.ofSeconds(40));
    long confirmed = System.nanoTime() + Duration.ofSeconds(2).toNanos();
    await("past the hand-over's confirmation", () -> System.nanoTime() - confirmed > 0);
    assertThat((Long) redis("PTTL", lockKey("handed"))).as("the extension stands").isGreaterThan(30_000L);
    assertThat(second.remaining()).isGreaterThan(Duration.ofSeconds(30));
    second.close();
  }

  @Test
  void extend_ofAnEndedLease_throwsLockLost_andLeavesTheNextOwnersHoldAlone() {
    LockLease ended = client().lock("ended").acquire(PATIENCE, shortLease());
    await("the lease ended", () -> !ended.isValid());
    try (LockLease next = client().lock("ended").acquire(PATIENCE, Duration.ofMinutes(1))) {
      long before = (Long) redis("PTTL", lockKey("ended"));
      assertThatThrownBy(() -> ended.extend(Duration.ofSeconds(50))).isInstanceOf(LockLostException.class)
          .hasMessageContaining("ended");
      assertThat(holderInRedis("ended")).isNotNull();
      assertThat((Long) redis("PTTL", lockKey("ended"))).isLessThanOrEqualTo(before);
      assertThat(next.isValid()).isTrue();
    }
  }

  @Test
  void extend_ofALeaseForceUnlockedAndRetaken_findsTheOtherOwner_andThrowsLockLost() {
    org.junit.jupiter.api.Assumptions.assumeFalse(onRedlock(), "a hold planted on one master is not a Redlock majority's");
    Relock holder = client();
    LockLease lease = holder.lock("taken").acquire(Duration.ZERO, Duration.ofSeconds(50));
    AtomicInteger lost = new AtomicInteger();
    lease.onLost(lost::incrementAndGet);
    Relock other = client();
    // Freed and taken again in Redis before the holder hears of it: planted directly.
    redis("DEL", lockKey("taken"));
    StoredLock.plant(redis, lockKey("taken"), other.clientId() + ":l999", 1, Duration.ofMinutes(1));
    assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(55))).isInstanceOf(LockLostException.class)
        .hasMessageContaining("taken");
    await("the loss is reported", () -> lost.get() == 1);
    assertThat(holderInRedis("taken")).isEqualTo(other.clientId() + ":l999");
    assertThat((Long) redis("PTTL", lockKey("taken"))).isLessThanOrEqualTo(60_000);
  }

  @Test
  void extend_ofAClosedLease_throwsIllegalState_andBadLeasesAreRefusedNamingThem() {
    LockLease lease = client().lock("closed").acquire(Duration.ZERO);
    assertThatThrownBy(() -> lease.extend(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PT0S");
    assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(-3))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PT-3S");
    assertThatThrownBy(() -> lease.extend(null)).isInstanceOf(NullPointerException.class);
    lease.close();
    assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(1))).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    assertThatThrownBy(() -> lease.closeAfter(null)).isInstanceOf(NullPointerException.class);
  }

  // ---- closeAfter -----------------------------------------------------------------------------

  @Test
  void closeAfter_leavesTheLockHeldForKeep_thenRedisLetsItGo() {
    Relock relock = client();
    Relock other = client();
    LockLease lease = relock.lock("kept").acquire(Duration.ZERO);
    AtomicInteger lost = new AtomicInteger();
    lease.onLost(lost::incrementAndGet);
    lease.closeAfter(Duration.ofSeconds(3));
    assertThat((Long) redis("PTTL", lockKey("kept"))).isBetween(1L, 3000L);
    assertThat(lease.isValid()).isFalse();
    assertThat(relock.stats().holds()).isZero();
    assertThat(other.lock("kept").tryAcquire(Duration.ZERO)).as("still held for the keep").isEmpty();
    lease.close(); // does nothing now
    lease.closeAfter(Duration.ofSeconds(50)); // nor does this
    assertThat((Long) redis("PTTL", lockKey("kept"))).isLessThanOrEqualTo(3000L);
    await("Redis let the lock go", () -> redis("EXISTS", lockKey("kept")).equals(0L));
    try (LockLease next = other.lock("kept").acquire(Duration.ZERO)) {
      assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
    }
    assertThat(lost.get()).as("closing is not losing").isZero();
  }

  @Test
  void closeAfter_outlivesTheClientsClose() {
    Relock relock = client();
    LockLease lease = relock.lock("outlives").acquire(Duration.ZERO);
    lease.closeAfter(Duration.ofSeconds(5));
    relock.close();
    assertThat(holderInRedis("outlives")).as("Relock.close() left it to its expiry").isNotNull();
    assertThat((Long) redis("PTTL", lockKey("outlives"))).isGreaterThan(3000);
  }

  @Test
  void closeAfter_zeroOrNegative_releasesAtOnce() {
    LockLease lease = client().lock("now").acquire(Duration.ZERO);
    lease.closeAfter(Duration.ZERO);
    assertThat(redis("EXISTS", lockKey("now"))).isEqualTo(0L);
    LockLease again = client().lock("now").acquire(Duration.ZERO);
    again.closeAfter(Duration.ofSeconds(-1));
    assertThat(redis("EXISTS", lockKey("now"))).isEqualTo(0L);
  }

  @Test
  void closeAfter_ofALostLease_throwsLockLost_andLeavesTheOtherOwnersHoldAlone() {
    LockLease lease = client().lock("gone").acquire(PATIENCE, shortLease());
    await("the lease ended", () -> !lease.isValid());
    try (LockLease next = client().lock("gone").acquire(PATIENCE, Duration.ofMinutes(1))) {
      assertThatThrownBy(() -> lease.closeAfter(Duration.ofSeconds(1))).isInstanceOf(LockLostException.class);
      assertThat((Long) redis("PTTL", lockKey("gone"))).isGreaterThan(30_000);
      assertThat(next.isValid()).isTrue();
    }
  }

  @Test
  void closeAfter_wakesWaiters_inOtherClientsAndItsOwn_onceTheLockExpires() throws Exception {
    Relock holder = client();
    LockLease lease = holder.lock("woken").acquire(Duration.ZERO);
    CompletableFuture<LockLease> own = holder.lock("woken").acquireAsync(PATIENCE);
    CompletableFuture<LockLease> other = client().lock("woken").acquireAsync(PATIENCE);
    awaitQueued("woken", 1); // the other client's waiter; the holder's own follows the hold
    lease.closeAfter(Duration.ofMillis(300));
    LockLease first = CompletableFuture.anyOf(own, other).thenApply(LockLease.class::cast).get();
    assertThat(first.fencingToken()).isGreaterThan(lease.fencingToken());
    first.close();
    LockLease second = (first == own.getNow(null) ? other : own).get();
    second.close();
  }

  @Test
  void onEveryKind_extendAndCloseAfter_setTheHoldsTimeToLive() {
    Relock relock = client();
    LockLease multi = relock.multiLock("multi-a", "multi-b").acquire(Duration.ZERO, Duration.ofSeconds(1));
    multi.extend(Duration.ofSeconds(50));
    assertThat((Long) redis("PTTL", lockKey("multi-a"))).isGreaterThan(30_000);
    assertThat((Long) redis("PTTL", lockKey("multi-b"))).isGreaterThan(30_000);
    multi.closeAfter(Duration.ofSeconds(3));
    assertThat((Long) redis("PTTL", lockKey("multi-a"))).isBetween(1L, 3000L);
    assertThat((Long) redis("PTTL", lockKey("multi-b"))).isBetween(1L, 3000L);
    assertThat(multi.isValid()).isFalse();
    if (onRedlock()) {
      assertThatThrownBy(() -> relock.semaphore("sem", 1)).isInstanceOf(UnsupportedOperationException.class);
      assertThatThrownBy(() -> relock.readWriteLock("rw")).isInstanceOf(UnsupportedOperationException.class);
      return;
    }
    DistributedSemaphore sem = relock.semaphore("sem", 1);
    DistributedSemaphore elsewhere = client().semaphore("sem", 1);
    DistributedReadWriteLock rwElsewhere = client().readWriteLock("rw");
    LockLease permit = sem.acquire(Duration.ZERO, Duration.ofSeconds(1));
    permit.extend(Duration.ofSeconds(50));
    String permitKey = onlyKey(lockKey("sem") + ":h:*");
    assertThat((Long) redis("PTTL", permitKey)).isGreaterThan(30_000);
    assertThat((Long) redis("PTTL", lockKey("sem"))).as("the marker").isGreaterThan(30_000);
    permit.closeAfter(Duration.ofSeconds(2));
    assertThat((Long) redis("PTTL", permitKey)).isBetween(1L, 2000L);
    assertThat(elsewhere.tryAcquire(Duration.ZERO)).as("the permit is kept").isEmpty();
    try (LockLease next = elsewhere.acquire(PATIENCE)) {
      assertThat(next.fencingToken()).isGreaterThan(permit.fencingToken());
    }

    DistributedReadWriteLock rw = relock.readWriteLock("rw");
    LockLease writing = rw.writeLock().acquire(Duration.ZERO, Duration.ofSeconds(1));
    writing.extend(Duration.ofSeconds(50));
    String writerKey = onlyKey(lockKey("rw") + ":h:*");
    assertThat((Long) redis("PTTL", writerKey)).isGreaterThan(30_000);
    writing.closeAfter(Duration.ofSeconds(2));
    assertThat(rwElsewhere.readLock().tryAcquire(Duration.ZERO)).as("the write lock is kept").isEmpty();
    try (LockLease reading = rwElsewhere.readLock().acquire(PATIENCE)) {
      reading.extend(Duration.ofMinutes(2));
      assertThat((Long) redis("PTTL", onlyKey(lockKey("rw") + ":h:*"))).isGreaterThan(90_000);
    }
  }

  /**
   * Waits until {@code n} waiters wait in Redis for lock {@code name}: queued (a sorted set), or on
   * Redlock masters, their clients' channels left to be told (a set).
   */
  private void awaitQueued(String name, int n) {
    String key = lockKey(name) + ":q";
    await(n + " waiter(s) waiting in Redis for '" + name + "'", () -> {
      Object type = redis("TYPE", key);
      long size = "zset".equals(type) ? (Long) redis("ZCARD", key) : "set".equals(type) ? (Long) redis("SCARD", key) : 0;
      return size >= n;
    });
  }

  private String onlyKey(String pattern) {
    List<?> keys = (List<?>) redis("KEYS", pattern);
    assertThat(keys).as(pattern).hasSize(1);
    return String.valueOf(keys.get(0));
  }
}

package io.relock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.LockLease;
import io.relock.LockLostException;
import io.relock.Relock;
import io.relock.internal.Scripts;
import io.relock.internal.TestAccess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Leases, the batched watchdog and lost-lock detection (issue items 4 and 5). */
public abstract class LeaseContract extends RelockContract {

  @Test
  void watchdog_keepsADefaultLeaseLockHeldForThreeLeases() {
    Duration lease = Duration.ofMillis(600);
    Relock relock = client(b -> b.defaultLease(lease));
    try (LockLease held = relock.lock("renewed").acquire(Duration.ZERO)) {
      long until = System.nanoTime() + lease.multipliedBy(3).toNanos();
      await("three leases have passed with the lock held throughout", () -> {
        assertThat(holderInRedis("renewed")).as("still held").isNotNull();
        assertThat(held.isValid()).isTrue();
        return System.nanoTime() - until > 0;
      });
      assertThat((Long) redis("PTTL", lockKey("renewed"))).isPositive();
    }
  }

  @Test
  void explicitLease_isNeverRenewed_andItsEndIsReported() {
    Relock relock = client();
    AtomicInteger lost = new AtomicInteger();
    LockLease lease = relock.lock("fixed").acquire(Duration.ZERO, Duration.ofMillis(300));
    lease.onLost(lost::incrementAndGet);
    await("the lease is reported lost", () -> lost.get() == 1);
    assertThat(lease.isValid()).isFalse();
    assertThat(lease.remaining()).isEqualTo(Duration.ZERO);
    await("Redis expired the key", () -> redis("EXISTS", lockKey("fixed")).equals(0L));
    assertThatThrownBy(lease::close).isInstanceOf(LockLostException.class).hasMessageContaining("fixed");
    assertThat(lost.get()).as("listeners run once").isEqualTo(1);
  }

  @Test
  void forceUnlock_isReportedToTheHolderAtOnce_notAtItsNextRenewal() {
    LockLease lease = ForcedUnlocks.holderIsToldAtOnce(client(b -> b.defaultLease(ForcedUnlocks.LONG_LEASE)), client(),
        "forced", lock -> lock.acquire(Duration.ZERO), RelockContract::await);
    assertThatThrownBy(lease::close).isInstanceOf(LockLostException.class).hasMessageContaining("forced unlock");
  }

  @Test
  void forceUnlock_ofAFixedLease_isReportedAtOnce_notAtTheLeasesEnd() {
    ForcedUnlocks.holderIsToldAtOnce(client(), client(), "forced-fixed",
        lock -> lock.acquire(Duration.ZERO, ForcedUnlocks.LONG_LEASE), RelockContract::await);
  }

  @Test
  void aNoticeOfAForcedUnlock_thatComesLateOrNamesALiveHold_isCheckedAndChangesNothing() {
    Relock holder = client(b -> b.defaultLease(Duration.ofMinutes(10)));
    AtomicInteger lost = new AtomicInteger();
    AtomicInteger reads = new AtomicInteger();
    holder.addListener(new io.relock.RelockListener() {
      @Override
      public void redisCall(String script, Duration took, Throwable error) {
        if (script.equals("inspect.lua")) {
          reads.incrementAndGet();
        }
      }
    });
    LockLease first = holder.lock("late-notice").acquire(Duration.ZERO);
    String firstOwner = holderInRedis("late-notice");
    first.onLost(lost::incrementAndGet);
    assertThat(client().lock("late-notice").forceUnlock()).isTrue();
    await("the first hold is found lost", () -> lost.get() == 1);
    // A fixed lease now, whose expiry a check must leave exactly as it is.
    LockLease second = holder.lock("late-notice").acquire(Duration.ZERO, Duration.ofMinutes(10));
    second.onLost(lost::incrementAndGet);
    String secondOwner = holderInRedis("late-notice");
    String channel = "relock:client:" + secondOwner.substring(0, secondOwner.indexOf(':'));
    redis("PEXPIRE", lockKey("late-notice"), "300000");
    int before = reads.get();
    // The first notice again, as if delayed: it names the first hold, which is gone from this client.
    redis("PUBLISH", channel, "lost " + firstOwner + " " + lockKey("late-notice"));
    // One naming the live hold (stray, or sent before a failover undid the unlock): read, found held.
    redis("PUBLISH", channel, "lost " + secondOwner + " " + lockKey("late-notice"));
    await("the live hold was read in Redis", () -> reads.get() > before);
    assertThat(second.isValid()).isTrue();
    assertThat(lost.get()).isEqualTo(1);
    assertThat((Long) redis("PTTL", lockKey("late-notice"))).as("the check changed no expiry").isBetween(1L, 300_000L);
    second.close();
  }

  /**
   * A forced unlock that runs after an acquisition took the lock in Redis, but before its reply
   * reached the client: the notice names an owner that holds nothing here yet. The hold it becomes
   * must be checked, or its holder counts a fixed lease of minutes valid while others hold the lock.
   */
  @Test
  void forceUnlock_whileTheAcquisitionsReplyIsOnItsWay_isReportedToTheHoldItBecomes() throws Exception {
    String name = "forced-in-flight";
    SteeredNetwork network = new SteeredNetwork(connectDriver(redis.uri(), DRIVER_SETTINGS));
    Relock holder = clientOver(network, b -> b);
    SteeredNetwork.Held reply = network.holdReply(c -> c.runs(Scripts.ACQUIRE) && c.on(lockKey(name)));
    CompletableFuture<LockLease> acquiring = inThread(() -> holder.lock(name).acquire(Duration.ZERO,
        ForcedUnlocks.LONG_LEASE));
    await("the acquisition took the lock in Redis", reply::ranInRedis);
    assertThat(holderInRedis(name)).startsWith(holder.clientId());
    assertThat(client().lock(name).forceUnlock()).isTrue();
    await("the holder's client has the notice", () -> network.heard("lost "));
    reply.deliver();
    LockLease lease = acquiring.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    AtomicInteger lost = new AtomicInteger();
    lease.onLost(lost::incrementAndGet);
    await("the holder is told", () -> lost.get() == 1);
    assertThat(lease.isValid()).isFalse();
  }

  /**
   * The same for a hold passed within the client: a release hands the lock to the client's next
   * waiter in Redis, a forced unlock frees it there before the release's reply arrives, and the
   * next holder must be told.
   */
  @Test
  void forceUnlock_whileAReleaseThatPassedTheLockWithinTheClientIsAnswered_isReportedToTheNextHolder()
      throws Exception {
    String name = "forced-while-passed";
    SteeredNetwork network = new SteeredNetwork(connectDriver(redis.uri(), DRIVER_SETTINGS));
    Relock holder = clientOver(network, b -> b);
    LockLease first = holder.lock(name).acquire(Duration.ZERO, ForcedUnlocks.LONG_LEASE);
    CompletableFuture<LockLease> next = inThread(() -> holder.lock(name).acquire(PATIENCE, ForcedUnlocks.LONG_LEASE));
    await("the next waiter waits in the client", () -> TestAccess.localWaiters(holder, lockKey(name), PATIENCE) == 1);
    SteeredNetwork.Held passing = network.holdReply(c -> c.runs(Scripts.RELEASE) && c.on(lockKey(name)));
    CompletableFuture<LockLease> closing = inThread(() -> {
      first.close();
      return first;
    });
    await("the release passed the lock in Redis", passing::ranInRedis);
    assertThat(holderInRedis(name)).as("passed to the next waiter").startsWith(holder.clientId());
    assertThat(client().lock(name).forceUnlock()).isTrue();
    await("the holder's client has the notice", () -> network.heard("lost "));
    passing.deliver();
    closing.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    LockLease second = next.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    AtomicInteger lost = new AtomicInteger();
    second.onLost(lost::incrementAndGet);
    await("the next holder is told", () -> lost.get() == 1);
    assertThat(second.isValid()).isFalse();
  }

  /** A notice whose read fails (Redis did not answer it) is read again, not dropped. */
  @Test
  void forceUnlock_whoseNoticesReadFails_isReadAgainAndReported() {
    String name = "forced-read-failed";
    SteeredNetwork network = new SteeredNetwork(connectDriver(redis.uri(), DRIVER_SETTINGS));
    Relock holder = clientOver(network, b -> b);
    LockLease lease = holder.lock(name).acquire(Duration.ZERO, ForcedUnlocks.LONG_LEASE);
    AtomicInteger lost = new AtomicInteger();
    lease.onLost(lost::incrementAndGet);
    SteeredNetwork.Held read = network.failUnsent(c -> c.runs(Scripts.INSPECT) && c.on(lockKey(name)));
    assertThat(client().lock(name).forceUnlock()).isTrue();
    await("the notice's first read failed", read::came);
    await("the holder is told", () -> lost.get() == 1);
    assertThat(lease.isValid()).isFalse();
  }

  /** Runs {@code call} on a thread of its own. */
  private static <T> CompletableFuture<T> inThread(java.util.function.Supplier<T> call) {
    return CompletableFuture.supplyAsync(call, r -> new Thread(r, "caller").start());
  }

  @Test
  void lostThreadHold_isReportedByLockAndUnlock_untilTheThreadUnlocks() {
    Relock relock = client(b -> b.defaultLease(Duration.ofMillis(900)));
    var lock = relock.lock("thread-lost");
    lock.lock();
    assertThat(client().lock("thread-lost").forceUnlock()).isTrue();
    await("the thread's hold is found lost", () -> !lock.isHeldByCurrentThread());
    assertThatThrownBy(lock::lock).isInstanceOf(LockLostException.class);
    assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
    assertThatThrownBy(lock::unlock).as("the lost hold is gone now").isInstanceOf(IllegalMonitorStateException.class)
        .isNotInstanceOf(LockLostException.class);
    lock.lock();
    assertThat(lock.isHeldByCurrentThread()).isTrue();
    lock.unlock();
  }

  @Test
  void lossFoundOnlyAtClose_runsTheListenersBeforeCloseThrows() {
    Relock holder = client();
    AtomicInteger lost = new AtomicInteger();
    LockLease lease = holder.lock("found-at-close").acquire(Duration.ZERO);
    lease.onLost(lost::incrementAndGet);
    redis("DEL", lockKey("found-at-close")); // gone without a notice, as when Redis lost it
    assertThat(lease.isValid()).as("the holder cannot know yet: no renewal has run").isTrue();
    assertThatThrownBy(lease::close).isInstanceOf(LockLostException.class)
        .hasMessageContaining("the lock had expired").hasMessageContaining("ms before the lease's local deadline");
    assertThat(lost.get()).as("listeners ran before close threw").isEqualTo(1);
  }

  @Test
  void takenByAnotherOwner_isReportedAndReleaseLeavesTheNewOwnerAlone() {
    Relock holder = client(b -> b.defaultLease(Duration.ofMillis(900)));
    AtomicInteger lost = new AtomicInteger();
    LockLease lease = holder.lock("taken").acquire(Duration.ZERO);
    lease.onLost(lost::incrementAndGet);
    StoredLock.plant(redis, lockKey("taken"), "someone-else", 1, Duration.ofMinutes(1));
    redis("PEXPIRE", lockKey("taken"), "20000"); // ends well before the lease its value names
    await("the holder is told", () -> lost.get() == 1);
    assertThatThrownBy(lease::close).isInstanceOf(LockLostException.class);
    assertThat(holderInRedis("taken")).isEqualTo("someone-else");
    assertThat((Long) redis("PTTL", lockKey("taken"))).as("the release read it, and left its expiry as it was")
        .isPositive().isLessThanOrEqualTo(20_000);
  }

  @Test
  void aLockKeyOverwrittenWithSomethingElse_losesThatLeaseOnly_theRestOfTheBatchIsRenewed() {
    Relock holder = client(b -> b.defaultLease(Duration.ofMillis(900)));
    LockLease overwritten = holder.lock("overwritten").acquire(Duration.ZERO);
    LockLease kept = holder.lock("kept").acquire(Duration.ZERO);
    redis("DEL", lockKey("overwritten"));
    redis("HSET", lockKey("overwritten"), "not", "a lock");
    await("the overwritten lease is reported lost", () -> !overwritten.isValid());
    long until = System.nanoTime() + Duration.ofMillis(1800).toNanos();
    await("two more leases passed", () -> {
      assertThat(kept.isValid()).as("renewed in the same batch").isTrue();
      return System.nanoTime() - until > 0;
    });
    kept.close();
    assertThat(redis("HGET", lockKey("overwritten"), "not")).isEqualTo("a lock");
  }

  @Test
  void redisUnreachable_leaseTurnsInvalidAtItsDeadline() {
    Relock relock = client(b -> b.defaultLease(Duration.ofMillis(900)).commandTimeout(Duration.ofMillis(300)));
    AtomicInteger lost = new AtomicInteger();
    LockLease lease = relock.lock("cut-off").acquire(Duration.ZERO);
    lease.onLost(lost::incrementAndGet);
    redis.pause();
    try {
      await("the lease is reported lost while Redis is unreachable", () -> lost.get() == 1);
      assertThat(lease.isValid()).isFalse();
    } finally {
      redis.resume();
    }
    assertThatThrownBy(lease::close).isInstanceOf(LockLostException.class);
  }

  /**
   * Renewals refused (Redis unreachable, a node failing over) until less than a tick (a third of
   * the lease) is left and two of them failed: the renewal is tried again until it goes through,
   * not only at the next tick. The holder counts its lease as ending a second before Redis does,
   * so that no tick comes between the end of the refusals and that end.
   */
  @Test
  void aRenewalThatFailed_isTriedAgainUntilTheLeaseEnds_notOnlyAtTheNextTick() {
    RenewalGate gate = new RenewalGate(connectDriver(redis.uri(), DRIVER_SETTINGS));
    Duration lease = Duration.ofSeconds(6);
    try (Relock relock = Relock.builder().driver(gate).defaultLease(lease).clockDrift(Duration.ofSeconds(1)).build()) {
      LockLease held = relock.lock("retried").acquire(Duration.ZERO);
      gate.refuse(true);
      Duration underATick = lease.dividedBy(3).minusMillis(300);
      await("less than a tick of the lease is left, and two renewals were refused",
          () -> held.remaining().compareTo(underATick) < 0 && gate.refused() >= 2);
      gate.refuse(false);
      await("a renewal went through", () -> (Long) redis("PTTL", lockKey("retried")) > lease.toMillis() * 2 / 3);
      assertThat(held.isValid()).isTrue();
      held.close();
    }
  }

  /**
   * A renewal held up (Redis slow or paused) is the lease's only one: the ticks that come
   * meanwhile send no second renewal of it, which would only queue behind the first.
   */
  @Test
  void aRenewalInFlight_isNotSentAgainByTheTicksThatComeMeanwhile() {
    RenewalGate gate = new RenewalGate(connectDriver(redis.uri(), DRIVER_SETTINGS));
    Duration lease = Duration.ofSeconds(3);
    try (Relock relock = Relock.builder().driver(gate).defaultLease(lease).commandTimeout(Duration.ofSeconds(5))
        .build()) {
      LockLease held = relock.lock("in-flight").acquire(Duration.ZERO);
      gate.hold();
      // Last renewed (or acquired) at most a tick before the hold; with under half a tick left,
      // two ticks have come since.
      await("two ticks have come since the last renewal", () -> held.remaining().compareTo(lease.dividedBy(6)) < 0);
      assertThat(gate.letThrough()).as("renewals held back").isEqualTo(1);
      await("the renewal held back went through", () -> held.remaining().compareTo(lease.dividedBy(3)) > 0);
      assertThat(gate.mostInFlight()).as("renewals in flight at once").isEqualTo(1);
      assertThat(held.isValid()).isTrue();
      held.close();
    }
  }

  @Test
  void throwingListener_isContained_andOtherListenersStillRun() {
    Relock relock = client();
    AtomicInteger ran = new AtomicInteger();
    LockLease lease = relock.lock("listeners").acquire(Duration.ZERO, Duration.ofMillis(100));
    lease.onLost(() -> {
      throw new IllegalStateException("listener bug");
    });
    lease.onLost(ran::incrementAndGet);
    await("the second listener ran", () -> ran.get() == 1);
    lease.onLost(ran::incrementAndGet);
    await("a listener added after the loss runs too", () -> ran.get() == 2);
    assertThatThrownBy(lease::close).isInstanceOf(LockLostException.class);
    try (LockLease next = relock.lock("listeners").acquire(PATIENCE)) {
      assertThat(next.isValid()).as("the client still works").isTrue();
    }
  }

  @Test
  void lostLease_closedTwice_throwsOnce_thenDoesNothing() {
    Relock relock = client();
    LockLease lease = relock.lock("lost-twice").acquire(Duration.ZERO);
    relock.lock("lost-twice").forceUnlock();
    assertThatThrownBy(lease::close).isInstanceOf(LockLostException.class);
    lease.close();
    assertThat(lease.isValid()).isFalse();
  }

  @Test
  void normalClose_neverRunsListeners() {
    Relock relock = client(b -> b.defaultLease(Duration.ofMillis(300)));
    AtomicInteger lost = new AtomicInteger();
    LockLease lease = relock.lock("quiet").acquire(Duration.ZERO);
    lease.onLost(lost::incrementAndGet);
    lease.close();
    long until = System.nanoTime() + Duration.ofMillis(900).toNanos();
    await("three leases passed after close", () -> System.nanoTime() - until > 0);
    assertThat(lost.get()).isZero();
  }

  @Test
  void watchdog_renewsTenThousandLocksInBatches_notOneCallPerLock() {
    // Long enough that a tick's batches finish within a third of it even on two cores shared with
    // the fault-injection suite (CI runs this beside it): batches sized by Redis's pace get small
    // when Redis is starved of CPU, and go one after another.
    Duration lease = Duration.ofSeconds(10);
    Relock relock = client(b -> b.defaultLease(lease));
    List<LockLease> leases = new ArrayList<>();
    for (int chunk = 0; chunk < 20; chunk++) {
      List<CompletableFuture<LockLease>> pending = new ArrayList<>();
      for (int i = chunk * 500; i < (chunk + 1) * 500; i++) {
        // With a wait: a free lock's try whose call times out on a starved machine, and whose
        // retry finds the first call's hold, would give up rather than count it late.
        pending.add(relock.lock("many-" + i).acquireAsync(PATIENCE));
      }
      pending.forEach(f -> leases.add(f.join()));
    }
    redis("CONFIG", "RESETSTAT");
    long start = System.nanoTime();
    long window = lease.multipliedBy(2).toNanos();
    await("two leases have passed", () -> System.nanoTime() - start > window);
    long elapsed = System.nanoTime() - start;
    long calls = scriptCalls();
    long ticks = elapsed / lease.dividedBy(3).toNanos() + 1;
    // Batches are bounded by time (see WatchdogRenewer), and even on the slowest Redis a call
    // renews a few holds before it looks at its budget: one call per lock would be 10,000 a tick.
    long perTick = (10_000 + TestAccess.fewestRenewedPerCall() - 1) / TestAccess.fewestRenewedPerCall();
    assertThat(calls).as("renewal calls in %d ticks", ticks).isPositive().isLessThanOrEqualTo(ticks * perTick);
    assertThat(leases.stream().filter(l -> !l.isValid()).toList()).as("leases no longer valid").isEmpty();
    assertThat((Long) redis("PTTL", lockKey("many-9999"))).isPositive();
    leases.forEach(LockLease::close);
    assertThat(redis("DBSIZE")).as("only fence keys remain").isEqualTo(10_000L);
  }
}

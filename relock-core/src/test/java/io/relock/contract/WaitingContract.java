package io.relock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.DistributedLock;
import io.relock.LockLease;
import io.relock.LockTimeoutException;
import io.relock.Relock;
import io.relock.spi.DriverSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Waiting without polling, direct handoff, timeouts, interruption, cancellation (items 7, 8). */
public abstract class WaitingContract extends RelockContract {

  private static final Duration NO_RECHECK = Duration.ofMinutes(5);

  private void awaitQueued(String name, long n) {
    await(n + " waiter(s) queued on " + name, () -> redis("ZCARD", lockKey(name) + ":q").equals(n));
  }

  @Test
  void release_handsTheLockToTheWaiter_inTwoScriptCallsWithoutPolling() {
    Relock holder = client();
    Relock waiter = client(b -> b.recheckInterval(NO_RECHECK));
    LockLease held = holder.lock("handoff").acquire(Duration.ZERO);
    redis("CONFIG", "RESETSTAT");
    CompletableFuture<LockLease> next = waiter.lock("handoff").acquireAsync(PATIENCE);
    awaitQueued("handoff", 1);
    long until = System.nanoTime() + Duration.ofSeconds(1).toNanos();
    await("a second of waiting passed", () -> System.nanoTime() - until > 0);
    assertThat(scriptCalls()).as("a waiting client sends nothing while it waits").isEqualTo(1);
    held.close();
    LockLease got = next.join();
    assertThat(scriptCalls()).as("enqueue + the holder's release, which hands over").isEqualTo(2);
    assertThat(got.isValid()).isTrue();
    got.close();
    assertNoWaiters("handoff");
  }

  @Test
  void threadsOfOneClient_queueLocally_withOneRedisWaiter() {
    Relock holder = client();
    Relock waiting = client();
    LockLease held = holder.lock("local-queue").acquire(Duration.ZERO);
    List<CompletableFuture<LockLease>> waiters = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      waiters.add(waiting.lock("local-queue").acquireAsync(PATIENCE));
    }
    awaitQueued("local-queue", 1);
    assertThat(waiters).noneMatch(CompletableFuture::isDone);
    assertThat(redis("ZCARD", lockKey("local-queue") + ":q")).isEqualTo(1L);
    held.close();
    for (CompletableFuture<LockLease> w : waiters) {
      w.join().close();
    }
    assertNoWaiters("local-queue");
  }

  private void awaitLocalWaiters(Relock relock, String name, int n) {
    await(n + " waiter(s) in the client",
        () -> io.relock.internal.TestAccess.localWaiters(relock, lockKey(name), PATIENCE) == n);
  }

  /**
   * A waiter of the client that holds the lock follows that hold: it asks Redis nothing while it
   * waits, however long (here five recheck intervals), and the hold's release hands it the lock in
   * the same call, with no notification.
   */
  @Test
  void aWaiterOfTheHoldingClient_followsTheHold_andItsReleaseHandsItTheLockInOneCall() {
    Relock relock = client(b -> b.recheckInterval(Duration.ofMillis(200)));
    LockLease first = relock.lock("passed").acquire(Duration.ZERO);
    redis("CONFIG", "RESETSTAT");
    CompletableFuture<LockLease> second = relock.lock("passed").acquireAsync(PATIENCE);
    awaitLocalWaiters(relock, "passed", 1);
    long until = System.nanoTime() + Duration.ofSeconds(1).toNanos();
    await("five recheck intervals passed", () -> System.nanoTime() - until > 0);
    assertThat(scriptCalls()).as("calls while it followed the hold").isZero();
    assertThat(redis("EXISTS", lockKey("passed") + ":q")).as("queued in Redis").isEqualTo(0L);
    first.close();
    LockLease got = second.join();
    assertThat(got.fencingToken()).isGreaterThan(first.fencingToken());
    assertThat(stored("passed").token()).isEqualTo(got.fencingToken());
    assertThat(scriptCalls()).as("one release call that also passes the lock on").isEqualTo(1);
    assertThat(commandCalls("publish")).as("no notification needed").isZero();
    got.close();
    assertNoWaiters("passed");
  }

  /**
   * Each waiter of the holding client follows the hold before it once it is first: none of them
   * ever asks Redis, and each contended acquisition costs its predecessor's release, one call.
   */
  @Test
  void waitersOfTheHoldingClient_followOneAnother_soNoneAsksRedis() {
    Relock relock = client();
    LockLease held = relock.lock("followers").acquire(Duration.ZERO);
    redis("CONFIG", "RESETSTAT");
    List<CompletableFuture<LockLease>> waiters = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      waiters.add(relock.lock("followers").acquireAsync(PATIENCE));
    }
    awaitLocalWaiters(relock, "followers", 3);
    for (CompletableFuture<LockLease> next : waiters) {
      held.close();
      LockLease got = next.join();
      assertThat(got.fencingToken()).isGreaterThan(held.fencingToken());
      held = got;
    }
    assertThat(scriptCalls()).as("three releases, each passing the lock on; no waiter asked itself").isEqualTo(3);
    assertThat(commandCalls("publish")).as("no notification needed").isZero();
    held.close();
    assertNoWaiters("followers");
  }

  @Test
  void passingWithinABusyClient_isBounded_soAnotherClientsWaiterGetsItsTurn() throws Exception {
    long taken = takenByABusyClientWhileAnotherWaits((client, wait) -> client.lock("shared-hot").acquire(wait));
    assertThat(taken).as("busy client's acquisitions while the other waited")
        .isLessThanOrEqualTo(2L * (io.relock.internal.TestAccess.passesAhead() + 2));
  }

  @Test
  void waitersOfDifferentClients_areServedInArrivalOrder() {
    Relock holder = client();
    List<String> order = new CopyOnWriteArrayList<>();
    List<CompletableFuture<LockLease>> waiters = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      String who = "client-" + i;
      CompletableFuture<LockLease> f = client().lock("fifo").acquireAsync(PATIENCE);
      waiters.add(f.thenApply(lease -> {
        order.add(who);
        return lease;
      }));
      if (i == 0) {
        continue;
      }
      awaitQueued("fifo", i);
    }
    // client-0 took the free lock; the others queued behind it in order.
    waiters.get(0).join().close();
    for (int i = 1; i < 4; i++) {
      waiters.get(i).join().close();
    }
    assertThat(order).containsExactly("client-0", "client-1", "client-2", "client-3");
    holder.close();
  }

  /**
   * The fence carries the waiters mark that sends a caller finding the lock free to the queue
   * first. If the fence expires while a waiter waits, the next call must bring the mark back.
   */
  @Test
  void aWaiter_keepsItsPlace_afterTheFenceExpiredWhileItWaited() throws Exception {
    Relock relock = client(b -> b.fenceRetention(Duration.ofMillis(300)).recheckInterval(Duration.ofMinutes(1)));
    LockLease holder = client().lock("kept-place").acquire(Duration.ZERO, Duration.ofMinutes(1));
    CompletableFuture<LockLease> waiter = relock.lock("kept-place").acquireAsync(PATIENCE);
    awaitQueued("kept-place", 1);
    await("the fence expired", () -> redis("EXISTS", lockKey("kept-place") + ":fence").equals(0L));
    assertThat(relock.lock("kept-place").tryAcquire(Duration.ZERO)).as("held still").isEmpty();
    redis("DEL", lockKey("kept-place")); // the holder's lease ends, long before the waiter's next look
    assertThat(client().lock("kept-place").tryAcquire(Duration.ZERO)).as("a caller jumping the queue").isEmpty();
    waiter.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS).close();
    assertThatThrownBy(holder::close).isInstanceOf(io.relock.LockLostException.class);
  }

  @Test
  void lostNotification_costsOnlyTheRecheckInterval() {
    Relock holder = client();
    Relock waiter = client(b -> b.recheckInterval(Duration.ofMillis(200)));
    LockLease held = holder.lock("lost-note").acquire(Duration.ZERO);
    CompletableFuture<LockLease> next = waiter.lock("lost-note").acquireAsync(PATIENCE);
    awaitQueued("lost-note", 1);
    // Redirect the grant notification to a channel nobody listens to.
    String owner = (String) ((List<?>) redis("ZRANGE", lockKey("lost-note") + ":q", "0", "0")).get(0);
    String entry = (String) redis("HGET", lockKey("lost-note") + ":qi", owner);
    String[] parts = entry.split(" ", 4);
    redis("HSET", lockKey("lost-note") + ":qi", owner, parts[0] + " " + parts[1] + " " + parts[2] + " nobody-listens");
    held.close();
    LockLease got = next.join();
    assertThat(got.isValid()).isTrue();
    got.close();
  }

  @Test
  void waiterWhoseQueueEntryVanished_queuesAgainAndStillGetsTheLock() {
    Relock holder = client();
    Relock waiter = client(b -> b.recheckInterval(Duration.ofMillis(100)));
    LockLease held = holder.lock("vanished").acquire(Duration.ZERO);
    CompletableFuture<LockLease> next = waiter.lock("vanished").acquireAsync(PATIENCE);
    awaitQueued("vanished", 1);
    String owner = (String) ((List<?>) redis("ZRANGE", lockKey("vanished") + ":q", "0", "0")).get(0);
    redis("ZREM", lockKey("vanished") + ":q", owner);
    redis("HDEL", lockKey("vanished") + ":qi", owner);
    await("the waiter queued again", () -> redis("ZCARD", lockKey("vanished") + ":q").equals(1L));
    held.close();
    LockLease got = next.join();
    assertThat(got.isValid()).isTrue();
    got.close();
  }

  @Test
  void expiredQueueEntryOfADeadWaiter_isSkipped() {
    Relock holder = client();
    LockLease held = holder.lock("dead-waiter").acquire(Duration.ZERO);
    long nowMs = serverMillis();
    redis("ZADD", lockKey("dead-waiter") + ":q", "0", "ghost");
    redis("HSET", lockKey("dead-waiter") + ":qi", "ghost", (nowMs + 300) + " 60000 60000 nowhere");
    CompletableFuture<LockLease> live = client().lock("dead-waiter").acquireAsync(PATIENCE);
    awaitQueued("dead-waiter", 2);
    await("the ghost's entry expired", () -> serverMillis() > nowMs + 300);
    held.close();
    LockLease got = live.join();
    assertThat(holderInRedis("dead-waiter")).isNotEqualTo("ghost");
    got.close();
    assertNoWaiters("dead-waiter");
  }

  @Test
  void deadWaiterHandedTheLock_holdsOthersUpOnlyForItsClaimTime_notItsLease() {
    Relock holder = client();
    LockLease held = holder.lock("dead-grantee").acquire(Duration.ZERO);
    long nowMs = serverMillis();
    // A waiter that died just after queueing: live entry, 60 s lease, 3 s claim (long enough for
    // the checks below on a slow machine, short beside the lease).
    redis("ZADD", lockKey("dead-grantee") + ":q", "0", "ghost");
    redis("HSET", lockKey("dead-grantee") + ":qi", "ghost", (nowMs + 60_000) + " 60000 3000 nowhere");
    CompletableFuture<LockLease> live = client().lock("dead-grantee").acquireAsync(PATIENCE);
    awaitQueued("dead-grantee", 2);
    held.close();
    assertThat(holderInRedis("dead-grantee")).as("handed to the first in line").isEqualTo("ghost");
    assertThat((Long) redis("PTTL", lockKey("dead-grantee"))).as("for the claim time only").isBetween(1L, 3_000L);
    LockLease got = live.join();
    assertThat(got.isValid()).isTrue();
    got.close();
  }

  @Test
  void aHandOverKnownWithLittleOfItsClaimLeft_isConfirmedBeforeItCounts_notHandedOutAboutToEnd() {
    // Recheck 500 ms: a claim of 1 s; drift 10 ms. The waiter learns of the hand-over from its
    // recheck, whose reply comes with 30 ms of the claim left; renewals answer 300 ms late.
    LateGrantNetwork network = new LateGrantNetwork(connectDriver(redis.uri(), DRIVER_SETTINGS),
        Duration.ofMillis(990), Duration.ofMillis(30), Duration.ofMillis(300));
    Relock holder = client();
    try (Relock waiter = Relock.builder().driver(network).recheckInterval(Duration.ofMillis(500))
        .clockDrift(Duration.ofMillis(10)).commandTimeout(Duration.ofSeconds(5)).build()) {
      LockLease held = holder.lock("late-grant").acquire(Duration.ZERO);
      CompletableFuture<LockLease> next = waiter.lock("late-grant").acquireAsync(PATIENCE);
      awaitQueued("late-grant", 1);
      held.close();
      LockLease got = next.join();
      java.util.concurrent.atomic.AtomicInteger lost = new java.util.concurrent.atomic.AtomicInteger();
      got.onLost(lost::incrementAndGet);
      long until = System.nanoTime() + Duration.ofMillis(800).toNanos();
      await("the claim and a delayed renewal have passed", () -> System.nanoTime() - until > 0);
      assertThat(lost.get()).as("lost a moment after it was handed out").isZero();
      assertThat(got.isValid()).isTrue();
      got.close();
    }
  }

  @Test
  void handedOverLock_heldPastTheClaimTime_isConfirmedAndKept() {
    Relock holder = client();
    Relock waiter = client(b -> b.recheckInterval(Duration.ofMillis(100)).defaultLease(Duration.ofSeconds(30)));
    LockLease held = holder.lock("confirmed").acquire(Duration.ZERO);
    CompletableFuture<LockLease> next = waiter.lock("confirmed").acquireAsync(PATIENCE);
    awaitQueued("confirmed", 1);
    held.close();
    LockLease got = next.join();
    AtomicBoolean lost = new AtomicBoolean();
    got.onLost(() -> lost.set(true));
    long until = System.nanoTime() + Duration.ofSeconds(1).toNanos();
    await("five claim times (200 ms each) have passed", () -> System.nanoTime() - until > 0);
    assertThat(lost.get()).isFalse();
    assertThat(got.isValid()).isTrue();
    assertThat((Long) redis("PTTL", lockKey("confirmed"))).as("extended to the full lease").isGreaterThan(20_000L);
    got.close();
  }

  @Test
  void expiredHolder_isReplacedByTheWaiterWithoutANotification() {
    Relock holder = client();
    Relock waiter = client(b -> b.recheckInterval(NO_RECHECK));
    holder.lock("expired").acquire(Duration.ZERO, Duration.ofMillis(300));
    LockLease got = waiter.lock("expired").acquire(PATIENCE);
    assertThat(got.isValid()).as("woken when the holder's lease ran out, not at the recheck interval").isTrue();
    got.close();
  }

  @Test
  void timedAcquire_givesUpAfterItsWait_andLeavesNoQueueEntry() {
    Relock holder = client();
    DistributedLock lock = client().lock("timeout");
    LockLease held = holder.lock("timeout").acquire(Duration.ZERO);
    long start = System.nanoTime();
    assertThatThrownBy(() -> lock.acquire(Duration.ofMillis(300)))
        .isInstanceOf(LockTimeoutException.class).hasMessageContaining("timeout").hasMessageContaining("PT0.3S");
    long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertThat(tookMs).as("waited its wait, plus at most a round trip (generous bound)").isBetween(290L, 300L + 2000L);
    assertNoWaiters("timeout");
    assertThat(held.isValid()).isTrue();
    held.close();
  }

  @Test
  void tryLockAndZeroWait_neverWaitNorQueue() {
    Relock holder = client();
    DistributedLock lock = client().lock("no-wait");
    LockLease held = holder.lock("no-wait").acquire(Duration.ZERO);
    assertThat(lock.tryLock()).isFalse();
    assertThatThrownBy(() -> lock.acquire(Duration.ZERO)).isInstanceOf(LockTimeoutException.class);
    assertThat(lock.tryAcquire(Duration.ZERO)).isEmpty();
    assertNoWaiters("no-wait");
    held.close();
  }

  @Test
  void interrupt_withdrawsTheWaiterFromRedis() throws Exception {
    Relock holder = client();
    DistributedLock lock = client().lock("interrupted");
    LockLease held = holder.lock("interrupted").acquire(Duration.ZERO);
    AtomicReference<Throwable> outcome = new AtomicReference<>();
    Thread t = new Thread(() -> {
      try {
        lock.lockInterruptibly();
        outcome.set(new AssertionError("acquired"));
      } catch (Throwable e) {
        outcome.set(e);
      }
    });
    t.start();
    awaitQueued("interrupted", 1);
    t.interrupt();
    t.join(PATIENCE.toMillis());
    assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
    assertNoWaiters("interrupted");
    held.close();
    assertThat(lock.isLocked()).as("nobody was handed the lock").isFalse();
  }

  @Test
  void lock_ignoresInterruptsWhileWaiting_andRestoresTheFlag() throws Exception {
    Relock holder = client();
    DistributedLock lock = client().lock("uninterruptible");
    LockLease held = holder.lock("uninterruptible").acquire(Duration.ZERO);
    AtomicBoolean flagAfter = new AtomicBoolean();
    Thread t = new Thread(() -> {
      lock.lock();
      flagAfter.set(Thread.currentThread().isInterrupted());
      lock.unlock();
    });
    t.start();
    awaitQueued("uninterruptible", 1);
    t.interrupt();
    held.close();
    t.join(PATIENCE.toMillis());
    assertThat(t.isAlive()).isFalse();
    assertThat(flagAfter.get()).isTrue();
  }

  @Test
  void acquireAsync_returnsAtOnce_andCancellingWithdrawsTheWaiter() {
    Relock holder = client();
    DistributedLock lock = client().lock("async");
    LockLease held = holder.lock("async").acquire(Duration.ZERO);
    CompletableFuture<LockLease> f = lock.acquireAsync(PATIENCE);
    assertThat(f).isNotDone();
    awaitQueued("async", 1);
    f.cancel(true);
    await("the waiter is withdrawn", () -> redis("ZCARD", lockKey("async") + ":q").equals(0L));
    assertNoWaiters("async");
    held.close();
    assertThat(lock.isLocked()).isFalse();
  }

  @Test
  void acquireAsync_completesOnARelockThread_notOnARedisIoThread() {
    Relock holder = client();
    LockLease held = holder.lock("async-thread").acquire(Duration.ZERO);
    CompletableFuture<String> thread = client().lock("async-thread").acquireAsync(PATIENCE)
        .thenApply(lease -> {
          lease.close();
          return Thread.currentThread().getName();
        });
    awaitQueued("async-thread", 1);
    held.close();
    assertThat(thread.join()).startsWith("relock-events");
  }

  private long serverMillis() {
    @SuppressWarnings("unchecked")
    List<String> t = (List<String>) redis("TIME");
    return Long.parseLong(t.get(0)) * 1000 + Long.parseLong(t.get(1)) / 1000;
  }

  /**
   * A waiter's grant is known only to have started after its last call to Redis; when that call
   * was longer ago than the lease (it waited on a long hold without rechecking), the grant must be
   * confirmed, not handed over as a lease already over. Without the confirmation the waiter got a
   * lease that was invalid on arrival and, no longer renewed, really expired under it.
   */
  @Test
  void aGrantAfterAWaitLongerThanTheLease_isConfirmed_andHandedOverValid() throws Exception {
    assertGrantAfterLongWaitIsValid(client().lock("long-wait"),
        client(b -> b.recheckInterval(NO_RECHECK)).lock("long-wait"));
  }

  /** The same for a reader queued behind a writer (a read-write lock's shared lane). */
  @Test
  void aReadGrantAfterAWaitLongerThanTheLease_isConfirmed_andHandedOverValid() throws Exception {
    assertGrantAfterLongWaitIsValid(client().readWriteLock("long-wait-rw").writeLock(),
        client(b -> b.recheckInterval(NO_RECHECK)).readWriteLock("long-wait-rw").readLock());
  }

  private void assertGrantAfterLongWaitIsValid(DistributedLock holderLock, DistributedLock waiterLock)
      throws Exception {
    Duration lease = Duration.ofMillis(800);
    LockLease held = holderLock.acquire(Duration.ZERO); // a 30 s lease: the waiter's recheck is far off
    CompletableFuture<LockLease> next = CompletableFuture.supplyAsync(() -> waiterLock.acquire(PATIENCE, lease));
    await("the waiter is queued", () -> redis("ZCARD", lockKey(waiterLock.name()) + ":q").equals(1L));
    long queued = System.nanoTime();
    await("longer than the lease since the waiter's last call", () -> System.nanoTime() - queued > 2 * lease.toNanos());
    held.close();

    LockLease got = next.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(got.isValid()).as("the handed-over lease, as the waiter gets it").isTrue();
    got.close();
  }

  // ---- followers: the first waiter of the holding client (see Acquisition#follow) -----------

  /**
   * Two waiters of {@code relock}, which holds {@code name}: the first follows the hold (with
   * {@code followerWait} to wait), the second waits behind it in the client.
   */
  private List<CompletableFuture<LockLease>> followerAndNext(Relock relock, String name, Duration followerWait) {
    CompletableFuture<LockLease> follower = relock.lock(name).acquireAsync(followerWait);
    awaitLocalWaiters(relock, name, 1);
    CompletableFuture<LockLease> next = relock.lock(name).acquireAsync(PATIENCE);
    awaitLocalWaiters(relock, name, 2);
    return List.of(follower, next);
  }

  /**
   * The release that names the follower fails after it may have run (a command timeout): the
   * follower then sends its own 'wait'. A reconnect while that call is out must not end its wait,
   * nor the wait of the waiter behind it (found by review, for the queued successor's next waiter
   * this replaced: a timer armed while it waited in the client was still armed, and a reconnect
   * fires whatever is armed).
   */
  @Test
  void aFollowerWhoseReleaseFailed_isNotTimedOutByAReconnect() throws Exception {
    HeldReleaseReplies network = new HeldReleaseReplies(connectDriver(redis.uri(), DRIVER_SETTINGS));
    try (Relock relock = Relock.builder().driver(network).commandTimeout(Duration.ofSeconds(2)).build()) {
      LockLease held = relock.lock("follower-reconnect").acquire(Duration.ZERO);
      List<CompletableFuture<LockLease>> w = followerAndNext(relock, "follower-reconnect", PATIENCE);
      Thread closer = new Thread(() -> {
        try {
          held.close();
        } catch (RuntimeException expected) {
          // the release timed out: it goes on in the background
        }
      });
      pauseWrites(Duration.ofSeconds(8));
      try {
        closer.start();
        awaitCallsHeldByThePause(1);
        closer.join(PATIENCE.toMillis()); // the release's command timeout (2 s) has passed: the follower sent 'wait'
        network.reconnect.run();
        // A round trip through the lock's mailbox: the reconnect has been handled.
        io.relock.internal.TestAccess.localWaiters(relock, lockKey("follower-reconnect"), PATIENCE);
        assertThat(w.get(0)).as("the follower, with %s to wait, after the reconnect", PATIENCE).isNotDone();
        assertThat(w.get(1)).as("the waiter behind it, after the reconnect").isNotDone();
      } finally {
        unpause();
      }
      w.get(0).get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS).close();
      w.get(1).get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS).close();
    }
    awaitNothingLeftOf("follower-reconnect");
  }

  /**
   * Holds {@code name} with a new client, with a follower and a waiter behind it (see
   * followerAndNext), then releases it while writes are paused, and runs {@code meanwhile} once
   * the release is held in Redis. Returns both acquisitions once the release is over. The client's
   * commands time out after 10 s, not 2: the release must not fail while it is held.
   */
  private List<CompletableFuture<LockLease>> whileTheReleaseIsInRedis(String name, Duration followerWait,
      java.util.function.Consumer<List<CompletableFuture<LockLease>>> meanwhile) throws InterruptedException {
    return whileTheReleaseIsInRedis(name, followerWait, NO_RECHECK, meanwhile);
  }

  private List<CompletableFuture<LockLease>> whileTheReleaseIsInRedis(String name, Duration followerWait,
      Duration recheck, java.util.function.Consumer<List<CompletableFuture<LockLease>>> meanwhile)
      throws InterruptedException {
    Duration patientCommands = Duration.ofSeconds(10);
    Relock relock = client(redis.uri(), new DriverSettings(patientCommands, Duration.ofSeconds(2), "relock-test"),
        b -> b.recheckInterval(recheck).commandTimeout(patientCommands));
    LockLease held = relock.lock(name).acquire(Duration.ZERO);
    List<CompletableFuture<LockLease>> w = followerAndNext(relock, name, followerWait);
    Thread closer = new Thread(held::close);
    pauseWrites(Duration.ofSeconds(10));
    try {
      closer.start();
      awaitCallsHeldByThePause(1);
      meanwhile.accept(w);
    } finally {
      unpause();
    }
    closer.join(PATIENCE.toMillis());
    return w;
  }

  /**
   * The follower is cancelled while the release that hands it the lock is held in Redis: what it
   * was handed is released after, and the waiter behind it, which asked Redis once the follower had
   * left, gets the lock.
   */
  @Test
  void aFollowerCancelledWhileTheReleaseIsInRedis_givesBackWhatItWasHanded() throws Exception {
    List<CompletableFuture<LockLease>> w = whileTheReleaseIsInRedis("follower-cancel", PATIENCE,
        waiters -> assertThat(waiters.get(0).cancel(true)).isTrue());
    LockLease got = w.get(1).get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(got.isValid()).isTrue();
    assertThat(holderInRedis("follower-cancel")).isNotNull();
    got.close();
    awaitNothingLeftOf("follower-cancel");
  }

  /**
   * The follower's wait ends while the release that names it is held in Redis: its deadline holds,
   * whatever it had armed to look again at the recheck interval (here 200 ms, shorter than its
   * wait: found by review, the deadline was dropped when that fired while the release was out).
   */
  @Test
  void aFollowerWhoseWaitEndsWhileTheReleaseIsInRedis_timesOutAndLeavesNothing() throws Exception {
    List<CompletableFuture<LockLease>> w = whileTheReleaseIsInRedis("follower-deadline", Duration.ofSeconds(2),
        Duration.ofMillis(200),
        waiters -> await("the follower timed out", () -> waiters.get(0).isDone()));
    assertThatThrownBy(() -> w.get(0).join()).hasCauseInstanceOf(LockTimeoutException.class);
    LockLease got = w.get(1).get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    got.close();
    awaitNothingLeftOf("follower-deadline");
  }

  /** The waiter behind the follower is cancelled while the release is held in Redis: it had nothing there. */
  @Test
  void theWaiterBehindAFollower_cancelledWhileTheReleaseIsInRedis_leavesNothing() throws Exception {
    List<CompletableFuture<LockLease>> w = whileTheReleaseIsInRedis("follower-next", PATIENCE,
        waiters -> assertThat(waiters.get(1).cancel(true)).isTrue());
    LockLease got = w.get(0).get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(got.isValid()).isTrue();
    assertThat(holderInRedis("follower-next")).isNotNull();
    got.close();
    awaitNothingLeftOf("follower-next");
  }

  /** The client closes while a release names a follower. */
  @Test
  void closingWhileAReleaseNamesAFollower_leavesNothing() throws Exception {
    Relock relock = client(b -> b.recheckInterval(NO_RECHECK));
    LockLease held = relock.lock("follower-close").acquire(Duration.ZERO);
    followerAndNext(relock, "follower-close", PATIENCE);
    Thread closer = new Thread(held::close);
    Thread closing = new Thread(relock::close);
    pauseWrites(Duration.ofSeconds(3));
    try {
      closer.start();
      awaitCallsHeldByThePause(1);
      closing.start();
      await("the client closing, its release still held", () -> closing.getState() == Thread.State.WAITING
          || closing.getState() == Thread.State.TIMED_WAITING);
    } finally {
      unpause();
    }
    closer.join(PATIENCE.toMillis());
    closing.join(PATIENCE.toMillis());
    assertThat(closing.isAlive()).isFalse();
    awaitNothingLeftOf("follower-close");
  }

  /**
   * Another client's waiter queued while the busy client's follower waited in its client: once
   * the busy client has passed the lock ahead of it as often as the bound allows, its release
   * queues the follower behind that waiter, which gets the lock.
   */
  @Test
  void passesToFollowers_stayBounded_soAnotherClientsEarlierWaiterGetsItsTurn() throws Exception {
    int passes = passesBeforeAnotherClientsEarlierWaiter("starved", lockKey("starved"),
        (client, wait) -> client.lock("starved").acquireAsync(wait));
    assertThat(passes).isLessThanOrEqualTo(io.relock.internal.TestAccess.passesAhead());
    awaitNothingLeftOf("starved");
  }

  /**
   * The release that names the follower reaches Redis late: its client has given up on it (the
   * reply never came), the follower has queued itself and then been cancelled (its abandon ran),
   * and only then does that release run and hand the follower the lock, before the release's
   * retry. The follower must still not leave the lock held for its lease (5 minutes here): it
   * settles only once the release is over, with one more abandon (found by review: on a driver of
   * several connections a late call can overtake nothing less).
   */
  @Test
  void aReleaseThatReachesRedisAfterItsFollowerGaveUp_leavesNoLockBehind() throws Exception {
    LateFollowerRelease network = new LateFollowerRelease(connectDriver(redis.uri(), DRIVER_SETTINGS));
    try (Relock relock = Relock.builder().driver(network).defaultLease(Duration.ofMinutes(5))
        .recheckInterval(Duration.ofMinutes(1)).build()) {
      relock.lock("warm-up").acquire(Duration.ZERO).close(); // release.lua loaded: no NOSCRIPT for the late call
      LockLease held = relock.lock("late-release").acquire(Duration.ZERO);
      CompletableFuture<LockLease> follower = relock.lock("late-release").acquireAsync(PATIENCE);
      awaitLocalWaiters(relock, "late-release", 1);
      Thread closer = new Thread(held::close);
      closer.start();
      awaitQueued("late-release", 1); // its release's reply lost, the follower asked for itself
      assertThat(follower.cancel(true)).isTrue();
      closer.join(PATIENCE.toMillis());
      assertThat(network.delivered).as("the late release, delivered after the follower's abandon").isDone();
      assertThat(network.lateReply).as("the late release's reply: it handed the follower the lock").startsWith(3L);
      awaitNothingLeftOf("late-release");
    }
  }

  /**
   * Holds back the first release that names a follower, failing it in the client as a lost reply
   * would, and sends it to Redis only after that follower's abandon has run; a release sent after
   * it waits until it has run.
   */
  static final class LateFollowerRelease extends LostNotificationsNetwork {
    private List<String> heldKeys;
    private List<String> heldArgs;
    final CompletableFuture<Void> delivered = new CompletableFuture<>();
    volatile List<Object> lateReply;
    private boolean sending;

    LateFollowerRelease(io.relock.spi.RedisDriver real) {
      super(real);
    }

    @Override
    public synchronized CompletableFuture<List<Object>> evalSha(String sha1, List<String> keys, List<String> args) {
      boolean release = sha1.equals(io.relock.internal.Scripts.RELEASE.sha1());
      if (release && heldArgs == null && args.get(3).startsWith("=")) {
        heldKeys = keys;
        heldArgs = args;
        return CompletableFuture.failedFuture(new java.util.concurrent.TimeoutException("test: the reply was lost"));
      }
      if (release && heldArgs != null) {
        return delivered.thenCompose(v -> real.evalSha(sha1, keys, args));
      }
      CompletableFuture<List<Object>> reply = real.evalSha(sha1, keys, args);
      if (heldArgs != null && !sending && args.size() > 2 && "abandon".equals(args.get(2))
          && heldArgs.get(3).startsWith("=" + args.get(0) + " ")) {
        sending = true; // once, after the follower's first abandon
        reply.whenComplete((r, e) -> real.evalSha(sha1(), heldKeys, heldArgs)
            .whenComplete((late, error) -> {
              lateReply = late;
              delivered.complete(null);
            }));
      }
      return reply;
    }

    private static String sha1() {
      return io.relock.internal.Scripts.RELEASE.sha1();
    }
  }

  /** Loses every notification, and holds back release.lua's replies while {@link #gate} is set. */
  static final class HeldReleaseReplies extends LostNotificationsNetwork {
    volatile CompletableFuture<Void> gate;
    final java.util.concurrent.atomic.AtomicInteger releasesSent = new java.util.concurrent.atomic.AtomicInteger();
    volatile Runnable reconnect = () -> {};

    HeldReleaseReplies(io.relock.spi.RedisDriver real) {
      super(real);
    }

    @Override
    public CompletableFuture<List<Object>> evalSha(String sha1, List<String> keys, List<String> args) {
      CompletableFuture<List<Object>> reply = real.evalSha(sha1, keys, args);
      CompletableFuture<Void> g = gate;
      if (g == null || !sha1.equals(io.relock.internal.Scripts.RELEASE.sha1())) {
        return reply;
      }
      releasesSent.incrementAndGet();
      return reply.thenCombine(g, (r, v) -> r);
    }

    @Override
    public void onReconnect(Runnable listener) {
      reconnect = listener;
      real.onReconnect(listener);
    }
  }

  /**
   * The follower is queued by the release that names it (its client has passed the lock ahead of
   * another client's waiter as often as the bound allows), and granted the lock from Redis's queue
   * while that release has not answered (the other client released at once); that grant's
   * notification is lost, and the connection comes back meanwhile. A waiter in Redis re-checks at
   * once on a reconnect; so does the follower, once the release has answered (found by review, for
   * the queued successor's next waiter this replaced: it ignored the reconnect, and waited a whole
   * recheck interval, a minute here).
   */
  @Test
  void aFollowerQueuedDuringAReconnect_reChecksOnceTheReleaseAnswers() throws Exception {
    HeldReleaseReplies network = new HeldReleaseReplies(connectDriver(redis.uri(), DRIVER_SETTINGS));
    try (Relock relock = Relock.builder().driver(network).recheckInterval(Duration.ofMinutes(1)).build()) {
      relock.lock("warm-up").acquire(Duration.ZERO).close(); // release.lua loaded: no NOSCRIPT round trip below
      LockLease held = relock.lock("follower-nudge").acquire(Duration.ZERO);
      CompletableFuture<LockLease> follower = relock.lock("follower-nudge").acquireAsync(PATIENCE);
      awaitLocalWaiters(relock, "follower-nudge", 1);
      Relock other = client(b -> b.recheckInterval(Duration.ofMinutes(1)));
      CompletableFuture<LockLease> theirs = other.lock("follower-nudge").acquireAsync(PATIENCE);
      awaitQueued("follower-nudge", 1);
      io.relock.internal.TestAccess.usePassesAhead(relock, lockKey("follower-nudge"), PATIENCE);
      CompletableFuture<Void> gate = new CompletableFuture<>();
      network.gate = gate;
      Thread closer = new Thread(held::close);
      closer.start();
      LockLease got = theirs.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS); // handed over by our release
      assertThat(redis("ZCARD", lockKey("follower-nudge") + ":q")).as("our follower, queued").isEqualTo(1L);
      got.close(); // hands the lock to our follower; its notification is lost
      await("the lock handed to our follower, nothing left queued",
          () -> holderInRedis("follower-nudge") != null && redis("EXISTS", lockKey("follower-nudge") + ":q").equals(0L));
      network.reconnect.run(); // notifications sent meanwhile may have been lost: waiters re-check
      io.relock.internal.TestAccess.localWaiters(relock, lockKey("follower-nudge"), PATIENCE); // the reconnect handled
      gate.complete(null);
      closer.join(PATIENCE.toMillis());
      follower.get(5, TimeUnit.SECONDS).close();
    }
  }
}

package io.relock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.DistributedLock;
import io.relock.LockLease;
import io.relock.LockLostException;
import io.relock.Relock;
import io.relock.RelockException;
import io.relock.spi.DriverSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The client-side races: whatever the interleaving of callers, interrupts, cancellations,
 * timeouts and a slow Redis, no lock may be left held in Redis by an acquisition its caller will
 * never see, and a thread's hold count must match what the calls told it. One test per race; each
 * failed on the engine before the mailbox rewrite (see the stress suite for the random search).
 *
 * <p>Locks here get a 60 s default lease, longer than {@link #PATIENCE}: a lock left behind is
 * still there when the test looks, instead of expiring before it.
 */
public abstract class ClientRacesContract extends RelockContract {
  private static final Duration LONG_LEASE = Duration.ofSeconds(60);
  private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(1000);

  private Relock slowRedisClient(Duration commandTimeout) {
    DriverSettings settings = new DriverSettings(commandTimeout, Duration.ofSeconds(2), "relock-test");
    Relock relock = client(redis.uri(), settings, b -> b.commandTimeout(commandTimeout).defaultLease(LONG_LEASE));
    relock.lock("warm-up").acquire(Duration.ZERO).close(); // scripts loaded, connections up
    return relock;
  }

  private static void awaitBlocked(Thread t) {
    await(t.getName() + " waits", () -> t.getState() == Thread.State.WAITING || t.getState() == Thread.State.TIMED_WAITING);
  }

  @Test
  void tryLock_racingUnlockOnOtherThreads_isAlwaysHeldAndUnlockable_andLeavesTheLockFree() throws Exception {
    Relock relock = client(b -> b.defaultLease(LONG_LEASE));
    DistributedLock lock = relock.lock("try-race");
    List<String> wrong = new CopyOnWriteArrayList<>();
    AtomicInteger successes = new AtomicInteger();
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      threads.add(new Thread(() -> {
        while (System.nanoTime() - end < 0 && wrong.isEmpty()) {
          if (!lock.tryLock()) {
            continue;
          }
          successes.incrementAndGet();
          if (!lock.isHeldByCurrentThread() || lock.getHoldCount() != 1) {
            wrong.add("tryLock() true but held " + lock.isHeldByCurrentThread() + ", count " + lock.getHoldCount());
          }
          try {
            lock.unlock();
          } catch (RuntimeException e) {
            wrong.add("unlock() after a true tryLock() threw " + e);
          }
        }
      }));
    }
    threads.forEach(Thread::start);
    for (Thread t : threads) {
      t.join(PATIENCE.toMillis());
    }
    assertThat(wrong).isEmpty();
    assertThat(successes.get()).as("tryLock() successes").isPositive();
    awaitNothingLeftOf("try-race");
  }

  @Test
  void tryLock_withTheInterruptFlagSet_ignoresIt_andLeavesTheFlagSet() {
    DistributedLock lock = client().lock("flagged");
    LockLease other;
    Thread.currentThread().interrupt();
    try {
      assertThat(lock.tryLock()).isTrue();
      assertThat(Thread.currentThread().isInterrupted()).as("flag still set").isTrue();
      assertThat(lock.getHoldCount()).isEqualTo(1);
      lock.unlock();
      Thread.interrupted();
      other = client().lock("flagged").acquire(Duration.ZERO);
      Thread.currentThread().interrupt();
      assertThat(lock.tryLock()).as("held by another client").isFalse();
      assertThat(Thread.currentThread().isInterrupted()).as("flag still set").isTrue();
    } finally {
      Thread.interrupted();
    }
    other.close();
    awaitNothingLeftOf("flagged");
  }

  /**
   * A grant notification can arrive late (a stalled listener thread or connection): by then Redis
   * may have ended that grant for want of a confirmation, and the waiter queued again. Replayed
   * here: a ghost owner holds the lock; the waiter is told of a grant carrying the ghost's token,
   * then of a grant to the ghost, which the client withdraws as an owner it does not know, so
   * that Redis hands the lock to the waiter for real.
   */
  @Test
  void lateGrantNotification_ofAGrantRedisHasEnded_isIgnored() throws Exception {
    Relock relock = client(b -> b.defaultLease(LONG_LEASE));
    DistributedLock lock = relock.lock("late-grant");
    String key = lockKey("late-grant");
    long ghostToken;
    try (LockLease first = lock.acquire(Duration.ZERO)) {
      ghostToken = first.fencingToken() + 1;
    }
    redis("SET", key + ":fence", Long.toString(ghostToken));
    StoredLock.plant(redis, key, "ghost", ghostToken, LONG_LEASE);

    CompletableFuture<LockLease> waiting = lock.acquireAsync(PATIENCE);
    await("the waiter is queued in Redis and has its reply", () -> {
      try {
        return io.relock.internal.TestAccess.waitsForGrant(relock, key, PATIENCE);
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    });
    String waiter = (String) ((List<?>) redis("ZRANGE", key + ":q", "0", "0")).get(0);
    String entry = (String) redis("HGET", key + ":qi", waiter);
    String channel = entry.split(" ", 4)[3];
    redis("PUBLISH", channel, ghostToken + " " + waiter + " " + key);
    lock.forceUnlock(); // ends the ghost's hold: the lock goes to the waiter, with a new token

    try (LockLease lease = waiting.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)) {
      assertThat(lease.fencingToken()).as("token of the grant the waiter holds").isGreaterThan(ghostToken);
      assertThat(StoredLock.read(redis, key).token()).isEqualTo(lease.fencingToken());
    }
    awaitNothingLeftOf("late-grant");
  }

  /**
   * A grant's notification can arrive after the waiter learned of the grant from a reply of its
   * own (a re-check, or a give-up that found it holding the lock) and after the caller has already
   * begun to release it. The client must send nothing for it: a withdrawal written from the I/O
   * thread can reach Redis before the release the caller's thread sent first, free the lock under
   * it, and make that release report a loss it never had (found by the stress suite). Replayed
   * here with the release held in Redis by a pause, and the late notification delivered then;
   * INFO commandstats then shows whether anything but the release was sent.
   */
  @Test
  void lateGrantNotification_ofAHoldBeingReleased_sendsNothing() throws Exception {
    Relock relock = slowRedisClient(COMMAND_TIMEOUT);
    DistributedLock lock = relock.lock("late-for-release");
    String key = lockKey("late-for-release");
    LockLease lease = lock.acquire(Duration.ZERO, LONG_LEASE);
    String owner = StoredLock.holder(redis, key);
    redis("CONFIG", "RESETSTAT");
    CompletableFuture<Void> closed;
    pauseWrites(Duration.ofSeconds(10));
    try {
      closed = CompletableFuture.runAsync(lease::close);
      awaitCallsHeldByThePause(1);
      io.relock.internal.TestAccess.deliverNotification(relock, lease.fencingToken() + " " + owner + " " + key, PATIENCE);
    } finally {
      unpause();
    }
    closed.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS); // throws if the release reported a loss
    awaitNothingLeftOf("late-for-release");
    await("the client keeps no local state for the name", () -> localStates(relock) == 0);
    assertThat(commandCalls("evalsha") + commandCalls("eval")).as("scripts run since the hold was taken").isEqualTo(1);
  }

  /** The ways a caller gives up a zero-wait attempt whose call is already in Redis. */
  enum GiveUp { INTERRUPTED_ACQUIRE, INTERRUPTED_TRY_ACQUIRE, INTERRUPTED_TIMED_TRY_LOCK, CANCELLED_ASYNC, CLIENT_TIMEOUT }

  @ParameterizedTest
  @EnumSource(GiveUp.class)
  void zeroWaitAttempt_givenUpWhileRedisHoldsIt_isReleasedOnceRedisRunsIt(GiveUp how) throws Exception {
    Relock relock = slowRedisClient(how == GiveUp.CLIENT_TIMEOUT ? Duration.ofMillis(300) : COMMAND_TIMEOUT);
    DistributedLock lock = relock.lock("given-up");
    AtomicReference<Object> outcome = new AtomicReference<>();
    pauseWrites(Duration.ofSeconds(10));
    try {
      if (how == GiveUp.CANCELLED_ASYNC) {
        CompletableFuture<LockLease> f = lock.acquireAsync(Duration.ZERO);
        awaitCallsHeldByThePause(1);
        assertThat(f.cancel(true)).isTrue();
        outcome.set(new CancellationException());
      } else {
        Thread caller = new Thread(() -> {
          try {
            outcome.set(switch (how) {
              case INTERRUPTED_ACQUIRE, CLIENT_TIMEOUT -> lock.acquire(Duration.ZERO);
              case INTERRUPTED_TRY_ACQUIRE -> lock.tryAcquire(Duration.ZERO);
              default -> lock.tryLock(0, TimeUnit.SECONDS);
            });
          } catch (Throwable e) {
            outcome.set(e);
          }
        }, "caller");
        caller.start();
        awaitCallsHeldByThePause(1);
        if (how != GiveUp.CLIENT_TIMEOUT) {
          awaitBlocked(caller);
          caller.interrupt();
        }
        caller.join(PATIENCE.toMillis());
        assertThat(caller.isAlive()).isFalse();
      }
    } finally {
      unpause();
    }
    assertThat(outcome.get()).as("the caller was told it did not get the lock")
        .isInstanceOfAny(RelockException.class, InterruptedException.class, CancellationException.class);
    awaitNothingLeftOf("given-up");
    // Redis frees the key before its reply reaches the client, which then retires the name's local state.
    await("the client keeps no local state for the name", () -> localStates(relock) == 0);
  }

  /** The interruptible ways to re-enter a lock the thread holds. */
  enum Reentry { LOCK_INTERRUPTIBLY, TIMED_TRY_LOCK }

  @ParameterizedTest
  @EnumSource(Reentry.class)
  void reentry_interruptedWhileItsCallIsInRedis_keepsTheCountTheCallerWasTold(Reentry how) throws Exception {
    Relock relock = slowRedisClient(COMMAND_TIMEOUT);
    DistributedLock lock = relock.lock("reentered");
    CompletableFuture<Void> holding = new CompletableFuture<>();
    CompletableFuture<Void> go = new CompletableFuture<>();
    CompletableFuture<Integer> returned = new CompletableFuture<>();
    CompletableFuture<Void> redisRanIt = new CompletableFuture<>();
    AtomicReference<String> wrong = new AtomicReference<>();
    Thread holder = new Thread(() -> {
      lock.lock();
      holding.complete(null);
      go.join();
      int told;
      try {
        boolean got = how == Reentry.LOCK_INTERRUPTIBLY ? reenterInterruptibly(lock) : lock.tryLock(10, TimeUnit.SECONDS);
        told = got ? 2 : 1;
      } catch (InterruptedException e) {
        told = 1;
      }
      Thread.interrupted();
      returned.complete(told);
      redisRanIt.join(); // the re-entry's call has run in Redis: its reply can no longer change anything
      if (lock.getHoldCount() != told) {
        wrong.set("told " + told + " hold(s), getHoldCount() says " + lock.getHoldCount());
      }
      for (int i = 0; i < told; i++) {
        lock.unlock();
      }
    }, "holder");
    holder.start();
    holding.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    pauseWrites(Duration.ofSeconds(10));
    try {
      go.complete(null);
      awaitCallsHeldByThePause(1);
      awaitBlocked(holder);
      holder.interrupt();
      returned.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    } finally {
      unpause();
    }
    await("the re-entry ran in Redis", () -> stored("reentered").count() == 2);
    redisRanIt.complete(null);
    holder.join(PATIENCE.toMillis());
    assertThat(wrong.get()).isNull();
    awaitNothingLeftOf("reentered");
  }

  private static boolean reenterInterruptibly(DistributedLock lock) throws InterruptedException {
    lock.lockInterruptibly();
    return true;
  }

  /**
   * A waiter's {@code wait} whose reply was lost (the connection failed after it ran) is sent
   * again; meanwhile Redis may hand the waiter the lock from the queue entry the first one left.
   * On a driver of several connections the second {@code wait} can then reach Redis after the
   * release of that hand-over (here by {@code close()}), find the lock free and take it again, for
   * a whole lease, for an owner nobody will release (found by the stress suite on Jedis: a closed
   * client's {@code lock()} hold left in Redis, every other worker waiting for it). Replayed with a
   * network that holds the second {@code wait} back until a release of the lock has run, or until
   * the test lets it go.
   */
  @Test
  void closingTheClient_afterAHandOverLearntWhileAWaitSentAgainIsOnItsWay_leavesNothingBehind() throws Exception {
    String name = "overtaken-wait";
    String key = lockKey(name);
    OvertakenWaitNetwork network = new OvertakenWaitNetwork(connectDriver(redis.uri(), DRIVER_SETTINGS), key);
    try (Relock relock = Relock.builder().driver(network).defaultLease(LONG_LEASE).commandTimeout(Duration.ofSeconds(5))
        .build()) {
      LockLease held = client().lock(name).acquire(Duration.ZERO);
      AtomicReference<Object> outcome = new AtomicReference<>();
      Thread caller = new Thread(() -> {
        try {
          relock.lock(name).lock();
          outcome.set("locked");
        } catch (Throwable e) {
          outcome.set(e);
        }
      }, "caller");
      caller.start();
      await("the waiter's second 'wait' is held back", network::holdsAWait);
      String waiter = (String) ((List<?>) redis("ZRANGE", key + ":q", "0", "0")).get(0);
      held.close(); // hands the lock over, from the queue entry the first 'wait' left
      StoredLock granted = stored(name);
      assertThat(granted.owner()).as("the lock handed to the waiter").isEqualTo(waiter);
      io.relock.internal.TestAccess.deliverNotification(relock, granted.token() + " " + waiter + " " + key, PATIENCE);
      if (relock.stats().holds() == 0) {
        // The client did not take the hand-over at once: the call on its way answers for it.
        network.sendHeldBackWait();
      }
      caller.join(PATIENCE.toMillis());
      assertThat(outcome.get()).isEqualTo("locked");
      relock.close(); // a 'wait' still held back reaches Redis just after the release has run there
      awaitNothingLeftOf(name);
      assertThat(network.holdsAWait()).isFalse();
    }
  }

  /**
   * A thread holding a lock twice drops one hold ({@code unlock()}) while {@code close()} releases
   * the whole hold, and close()'s release reaches Redis first (on a driver of several connections,
   * or when the thread's call is sent again): the thread's call then finds the lock gone. That is
   * close()'s doing, not a loss: nobody may hear of one. Replayed with a network that holds the
   * thread's call back until close()'s release has run.
   */
  @Test
  void unlockOfOneOfTwoHolds_reachingRedisAfterClosesRelease_reportsNothingLost() throws Exception {
    String name = "unlock-behind-close";
    SteeredNetwork network = new SteeredNetwork(connectDriver(redis.uri(), DRIVER_SETTINGS));
    Relock relock = clientOver(network, b -> b.defaultLease(LONG_LEASE));
    List<String> heardLost = new CopyOnWriteArrayList<>();
    relock.addListener(new io.relock.RelockListener() {
      @Override
      public void leaseLost(String lockName, String reason) {
        heardLost.add(reason);
      }
    });
    SteeredNetwork.Held partial = network.holdUnsent(c -> c.runs(io.relock.internal.Scripts.RELEASE)
        && c.on(lockKey(name)) && "0".equals(c.args().get(1)));
    AtomicReference<Object> outcome = new AtomicReference<>();
    Thread holder = new Thread(() -> {
      DistributedLock lock = relock.lock(name);
      lock.lock();
      lock.lock();
      try {
        lock.unlock();
        outcome.set("unlocked");
      } catch (Throwable e) {
        outcome.set(e);
      }
    }, "holder");
    holder.start();
    await("the thread's unlock() of one of its two holds is on its way", partial::came);
    CompletableFuture<Void> closing = CompletableFuture.runAsync(relock::close);
    await("close() released the lock in Redis", () -> redis("EXISTS", lockKey(name)).equals(0L));
    partial.deliver();
    holder.join(PATIENCE.toMillis());
    closing.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(outcome.get()).isEqualTo("unlocked");
    assertThat(heardLost).as("losses heard").isEmpty();
  }

  /** Holds back the first acquire.lua call on lock {@code name}: it is sent only at deliver(). */
  private SteeredNetwork.Held holdFirstCall(SteeredNetwork network, String name) {
    return network.holdUnsent(c -> c.runs(io.relock.internal.Scripts.ACQUIRE) && c.on(lockKey(name)));
  }

  /**
   * Once the lease on {@code name} has ended in Redis: {@code other} holds the lock and lets it go;
   * then the held-back {@code first} call runs and takes the free lock again, for the same owner.
   */
  private void heldByAnotherThenTakenAgain(String name, Relock other, SteeredNetwork.Held first) {
    await("the lease ended in Redis", () -> redis("EXISTS", lockKey(name)).equals(0L));
    other.lock(name).acquire(PATIENCE).close();
    first.deliver();
    await("the first 'wait' ran in Redis", first::ranInRedis);
    assertThat(redis("EXISTS", lockKey(name))).as("it took the free lock again").isEqualTo(1L);
  }

  /**
   * An acquisition's 'wait' fails at the command timeout while its request is still on its way;
   * the wait sent again takes the lock, for a lease that then ends in Redis (the caller never
   * closes it in time), and another client holds the lock and releases it. Then the first request
   * reaches Redis and takes the free lock again, for the same owner id. The caller's close() finds
   * "its" key there: not the hold it had, which ended while another client held the lock. The loss
   * that close() comes after the lease's local deadline is reported, even before the client's
   * expiry check has come round (held here), and the key the late request took is released. Found
   * by the model (issue 42, point 1): close() between the deadline and the expiry check read the
   * key as the hold it had, and returned normally.
   */
  @Test
  void aTimedOutWaitTakingTheLockAgainAfterTheLeaseEnded_doesNotHideTheLoss() throws Exception {
    String name = "stale-wait-retakes";
    SteeredNetwork network = new SteeredNetwork(connectDriver(redis.uri(), DRIVER_SETTINGS));
    Relock relock = clientOver(network, b -> b.commandTimeout(Duration.ofMillis(300)));
    SteeredNetwork.Held first = holdFirstCall(network, name);
    try (Relock other = client(b -> b)) {
      LockLease lease = relock.lock(name).acquire(PATIENCE, Duration.ofMillis(500));
      assertThat(first.came()).as("the first 'wait' is still held back").isTrue();
      assertThat(first.ranInRedis()).isFalse();
      try (AutoCloseable lateTimer = io.relock.internal.TestAccess.holdTimer(relock)) {
        // The client's expiry check cannot come round: close() is the first to look at the deadline.
        await("the lease's local deadline passed", () -> lease.remaining().isZero());
        heldByAnotherThenTakenAgain(name, other, first);

        assertThatThrownBy(lease::close).isInstanceOf(LockLostException.class);
      }
      awaitNothingLeftOf(name);
    }
    relock.close();
  }

  /**
   * As above, with the watchdog: its renewal is held back on its way until the lease has ended in
   * Redis, another client has held the lock, and the timed-out 'wait' has taken it again; then it
   * runs and finds "its" key. Its answer comes after the lease's local deadline: the lease stays
   * lost (before the fix, the answer moved the deadline on, as if the hold had never ended, and
   * close() returned normally). Found by the model (issue 42, point 1).
   */
  @Test
  void aRenewalAnsweredPastTheDeadline_afterATimedOutWaitTookTheLockAgain_doesNotReviveTheLease() throws Exception {
    String name = "stale-wait-renewed";
    SteeredNetwork network = new SteeredNetwork(connectDriver(redis.uri(), DRIVER_SETTINGS));
    Relock relock = clientOver(network, b -> b.commandTimeout(Duration.ofSeconds(3)).defaultLease(Duration.ofSeconds(1)));
    AtomicInteger renewalsAnswered = new AtomicInteger();
    relock.addListener(new io.relock.RelockListener() {
      @Override
      public void renewed(int leases) {
        renewalsAnswered.incrementAndGet();
      }
    });
    SteeredNetwork.Held first = holdFirstCall(network, name);
    SteeredNetwork.Held renewal = network.holdUnsent(c -> c.runs(io.relock.internal.Scripts.RENEW)
        && c.keys().contains(lockKey(name)));
    try (Relock other = client(b -> b)) {
      LockLease lease = relock.lock(name).acquire(PATIENCE);
      await("the watchdog's renewal is on its way", renewal::came);
      try (AutoCloseable lateTimer = io.relock.internal.TestAccess.holdTimer(relock)) {
        heldByAnotherThenTakenAgain(name, other, first);
        renewal.deliver();
        await("the renewal's answer was handled", () -> renewalsAnswered.get() > 0);
        assertThat(lease.remaining()).as("not revived").isZero();

        assertThatThrownBy(lease::close).isInstanceOf(LockLostException.class);
      }
      awaitNothingLeftOf(name);
    }
    relock.close();
  }

  /**
   * As above, with {@code extend()} in place of the watchdog's renewal: extend() takes the lease
   * off the watchdog, and no expiry check is armed while the extension is under way. Its call is
   * held back until the lease has ended in Redis, another client has held the lock and the
   * timed-out 'wait' has taken it again; its answer (it found "its" key) comes past the lease's
   * local deadline. The lease stays lost: extend() and close() throw (before the fix, the
   * extension set the new deadline and close() returned normally). Found by review.
   */
  @Test
  void anExtensionAnsweredPastTheDeadline_afterATimedOutWaitTookTheLockAgain_doesNotReviveTheLease()
      throws Exception {
    String name = "stale-wait-extended";
    SteeredNetwork network = new SteeredNetwork(connectDriver(redis.uri(), DRIVER_SETTINGS));
    Relock relock = clientOver(network, b -> b.commandTimeout(Duration.ofSeconds(3)).defaultLease(Duration.ofSeconds(1)));
    SteeredNetwork.Held first = holdFirstCall(network, name);
    SteeredNetwork.Held extension = network.holdUnsent(c -> c.runs(io.relock.internal.Scripts.EXTEND)
        && c.keys().contains(lockKey(name)));
    try (Relock other = client(b -> b)) {
      LockLease lease = relock.lock(name).acquire(PATIENCE);
      CompletableFuture<Void> extending = CompletableFuture.runAsync(() -> lease.extend(Duration.ofSeconds(10)));
      await("the extension is on its way", extension::came);
      heldByAnotherThenTakenAgain(name, other, first);
      extension.deliver();
      Throwable extendFailed = extending.handle((v, e) -> e).get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
      assertThat(extendFailed).hasCauseInstanceOf(LockLostException.class);
      assertThat(lease.remaining()).as("not revived by an extension answered past its deadline").isZero();

      assertThatThrownBy(lease::close).isInstanceOf(LockLostException.class);
      awaitNothingLeftOf(name);
    }
    relock.close();
  }

  /**
   * LockLease#onLost says the listeners run "at the latest, on the closing thread when close()
   * finds the lease lost, before it throws". A lease closed past its local deadline, the key gone
   * in Redis, before the expiry check came round (timer held): the listener (a slow one) has run
   * when close() throws. Found by review: the first form of the deadline fix reported that loss
   * through isValid(), which hands the listeners to the client's event thread.
   */
  @Test
  void anOnLostListener_hasRunWhenCloseThrowsPastTheDeadline() throws Exception {
    String name = "close-past-deadline-listener";
    Relock relock = client(b -> b);
    LockLease lease = relock.lock(name).acquire(PATIENCE, Duration.ofMillis(300));
    AtomicReference<Thread> ranOn = new AtomicReference<>();
    lease.onLost(() -> {
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      ranOn.set(Thread.currentThread());
    });
    try (AutoCloseable lateTimer = io.relock.internal.TestAccess.holdTimer(relock)) {
      await("the lease ended in Redis", () -> redis("EXISTS", lockKey(name)).equals(0L));
      await("the lease's local deadline passed", () -> lease.remaining().isZero());
      assertThatThrownBy(lease::close).isInstanceOf(LockLostException.class);
      assertThat(ranOn.get()).as("the onLost listener ran before close() threw").isNotNull();
    }
    relock.close();
  }

  /**
   * The same race, with close() first in the client: the thread's {@code unlock()} found its hold
   * and asked, and close() released the hold before the thread's request was handled. The thread
   * is told the client closed and released the lock, as a later {@code unlock()} is; not that it
   * never held it. Replayed with a listener that close() calls as it releases the hold, before the
   * hold is gone from the client, and that waits there for the thread's request.
   */
  @Test
  void unlock_handledAfterCloseReleasedTheHold_saysTheClientClosed() throws Exception {
    String name = "unlock-after-close";
    Relock relock = client(b -> b.defaultLease(LONG_LEASE));
    java.util.concurrent.CountDownLatch locked = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch unlock = new java.util.concurrent.CountDownLatch(1);
    AtomicReference<Object> outcome = new AtomicReference<>();
    Thread holder = new Thread(() -> {
      DistributedLock lock = relock.lock(name);
      lock.lock();
      locked.countDown();
      try {
        unlock.await();
        lock.unlock();
        outcome.set("unlocked");
      } catch (Throwable e) {
        outcome.set(e);
      }
    }, "holder");
    holder.start();
    assertThat(locked.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    relock.addListener(new io.relock.RelockListener() {
      @Override
      public void released(String lockName, Duration held) {
        unlock.countDown();
        // Timed: waiting for its request's answer, not (untimed) for the latch.
        await("the thread's unlock() waits for its request to be handled", () -> outcome.get() != null
            || holder.getState() == Thread.State.TIMED_WAITING);
      }
    });
    relock.close();
    holder.join(PATIENCE.toMillis());
    assertThat(outcome.get()).isInstanceOf(RelockException.class).isNotInstanceOf(IllegalMonitorStateException.class);
    assertThat((Throwable) outcome.get()).hasMessageContaining("client is closed; it released lock '" + name + "'");
    awaitNothingLeftOf(name);
  }

  @Test
  void closingTheClient_withAZeroWaitAttemptInRedis_leavesNothingBehind() throws Exception {
    Relock relock = slowRedisClient(COMMAND_TIMEOUT);
    AtomicReference<Object> outcome = new AtomicReference<>();
    pauseWrites(Duration.ofSeconds(10));
    Thread caller = new Thread(() -> {
      try {
        outcome.set(relock.lock("closed-while-trying").tryAcquire(Duration.ZERO));
      } catch (Throwable e) {
        outcome.set(e);
      }
    });
    CompletableFuture<Void> closing;
    try {
      caller.start();
      awaitCallsHeldByThePause(1);
      closing = CompletableFuture.runAsync(relock::close);
      caller.join(PATIENCE.toMillis()); // close() fails the attempt at once; its withdrawal waits for Redis
    } finally {
      unpause();
    }
    closing.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(outcome.get()).isInstanceOf(RelockException.class);
    assertThat((Throwable) outcome.get()).hasMessageContaining("client closed while acquiring lock 'closed-while-trying'");
    awaitNothingLeftOf("closed-while-trying");
  }
}

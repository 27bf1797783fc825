package io.relock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.DistributedLock;
import io.relock.LockLease;
import io.relock.Relock;
import io.relock.RelockException;
import io.relock.testkit.RedisMasterGroup;
import io.relock.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Redlock over three independent masters started by the test kit, through the driver on the
 * module's class path: majorities, fencing tokens ordered across holders (a max-register over
 * the granting majorities, whatever each node's own fence says), a node that lost its data kept
 * out by the delayed restart, waiting woken by releases rather than polling, and errors that
 * name the nodes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class RedlockContract {
  private static final Duration PATIENCE = Duration.ofSeconds(20);
  private static final String FENCE = "relock:redlock:fence";
  private static final String MARKER = "relock:redlock:node";

  private RedisMasterGroup masters;
  private List<RedisServer> nodes;
  private final List<Relock> clients = new ArrayList<>();

  @BeforeAll
  void startMasters() {
    masters = RedisMasterGroup.start(3);
    nodes = masters.masters();
  }

  @AfterAll
  void stopMasters() {
    masters.close();
  }

  @BeforeEach
  void cleanSlate() {
    for (RedisServer n : nodes) {
      if (!n.isRunning()) {
        n.restart();
      }
      n.execute("FLUSHALL");
      n.execute("CONFIG", "RESETSTAT");
    }
  }

  @AfterEach
  void closeClients() {
    clients.forEach(Relock::close);
    clients.clear();
  }

  private Relock client(UnaryOperator<Relock.Builder> custom) {
    Relock c = custom.apply(Relock.builder().redlock(uris()).commandTimeout(Duration.ofSeconds(1))).build();
    clients.add(c);
    return c;
  }

  private String[] uris() {
    return masters.uris();
  }

  private static String lockKey(String name) {
    return "relock:{" + name + "}";
  }

  private static long fence(RedisServer node) {
    Object v = node.execute("GET", FENCE);
    return v == null ? 0 : Long.parseLong((String) v);
  }

  private static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out waiting until " + what);
      }
      java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
    }
  }

  /** Exclusive locks only: Redlock offers no other kind. */
  @Test
  void locks_underNamesAndPrefixesMadeOfKeySeparators_areRenewedAndReleased() {
    OddNames.holdAcrossRenewals(prefix -> client(b -> b.keyPrefix(prefix).defaultLease(OddNames.LEASE)), false);
  }

  @Test
  void acquisition_holdsTheLockOnEveryNode_withTheTokenWrittenToEach_andReleaseFreesThemAll() {
    Relock relock = client(b -> b);
    try (LockLease lease = relock.lock("orders").acquire(Duration.ZERO)) {
      for (RedisServer n : nodes) {
        assertThat(StoredLock.read(n, lockKey("orders")).token()).as(n.uri()).isEqualTo(lease.fencingToken());
        assertThat(fence(n)).as("fence of " + n.uri()).isEqualTo(lease.fencingToken());
      }
      assertThat(relock.lock("orders").isLocked()).isTrue();
    }
    for (RedisServer n : nodes) {
      assertThat(n.execute("EXISTS", lockKey("orders"))).as(n.uri()).isEqualTo(0L);
    }
  }

  @Test
  void forceUnlock_freesEveryNode_andIsReportedToTheHolderAtOnce() {
    ForcedUnlocks.holderIsToldAtOnce(client(b -> b.defaultLease(ForcedUnlocks.LONG_LEASE)), client(b -> b), "forced",
        lock -> lock.acquire(Duration.ZERO), RedlockContract::await);
    for (RedisServer n : nodes) {
      assertThat(n.execute("EXISTS", lockKey("forced"))).as(n.uri()).isEqualTo(0L);
    }
  }

  /**
   * A forced unlock that runs after an acquisition took the lock on the masters, but before the
   * merged reply reached the client: the masters' notices name an owner that holds nothing here
   * yet, and the hold it becomes must be checked (see LeaseContract's single-Redis form).
   */
  @Test
  void forceUnlock_whileTheAcquisitionsReplyIsOnItsWay_isReportedToTheHoldItBecomes() throws Exception {
    String name = "forced-in-flight";
    SteeredNetwork[] network = new SteeredNetwork[1];
    Relock holder = io.relock.internal.TestAccess.redlockThrough(uris(), Duration.ofSeconds(1),
        ForcedUnlocks.LONG_LEASE, redlock -> network[0] = new SteeredNetwork(redlock));
    clients.add(holder);
    SteeredNetwork.Held reply = network[0].holdReply(c -> c.runs(io.relock.internal.Scripts.ACQUIRE)
        && c.on(lockKey(name)));
    CompletableFuture<LockLease> acquiring = holder.lock(name).acquireAsync(Duration.ZERO);
    await("the acquisition took the lock on the masters", reply::ranInRedis);
    assertThat(client(b -> b).lock(name).forceUnlock()).isTrue();
    await("the holder's client has a master's notice", () -> network[0].heard("lost "));
    reply.deliver();
    LockLease lease = acquiring.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    java.util.concurrent.atomic.AtomicInteger lost = new java.util.concurrent.atomic.AtomicInteger();
    lease.onLost(lost::incrementAndGet);
    await("the holder is told", () -> lost.get() == 1);
    assertThat(lease.isValid()).isFalse();
  }

  @Test
  void aLockHeldOnAMajority_isRefusedToOthers_evenIfOneNodeIsFree() {
    Relock holder = client(b -> b);
    Relock other = client(b -> b);
    try (LockLease lease = holder.lock("stock").acquire(Duration.ZERO)) {
      nodes.get(0).execute("DEL", lockKey("stock")); // one node forgot the hold; two still have it
      assertThat(other.lock("stock").tryAcquire(Duration.ZERO)).isEmpty();
      assertThat(nodes.get(0).execute("EXISTS", lockKey("stock"))).as("the minority grant given back").isEqualTo(0L);
    }
  }

  @Test
  void tokens_increaseAcrossHolders_whateverOneNodesFenceSays() {
    Relock a = client(b -> b);
    Relock b = client(c -> c);
    long last = 0;
    for (int i = 0; i < 4; i++) {
      try (LockLease lease = (i % 2 == 0 ? a : b).lock("ledger").acquire(Duration.ZERO)) {
        assertThat(lease.fencingToken()).isGreaterThan(last);
        last = lease.fencingToken();
      }
    }
    // One node far ahead: the max over the majority follows it.
    nodes.get(1).execute("SET", FENCE, Long.toString(last + 1_000_000_000L));
    try (LockLease lease = a.lock("ledger").acquire(Duration.ZERO)) {
      assertThat(lease.fencingToken()).isGreaterThan(last + 1_000_000_000L);
      last = lease.fencingToken();
    }
    // One node far behind, and another node unreachable: the granting majority still includes a
    // node that saw the last token.
    nodes.get(0).execute("SET", FENCE, "1");
    nodes.get(2).kill();
    try (LockLease lease = b.lock("ledger").acquire(PATIENCE)) {
      assertThat(lease.fencingToken()).isGreaterThan(last);
    }
  }

  @Test
  void aNodeRestartedWithoutData_isKeptOut_soASecondHolderCannotGetIn() {
    Relock holder = client(b -> b.defaultLease(Duration.ofSeconds(30)));
    Relock other = client(b -> b.defaultLease(Duration.ofSeconds(30)));
    // The holder gets nodes 0 and 1 only: node 2 is held by someone else for a moment.
    StoredLock.plant(nodes.get(2), lockKey("ship"), "someone-else", 1, Duration.ofMinutes(1));
    LockLease held = holder.lock("ship").acquire(Duration.ZERO);
    assertThat(StoredLock.holder(nodes.get(2), lockKey("ship"))).isEqualTo("someone-else");
    nodes.get(2).execute("DEL", lockKey("ship"));
    long tokenBefore = held.fencingToken();

    nodes.get(0).restartWithoutData(); // node 0 forgot the hold, its fence and its marker

    // Without the delayed restart, nodes 0 and 2 would now form a majority for another owner.
    // Every attempt is refused, while the client reconnects to node 0 and finds it without data.
    await("node 0 is in its delayed restart", () -> {
      assertThat(other.lock("ship").tryAcquire(Duration.ZERO)).isEmpty();
      return nodes.get(0).execute("HGET", MARKER, "until") != null;
    });
    assertThat(fence(nodes.get(0))).as("node 0's fence floor covers the last token").isGreaterThanOrEqualTo(tokenBefore);
    // The holder itself may have learned by now that only one node still has its hold (a renewal
    // after its reconnect to node 0): then closing reports the loss, and still frees node 1.
    try {
      held.close();
    } catch (io.relock.LockLostException reported) {
      assertThat(held.isValid()).isFalse();
    }
    try (LockLease next = other.lock("ship").acquire(PATIENCE)) {
      assertThat(next.fencingToken()).isGreaterThan(tokenBefore);
      assertThat(nodes.get(0).execute("EXISTS", lockKey("ship"))).as("node 0 takes no part yet").isEqualTo(0L);
    }
  }

  @Test
  void aWaiter_isWokenByTheRelease_notByPolling() throws Exception {
    Relock holder = client(b -> b);
    Relock waiter = client(b -> b.recheckInterval(Duration.ofSeconds(60)));
    LockLease held = holder.lock("queue").acquire(Duration.ZERO); // 30 s lease: only a wake-up is sooner
    nodes.forEach(n -> n.execute("CONFIG", "RESETSTAT"));
    CompletableFuture<LockLease> waiting = waiter.lock("queue").acquireAsync(Duration.ofSeconds(60));
    await("the waiter is registered on every node", () -> nodes.stream()
        .allMatch(n -> (Long) n.execute("SCARD", lockKey("queue") + ":q") == 1L));
    assertThat(waiter.lock("queue").isLocked()).as("isLocked() with a waiter registered").isTrue();
    held.close();
    try (LockLease lease = waiting.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)) {
      assertThat(lease.fencingToken()).isGreaterThan(held.fencingToken());
    }
    for (RedisServer n : nodes) {
      // The wait, the release, the woken retry, its fence, its own release: 5. A retry woken by the
      // first master's message may still find the others held (their releases are under way): it
      // gives back and is woken again, at most once per master's message.
      assertThat(scriptCalls(n)).as("scripts run on " + n.uri()).isBetween(5L, 9L);
    }
  }

  /**
   * Several clients take turns on one lock with short holds. Each release must wake a waiter even
   * when its retry was still out (refused by the hold that just ended): with the re-checks set to a
   * minute and 30 s leases, a lost wake-up stalls a waiter far past the deadline here. Tokens,
   * recorded inside the critical section, rise with every hold.
   */
  @Test
  void contendedTurns_areWokenEachTime_andTokensRiseWithEveryHold() throws Exception {
    List<Relock> contenders = List.of(client(b -> b.recheckInterval(Duration.ofSeconds(60))),
        client(b -> b.recheckInterval(Duration.ofSeconds(60))), client(b -> b.recheckInterval(Duration.ofSeconds(60))));
    List<Long> tokens = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
    for (int i = 0; i < 6; i++) {
      Relock relock = contenders.get(i % 3);
      threads.add(new Thread(() -> {
        try {
          for (int turn = 0; turn < 10; turn++) {
            try (LockLease lease = relock.lock("hot").acquire(PATIENCE)) {
              synchronized (tokens) {
                tokens.add(lease.fencingToken());
              }
            }
          }
        } catch (Throwable t) {
          failures.add(t);
        }
      }));
    }
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    threads.forEach(Thread::start);
    for (Thread t : threads) {
      t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
    }
    assertThat(threads).as("every thread done within " + PATIENCE).noneMatch(Thread::isAlive);
    assertThat(failures).isEmpty();
    assertThat(tokens).hasSize(60).isSorted().doesNotHaveDuplicates();
  }

  @Test
  void fewerThanAMajorityReachable_failsWithinTheWait_namingTheNodes() {
    Relock relock = client(b -> b);
    relock.lock("down").acquire(Duration.ZERO).close(); // first use: every node gets its marker
    nodes.get(0).kill();
    nodes.get(1).kill();
    assertThatThrownBy(() -> relock.lock("down").acquire(Duration.ofMillis(300)))
        .isInstanceOf(RelockException.class)
        .hasMessageContaining("only 1 of 3 Redlock nodes")
        .hasMessageContaining(nodes.get(0).uri())
        .hasMessageContaining(nodes.get(1).uri());
    assertThat(nodes.get(2).execute("EXISTS", lockKey("down"))).as("the minority grant given back").isEqualTo(0L);
  }

  /**
   * Closing releases every hold; a master that does not answer then (paused past the close's own
   * wait) is released once it answers, not left holding the lock for a whole lease for a client
   * that is gone (the Redlock stress suite's lock left on one master, seed 20261125).
   */
  @Test
  void closingWhileAMasterIsPaused_releasesTheHoldThereOnceItAnswers() {
    Relock relock = client(b -> b); // command timeout 1 s: close waits about 2 s for slow releases
    relock.lock("paused").acquire(Duration.ZERO);
    for (RedisServer n : nodes) {
      assertThat(StoredLock.holder(n, lockKey("paused"))).as(n.uri()).isNotNull();
    }
    nodes.get(0).execute("CLIENT", "PAUSE", "3500", "ALL");
    relock.close();
    assertThat(StoredLock.holder(nodes.get(1), lockKey("paused"))).isNull();
    assertThat(StoredLock.holder(nodes.get(2), lockKey("paused"))).isNull();
    await("the paused master released the hold once it answered",
        () -> StoredLock.holder(nodes.get(0), lockKey("paused")) == null);
  }

  /**
   * A hold on masters 0 and 1; its release frees master 0 while master 1 rejects it unsent, so it
   * is tried again: by the engine, and on master 1 by the quorum in the background. The background
   * retry frees master 1, but its answer comes late (held back by the gate, as an answer on
   * another connection can be). The engine's next attempt must not count master 1 as "not held"
   * before that answer is in: the release freed a majority and is a release, not a loss (the
   * Redlock stress run on Jedis reported such releases lost to another owner).
   */
  @Test
  void aBackgroundRetryThatFreedAMaster_countsForTheRelease_evenIfItsAnswerComesAfterALaterAttempts()
      throws Exception {
    io.relock.internal.RedlockGate gate = io.relock.internal.RedlockGate.connect(uris(), Duration.ofSeconds(10), 1);
    Relock relock = gate.client();
    clients.add(relock);
    relock.lock("warm").acquire(Duration.ZERO).close(); // every master has run every script once
    String key = lockKey("late-answer");
    StoredLock.plant(nodes.get(2), key, "someone-else", 1, Duration.ofMinutes(1));
    LockLease lease = relock.lock("late-answer").acquire(Duration.ZERO, Duration.ofSeconds(30));
    nodes.get(2).execute("DEL", key);
    assertThat(StoredLock.holder(nodes.get(0), key)).isNotNull();
    assertThat(StoredLock.holder(nodes.get(1), key)).isNotNull();

    gate.cutOff();
    CompletableFuture<Void> closing = CompletableFuture.runAsync(lease::close);
    await("the release freed master 0", () -> StoredLock.holder(nodes.get(0), key) == null);
    gate.passOneBackgroundRetry();
    await("a background retry freed master 1 (its answer held back)", gate::holding);
    assertThat(gate.heldAnswer().get(0)).as("the held call's code: freed").isEqualTo(2L);
    // The engine tries the release again. Its next attempt asks master 1 right after master 0, and
    // would have its answer there long before the held one; unless it waits for the call of the
    // same release that master 1 still has out (then master 1 gets no call until it is delivered).
    await("the next attempt asked master 1, or is answered by master 2 without asking it", () -> closing.isDone()
        || gate.laterAttemptAnsweredByLastMaster() && gate.gatedCallsAfterHeld() == 0);
    gate.deliverHeld();

    closing.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS); // no LockLostException: it freed masters 0 and 1
    for (RedisServer n : nodes) {
      assertThat(StoredLock.holder(n, key)).as(n.uri()).isNull();
    }
  }

  @Test
  void aMasterUnreachableWhenTheClientIsBuilt_joinsWhenReachable_andAMajorityUnreachableFailsTheBuild() {
    client(b -> b).lock("late").acquire(Duration.ZERO).close(); // first use marks every master
    masters.proxy(0).cut();
    Relock relock = proxiedClient();
    try (LockLease lease = relock.lock("late").acquire(PATIENCE)) {
      assertThat(StoredLock.read(nodes.get(1), lockKey("late")).token()).isEqualTo(lease.fencingToken());
    }
    masters.proxy(0).restore();
    await("master 0 takes part once it is reachable", () -> {
      try (LockLease lease = relock.lock("late").acquire(PATIENCE)) {
        StoredLock there = StoredLock.read(nodes.get(0), lockKey("late"));
        return there != null && there.token() == lease.fencingToken();
      }
    });
    masters.proxy(1).cut();
    masters.proxy(2).cut();
    try {
      assertThatThrownBy(this::proxiedClient).isInstanceOf(RelockException.class)
          .hasMessageContaining("a majority of the Redlock masters (2 of 3 failed)")
          .hasMessageContaining(masters.proxiedUris()[1]).hasMessageContaining(masters.proxiedUris()[2]);
    } finally {
      masters.proxy(1).restore();
      masters.proxy(2).restore();
    }
  }

  private Relock proxiedClient() {
    Relock c = Relock.builder().redlock(masters.proxiedUris()).commandTimeout(Duration.ofSeconds(1))
        .build(); // a cut proxy resets at once: no need for a short connect timeout
    clients.add(c);
    return c;
  }

  @Test
  void semaphoresAndReadWriteLocks_areRefusedUpFront_andMultiLocksWork() {
    Relock relock = client(b -> b);
    assertThatThrownBy(() -> relock.semaphore("pool", 2)).isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("Redlock");
    assertThatThrownBy(() -> relock.readWriteLock("doc")).isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("Redlock");
    try (LockLease both = relock.multiLock("from", "to").acquire(PATIENCE)) {
      assertThat(both.fencingTokens()).containsOnlyKeys("from", "to");
      for (RedisServer n : nodes) {
        assertThat(StoredLock.read(n, lockKey("to")).token()).isEqualTo(both.fencingTokens().get("to"));
      }
    }
  }

  @Test
  void theWatchdog_renewsOnAMajority_andReportsTheLossWhenAMajorityIsGone() {
    Relock relock = client(b -> b.defaultLease(Duration.ofSeconds(1)).redlockRestartDelay(Duration.ofSeconds(2)));
    DistributedLock lock = relock.lock("renewed");
    LockLease lease = lock.acquire(Duration.ZERO);
    // Kept on every node past two leases: only renewals can have done that.
    long until = System.nanoTime() + Duration.ofSeconds(2).toNanos();
    await("two leases passed with the hold kept on every node", () -> {
      for (RedisServer n : nodes) {
        assertThat(StoredLock.holder(n, lockKey("renewed"))).as(n.uri()).isNotNull();
      }
      return System.nanoTime() - until > 0;
    });
    assertThat(lease.isValid()).isTrue();
    nodes.get(0).execute("DEL", lockKey("renewed"));
    nodes.get(1).execute("DEL", lockKey("renewed"));
    await("the loss is reported", () -> !lease.isValid());
    assertThatThrownBy(lease::close).isInstanceOf(io.relock.LockLostException.class);
  }

  /**
   * One node marked and the others not, every node answering: a first use whose marking was cut
   * short (a marker call that timed out unsent) looks like a majority that lost its data, and too
   * few markers are there to cover a fence. The unmarked nodes wait out the delayed restart, then
   * take part: the set is not kept out for good.
   */
  @Test
  void aFirstUseWhoseMarkingWasCutShort_isUsableAfterTheDelayedRestart_notKeptOutForGood() {
    long now = System.currentTimeMillis();
    nodes.get(0).execute("HSET", MARKER, "since", Long.toString(now), "until", Long.toString(now));
    nodes.get(0).execute("SET", FENCE, Long.toString(now * 1000));
    Relock relock = client(b -> b.defaultLease(Duration.ofSeconds(1)).redlockRestartDelay(Duration.ofSeconds(2)));
    try (LockLease lease = relock.lock("half-marked").acquire(PATIENCE)) {
      assertThat(lease.fencingToken()).isGreaterThan(now * 1000);
      for (RedisServer n : nodes) {
        assertThat(n.execute("EXISTS", MARKER)).as("marker of " + n.uri()).isEqualTo(1L);
      }
    }
  }

  @Test
  void aFixedLeaseLongerThanTheRestartDelay_isRefusedUpFront() {
    Relock relock = client(b -> b.defaultLease(Duration.ofSeconds(5)).redlockRestartDelay(Duration.ofSeconds(10)));
    assertThatThrownBy(() -> relock.lock("long").acquire(Duration.ZERO, Duration.ofSeconds(11)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PT11S").hasMessageContaining("restart delay PT10S");
    Optional<LockLease> fits = relock.lock("long").tryAcquire(Duration.ZERO);
    assertThat(fits).isPresent();
    fits.get().close();
  }

  private static long scriptCalls(RedisServer n) {
    return commandCalls(n, "evalsha") + commandCalls(n, "eval");
  }

  private static long commandCalls(RedisServer n, String command) {
    String stats = (String) n.execute("INFO", "commandstats");
    for (String line : stats.split("\r?\n")) {
      if (line.startsWith("cmdstat_" + command + ":calls=")) {
        String v = line.substring(("cmdstat_" + command + ":calls=").length());
        return Long.parseLong(v.substring(0, v.indexOf(',')));
      }
    }
    return 0;
  }

  /**
   * A Redlock release never passes the lock (no code 3), so a follower it names is neither handed
   * the lock nor queued: it asks for itself once the release has answered, and each waiter still
   * gets the lock in turn.
   */
  @Test
  void followersOnRedlock_askForThemselvesAfterTheRelease_andEveryWaiterGetsItsTurn() throws Exception {
    Relock relock = client(b -> b.recheckInterval(Duration.ofSeconds(60)));
    LockLease held = relock.lock("followers").acquire(Duration.ZERO);
    List<CompletableFuture<LockLease>> waiters = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      waiters.add(relock.lock("followers").acquireAsync(PATIENCE));
    }
    await("four waiters in the client",
        () -> io.relock.internal.TestAccess.localWaiters(relock, lockKey("followers"), PATIENCE) == 4);
    assertThat(nodes).as("nodes with a queue").noneMatch(n -> (Long) n.execute("EXISTS", lockKey("followers") + ":q") == 1L);
    for (CompletableFuture<LockLease> next : waiters) {
      held.close();
      LockLease got = next.get(5, TimeUnit.SECONDS);
      assertThat(got.fencingToken()).isGreaterThan(held.fencingToken());
      held = got;
    }
    held.close();
  }
}

package io.relock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.DistributedSemaphore;
import io.relock.LockLease;
import io.relock.LockLostException;
import io.relock.LockTimeoutException;
import io.relock.Relock;
import io.relock.RelockException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A semaphore's permits: a bound never exceeded, handed over in order, returned when holders die. */
public abstract class SemaphoreContract extends RelockContract {

  @Test
  void permits_areNeverExceeded_andEachLeaseHasItsOwnLargerToken() {
    DistributedSemaphore sem = client().semaphore("pool", 3);
    List<LockLease> held = new ArrayList<>();
    long last = 0;
    for (int i = 0; i < 3; i++) {
      LockLease lease = sem.acquire(Duration.ZERO);
      assertThat(lease.fencingToken()).isGreaterThan(last);
      last = lease.fencingToken();
      held.add(lease);
    }
    assertThat(sem.availablePermits()).isZero();
    assertThat(client().semaphore("pool", 3).tryAcquire(Duration.ZERO)).as("a fourth, from another client").isEmpty();
    held.remove(0).close();
    assertThat(sem.availablePermits()).isEqualTo(1);
    try (LockLease again = sem.acquire(Duration.ZERO)) {
      assertThat(again.fencingToken()).isGreaterThan(last);
      assertThat(sem.availablePermits()).isZero();
    }
    held.forEach(LockLease::close);
    assertThat(sem.availablePermits()).isEqualTo(3);
    assertNoWaiters("pool");
  }

  /** Every key a semaphore leaves behind expires, also when its holders lost their leases. */
  @Test
  void everyKeyLeftBehind_expires_evenWhenHoldersLostTheirLeases() {
    LockLease late = client().semaphore("job-42", 2).acquire(Duration.ZERO, Duration.ofMillis(300));
    awaitNoPermitHeld("job-42");
    assertThatThrownBy(late::close).isInstanceOf(LockLostException.class);
    assertEveryKeyExpires("job-42");
    client().semaphore("job-43", 2).acquire(Duration.ZERO, Duration.ofMillis(300)); // its holder never comes back
    awaitNoPermitHeld("job-43");
    assertEveryKeyExpires("job-43");
  }

  /**
   * What Redis runs for an uncontended permit taken and given back, script commands included: at
   * most fifteen (but for the marker's refresh, once a second). The release, with nobody queued,
   * only drops the hold (the script call, a look at the queue and the marker, the hold and its set
   * entry); the acquisition, with a permit free and nobody queued, reads the marker and the
   * holders, issues a token and writes the hold.
   */
  @Test
  void uncontendedAcquireAndRelease_costRedisAtMostFifteenCommands() {
    DistributedSemaphore sem = client().semaphore("lean", 3);
    sem.acquire(Duration.ZERO).close(); // the first use of a name also creates its marker and fence
    redis("CONFIG", "RESETSTAT");
    int rounds = 50;
    long start = System.nanoTime();
    for (int i = 0; i < rounds; i++) {
      sem.acquire(Duration.ZERO).close();
    }
    // Once a second the marker is refreshed: that acquisition and release take the general code.
    long refreshes = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start) + 1;
    var seen = commandsSinceReset();
    long commands = seen.values().stream().mapToLong(Long::longValue).sum();
    assertThat(commands).as("commands for %d permits taken and given back: %s", rounds, seen)
        .isLessThanOrEqualTo(15L * rounds + 12L * refreshes);
    assertThat(scriptCalls()).as("round trips").isEqualTo(2L * rounds);
  }

  /**
   * What a call costs Redis does not grow with the holders: with 40 permits held, a try on the full
   * semaphore runs as few commands as with one (the holder index is counted, not read through).
   */
  @Test
  void aTryOnAFullSemaphore_costsTheSameCommands_howeverManyHold() {
    DistributedSemaphore sem = client().semaphore("wide", 40);
    List<LockLease> held = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      held.add(sem.acquire(Duration.ZERO));
    }
    DistributedSemaphore other = client().semaphore("wide", 40);
    assertThat(other.tryAcquire(Duration.ZERO)).isEmpty(); // its marker checked once, as every client's first call
    redis("CONFIG", "RESETSTAT");
    int tries = 20;
    for (int i = 0; i < tries; i++) {
      assertThat(other.tryAcquire(Duration.ZERO)).isEmpty();
    }
    var seen = commandsSinceReset();
    long commands = seen.values().stream().mapToLong(Long::longValue).sum();
    assertThat(commands).as("commands for %d tries on 40 held permits: %s", tries, seen).isLessThanOrEqualTo(8L * tries);
    held.forEach(LockLease::close);
    assertNoWaiters("wide");
  }

  /**
   * The holder index scores a hold with the end of the lease it was granted, and renewals move the
   * hold's end past that score. A hold whose score the clock has passed is looked up: while its key
   * lives it keeps its permit (and is scored again with the key's end); once the key is gone, its
   * permit is free.
   */
  @Test
  void aHoldPastItsScore_keepsItsPermitWhileItsKeyLives_andFreesItOnceGone() {
    LockLease held = client().semaphore("rescored", 1).acquire(Duration.ZERO);
    String index = lockKey("rescored") + ":held";
    String owner = (String) ((List<?>) redis("ZRANGE", index, "0", "0")).get(0);
    redis("ZADD", index, "1", owner); // as for a hold granted long ago and renewed since
    assertThat(client().semaphore("rescored", 1).tryAcquire(Duration.ZERO)).as("a second holder").isEmpty();
    assertThat(Double.parseDouble(String.valueOf(redis("ZSCORE", index, owner))))
        .as("scored again with its key's end").isGreaterThan(1e12);
    endSharedHold(lockKey("rescored") + ":h:" + owner); // as when its lease ran out
    try (LockLease next = client().semaphore("rescored", 1).tryAcquire(Duration.ZERO).orElseThrow()) {
      assertThat(redis("ZSCORE", index, owner)).as("the ended hold left the index").isNull();
      assertThat(next.isValid()).isTrue();
    }
    assertThatThrownBy(held::close).isInstanceOf(LockLostException.class);
    assertNoWaiters("rescored");
  }

  /**
   * A permit's hold ran out in Redis with a waiter queued, while its holder was silent: the
   * holder's late release finds it lost and hands the permit on at once (the waiter's rechecks are
   * a minute apart), also when a count of the permits has already dropped it from the holder index.
   */
  @Test
  void aLateReleaseOfALostPermit_handsItToTheWaiterItKeptOut() throws Exception {
    LockLease lost = client().semaphore("late", 1).acquire(Duration.ZERO, Duration.ofSeconds(30));
    CompletableFuture<LockLease> waiter = client(b -> b.recheckInterval(Duration.ofMinutes(1))).semaphore("late", 1)
        .acquireAsync(PATIENCE);
    await("queued", () -> redis("ZCARD", lockKey("late") + ":q").equals(1L));
    String hold = (String) ((List<?>) redis("KEYS", lockKey("late") + ":h:*")).get(0);
    endSharedHold(hold); // as when its lease ran out
    // Counting the permits finds the hold gone and drops it from the holder index, serving nobody.
    assertThat(client().semaphore("late", 1).availablePermits()).isEqualTo(1);
    assertThatThrownBy(lost::close).isInstanceOf(LockLostException.class);
    LockLease next = waiter.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    String owner = hold.substring((lockKey("late") + ":h:").length());
    assertThat(redis("ZSCORE", lockKey("late") + ":held", owner)).as("the lost holder left the index").isNull();
    next.close();
    assertNoWaiters("late");
  }

  /**
   * A fence retention shorter than a permit's lease: the marker still outlives the permit, so the
   * name can be neither declared with other permits nor taken as another kind beside it.
   */
  @Test
  void theKindMarker_outlivesEveryPermit_evenWithAShortFenceRetention() {
    Relock shortRetention = client(b -> b.fenceRetention(Duration.ofMillis(800)));
    try (LockLease held = shortRetention.semaphore("pool", 1).acquire(Duration.ZERO, Duration.ofSeconds(5))) {
      String hold = (String) ((List<?>) redis("KEYS", lockKey("pool") + ":h:*")).get(0);
      assertThat((Long) redis("PTTL", lockKey("pool"))).as("marker against permit")
          .isGreaterThanOrEqualTo((Long) redis("PTTL", hold));
      await("the retention passed", () -> (Long) redis("PTTL", hold) < 3_800);
      assertThatThrownBy(() -> client().semaphore("pool", 3).tryAcquire(Duration.ZERO))
          .isInstanceOf(RelockException.class).hasMessageContaining("1 permits");
      assertThatThrownBy(() -> client().lock("pool").tryAcquire(Duration.ZERO))
          .isInstanceOf(RelockException.class).hasMessageContaining("semaphore");
      assertThat(client().semaphore("pool", 1).tryAcquire(Duration.ZERO)).as("its one permit is held").isEmpty();
      assertThat(held.isValid()).isTrue();
    }
  }

  /**
   * A busy name's marker is rewritten about once a second, not at every call: once it has run a
   * second (a tenth of the retention, at most 1 s) short of the fence retention, the next call
   * gives it the whole retention again, not just that second back (which would make every later
   * call rewrite it, and its holder index with it).
   */
  @Test
  void theKindMarker_isRefreshedToTheWholeRetention_soThatABusyNameRewritesItRarely() {
    Relock client = client(b -> b.fenceRetention(Duration.ofSeconds(60)));
    DistributedSemaphore sem = client.semaphore("busy", 2);
    sem.acquire(Duration.ZERO).close();
    await("a second of the retention passed", () -> (Long) redis("PTTL", lockKey("busy")) < 58_900);
    sem.acquire(Duration.ZERO).close();
    assertThat((Long) redis("PTTL", lockKey("busy"))).as("the marker, refreshed").isGreaterThan(59_500L);
  }

  /**
   * The wait queue never outlives the name's marker, also with a fence retention shorter than a
   * queue entry: else, once the marker ended, the queue left by a waiter that died would make the
   * name read as an exclusive lock's waiters, and every acquisition of it fail.
   */
  @Test
  void theWaitQueue_neverOutlivesTheKindMarker() throws Exception {
    Relock shortRetention = client(b -> b.fenceRetention(Duration.ofMillis(800)));
    CompletableFuture<LockLease> waiter;
    try (LockLease held = shortRetention.semaphore("queued", 1).acquire(Duration.ZERO, Duration.ofSeconds(5))) {
      waiter = shortRetention.semaphore("queued", 1).acquireAsync(PATIENCE);
      await("queued", () -> redis("ZCARD", lockKey("queued") + ":q").equals(1L));
      for (String key : List.of(lockKey("queued") + ":q", lockKey("queued") + ":qi")) {
        long queue = (Long) redis("PTTL", key);
        assertThat(queue).as(key + " against the marker").isLessThanOrEqualTo((Long) redis("PTTL", lockKey("queued")) + 100);
      }
    }
    waiter.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS).close();
  }

  private void awaitNoPermitHeld(String name) {
    await("no permit of " + name + " left in Redis", () -> ((List<?>) redis("KEYS", lockKey(name) + ":h:*")).isEmpty());
  }

  private void assertEveryKeyExpires(String name) {
    for (Object key : (List<?>) redis("KEYS", lockKey(name) + "*")) {
      assertThat(redis("PTTL", (String) key)).as("expiry of " + key).isNotEqualTo(-1L);
    }
  }

  @Test
  void waiters_areHandedPermitsInArrivalOrder_withoutPolling() throws Exception {
    DistributedSemaphore sem = client().semaphore("turns", 1);
    LockLease holder = sem.acquire(Duration.ZERO);
    List<String> order = new CopyOnWriteArrayList<>();
    List<CompletableFuture<LockLease>> waiting = new ArrayList<>();
    // Long rechecks: only a release's hand-over can bring these permits in time.
    List<Relock> waiters = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      waiters.add(client(b -> b.recheckInterval(Duration.ofMinutes(1))));
    }
    client().semaphore("warm-up", 1).acquire(Duration.ZERO).close(); // scripts loaded: no NOSCRIPT retry counted
    redis("CONFIG", "RESETSTAT");
    for (int i = 0; i < 3; i++) {
      String who = "client-" + i;
      CompletableFuture<LockLease> f = waiters.get(i).semaphore("turns", 1).acquireAsync(PATIENCE);
      waiting.add(f.thenApply(l -> {
        order.add(who);
        return l;
      }));
      int queued = i + 1;
      await(queued + " waiting", () -> redis("ZCARD", lockKey("turns") + ":q").equals((long) queued));
    }
    holder.close();
    for (CompletableFuture<LockLease> f : waiting) {
      f.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS).close();
    }
    assertThat(order).containsExactly("client-0", "client-1", "client-2");
    // Each waiter's one call to queue, then each release (the holder's and the three waiters'),
    // which hands the permit on: 7 calls for 3 contended acquisitions, and no waiter asked again.
    assertThat(scriptCalls()).as("script calls for 3 contended acquisitions")
        .isLessThanOrEqualTo(3 * 3);
  }

  @Test
  void aReleaseWithinAClient_passesThePermitToItsWaiter_withoutANotification() throws Exception {
    // Rechecks 3 s apart: a handed-over permit would first last only the 6 s claim time.
    Relock relock = client(b -> b.recheckInterval(Duration.ofSeconds(3)));
    DistributedSemaphore sem = relock.semaphore("passed", 1);
    LockLease first = sem.acquire(Duration.ZERO);
    CompletableFuture<LockLease> second = sem.acquireAsync(PATIENCE);
    await("queued", () -> redis("ZCARD", lockKey("passed") + ":q").equals(1L));
    redis("CONFIG", "RESETSTAT");
    first.close();
    LockLease got = second.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(got.fencingToken()).isGreaterThan(first.fencingToken());
    assertThat(scriptCalls()).as("one release call that also passes the permit on").isEqualTo(1);
    assertThat(commandCalls("publish")).as("no notification needed").isZero();
    List<?> holds = (List<?>) redis("KEYS", lockKey("passed") + ":h:*");
    assertThat(holds).as("one hold, the waiter's").hasSize(1);
    assertThat((Long) redis("PTTL", (String) holds.get(0))).as("a whole lease, not a claim to confirm")
        .isGreaterThan(TimeUnit.SECONDS.toMillis(10));
    got.close();
    assertThat(sem.availablePermits()).isEqualTo(1);
    assertNoWaiters("passed");
  }

  @Test
  void passingWithinABusyClient_isBounded_soAnotherClientsWaiterGetsAPermit() throws Exception {
    long taken = takenByABusyClientWhileAnotherWaits((client, wait) -> client.semaphore("hot-pool", 2).acquire(wait));
    // The bound, and what the two counts' reads let slip in around it.
    assertThat(taken).as("busy client's acquisitions while the other waited")
        .isLessThanOrEqualTo(2L * (io.relock.internal.TestAccess.passesAhead() + 2));
  }

  /**
   * A client holding several permits may release them at once: the releases in flight together
   * count the passes ahead sent before them, so another client's waiter, first in line, gets the
   * permit once the bound is reached (found by review: each release had read the same count).
   * Here the count is brought to two short of the bound, then three releases are held in Redis by a
   * pause until all three are sent.
   */
  @Test
  void passesAhead_stayBounded_withSeveralReleasesInFlightAtOnce() throws Exception {
    int bound = io.relock.internal.TestAccess.passesAhead();
    Relock busy = client(b -> b.recheckInterval(Duration.ofMinutes(1)));
    DistributedSemaphore sem = busy.semaphore("bounded", 3);
    java.util.ArrayDeque<LockLease> held = new java.util.ArrayDeque<>();
    for (int i = 0; i < 3; i++) {
      held.add(sem.acquire(Duration.ZERO));
    }
    CompletableFuture<LockLease> theirs = client(b -> b.recheckInterval(Duration.ofMinutes(1)))
        .semaphore("bounded", 3).acquireAsync(PATIENCE);
    await("their waiter queued", () -> redis("ZCARD", lockKey("bounded") + ":q").equals(1L));
    List<CompletableFuture<LockLease>> ours = new ArrayList<>();
    for (int i = 0; i < bound + 4; i++) {
      ours.add(sem.acquireAsync(PATIENCE));
    }
    await("our waiters queued behind theirs",
        () -> redis("ZCARD", lockKey("bounded") + ":q").equals((long) bound + 5));
    for (int i = 0; i < bound - 2; i++) {
      held.poll().close(); // passed ahead of theirs, to our longest-waiting waiter
      held.add(ours.get(i).get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS));
    }
    assertThat(theirs).isNotDone();
    String state = lockKey("bounded") + "#s3";
    List<Thread> closers = new ArrayList<>();
    pauseWrites(Duration.ofSeconds(10));
    try {
      for (LockLease lease : held) {
        Thread t = new Thread(lease::close);
        t.start();
        closers.add(t);
      }
      await("three releases in flight",
          () -> io.relock.internal.TestAccess.releasesInFlight(busy, state, PATIENCE) == 3);
    } finally {
      unpause();
    }
    for (Thread t : closers) {
      t.join(PATIENCE.toMillis());
    }
    LockLease got = theirs.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(ours.stream().filter(CompletableFuture::isDone).count()).as("our waiters passed a permit ahead of theirs")
        .isEqualTo(bound);
    got.close();
    for (CompletableFuture<LockLease> f : ours) {
      if (!f.cancel(true)) {
        f.join().close();
      }
    }
    await("nothing left queued", () -> redis("EXISTS", lockKey("bounded") + ":q").equals(0L)
        && redis("EXISTS", lockKey("bounded") + ":qi").equals(0L));
    assertThat(sem.availablePermits()).isEqualTo(3);
  }

  @Test
  void aHolderThatStopsRenewing_givesItsPermitBackAtItsLeaseEnd_andIsTold() throws Exception {
    DistributedSemaphore sem = client().semaphore("crashy", 1);
    AtomicInteger lost = new AtomicInteger();
    LockLease abandoned = sem.acquire(Duration.ZERO, Duration.ofMillis(400));
    abandoned.onLost(lost::incrementAndGet);
    try (LockLease next = client().semaphore("crashy", 1).acquire(PATIENCE)) {
      assertThat(next.isValid()).isTrue();
    }
    await("the first holder is told", () -> lost.get() == 1);
    assertThatThrownBy(abandoned::close).isInstanceOf(LockLostException.class);
  }

  @Test
  void theWatchdog_keepsAPermitPastItsLease() {
    Duration lease = Duration.ofMillis(600);
    DistributedSemaphore sem = client(b -> b.defaultLease(lease)).semaphore("kept", 1);
    try (LockLease held = sem.acquire(Duration.ZERO)) {
      long until = System.nanoTime() + lease.multipliedBy(3).toNanos();
      await("three leases passed with the permit held", () -> {
        assertThat(held.isValid()).isTrue();
        assertThat(sem.availablePermits()).isZero();
        return System.nanoTime() - until > 0;
      });
    }
  }

  @Test
  void declaringOtherPermits_failsNamingBothCounts_andChangesNothing() {
    try (LockLease held = client().semaphore("sized", 3).acquire(Duration.ZERO)) {
      assertThatThrownBy(() -> client().semaphore("sized", 5).acquire(Duration.ZERO))
          .isInstanceOf(RelockException.class).hasMessageContaining("'sized'")
          .hasMessageContaining("semaphore of 3 permits").hasMessageContaining("5 permits");
      assertThatThrownBy(() -> client().semaphore("sized", 5).availablePermits())
          .isInstanceOf(RelockException.class).hasMessageContaining("3 permits");
      assertThat(client().semaphore("sized", 3).availablePermits()).isEqualTo(2);
    }
  }

  @Test
  void oneName_isOneKind() {
    Relock relock = client();
    try (LockLease exclusive = relock.lock("taken").acquire(Duration.ZERO)) {
      assertThatThrownBy(() -> relock.semaphore("taken", 2).acquire(Duration.ZERO))
          .isInstanceOf(RelockException.class).hasMessageContaining("exclusive lock");
    }
    try (LockLease permit = relock.semaphore("counted", 2).acquire(Duration.ZERO)) {
      assertThatThrownBy(() -> relock.lock("counted").acquire(Duration.ZERO))
          .isInstanceOf(RelockException.class).hasMessageContaining("semaphore of 2 permits");
      assertThatThrownBy(() -> relock.lock("counted").forceUnlock())
          .isInstanceOf(RelockException.class).hasMessageContaining("semaphore of 2 permits");
      assertThat(relock.semaphore("counted", 2).availablePermits()).as("nothing freed").isEqualTo(1);
      assertThatThrownBy(() -> relock.readWriteLock("counted").readLock().acquire(Duration.ZERO))
          .isInstanceOf(RelockException.class).hasMessageContaining("semaphore of 2 permits");
      assertThat(permit.isValid()).isTrue();
    }
  }

  @Test
  void oneClientDeclaringOtherPermits_isRefusedToo() {
    Relock relock = client();
    try (LockLease held = relock.semaphore("twice", 2).acquire(Duration.ZERO)) {
      assertThatThrownBy(() -> relock.semaphore("twice", 5).acquire(Duration.ZERO))
          .isInstanceOf(RelockException.class).hasMessageContaining("semaphore of 2 permits");
      assertThat(held.isValid()).isTrue();
    }
  }

  @Test
  void theKindMarker_outlivesTheFenceRetention_whileAPermitIsRenewed() {
    Relock relock = client(b -> b.defaultLease(Duration.ofMillis(600)).fenceRetention(Duration.ofMillis(800)));
    try (LockLease held = relock.semaphore("marked", 1).acquire(Duration.ZERO)) {
      long until = System.nanoTime() + Duration.ofMillis(2000).toNanos();
      await("twice the retention passed with the permit held", () -> System.nanoTime() - until > 0);
      assertThatThrownBy(() -> client().semaphore("marked", 3).acquire(Duration.ZERO))
          .as("the marker still says 1 permit").isInstanceOf(RelockException.class).hasMessageContaining("1 permits");
      assertThat(held.isValid()).isTrue();
    }
  }

  @Test
  void anExclusiveLocksWaiters_keepTheNameFromBecomingASemaphore() throws Exception {
    Relock relock = client(b -> b.recheckInterval(Duration.ofMinutes(1)));
    LockLease gone = relock.lock("queued").acquire(Duration.ZERO, Duration.ofMinutes(1));
    CompletableFuture<LockLease> waiter = client(b -> b.recheckInterval(Duration.ofMinutes(1))).lock("queued")
        .acquireAsync(PATIENCE);
    await("the waiter is queued", () -> redis("ZCARD", lockKey("queued") + ":q").equals(1L));
    redis("DEL", lockKey("queued")); // the holder's lease ends, long before the waiter's next look
    assertThatThrownBy(() -> relock.semaphore("queued", 2).acquire(Duration.ZERO))
        .isInstanceOf(RelockException.class).hasMessageContaining("waiters of an exclusive lock");
    assertThat(redis("ZCARD", lockKey("queued") + ":q")).as("the waiter still queued").isEqualTo(1L);
    waiter.cancel(true);
    assertThatThrownBy(gone::close).isInstanceOf(LockLostException.class);
  }

  @Test
  void anExclusiveHoldersLateRelease_ofANameNowASemaphore_isReportedLost_andLeavesTheMarkerAsItWas() {
    Relock relock = client();
    LockLease old = relock.lock("reused").acquire(Duration.ZERO, Duration.ofMillis(200));
    await("the old hold expired", () -> redis("EXISTS", lockKey("reused")).equals(0L));
    try (LockLease permit = relock.semaphore("reused", 2).acquire(Duration.ZERO)) {
      assertThatThrownBy(old::close).isInstanceOf(LockLostException.class);
      assertThat(redis("GET", lockKey("reused"))).isEqualTo("semaphore 2");
      assertThat((Long) redis("PTTL", lockKey("reused"))).as("the marker still expires").isPositive();
      assertThat(permit.isValid()).isTrue();
    }
  }

  @Test
  void cancelledAndInterruptedWaiters_leaveNothingInRedis() throws Exception {
    DistributedSemaphore sem = client().semaphore("quiet", 1);
    LockLease holder = sem.acquire(Duration.ZERO);
    CompletableFuture<LockLease> cancelled = client().semaphore("quiet", 1).acquireAsync(PATIENCE);
    await("queued", () -> redis("ZCARD", lockKey("quiet") + ":q").equals(1L));
    cancelled.cancel(true);
    await("the cancelled waiter left the queue", () -> redis("ZCARD", lockKey("quiet") + ":q").equals(0L));
    Thread.currentThread().interrupt();
    assertThatThrownBy(() -> sem.acquire(PATIENCE)).isInstanceOf(RelockException.class);
    assertThat(Thread.interrupted()).as("interrupt flag kept").isTrue();
    assertThatThrownBy(() -> sem.acquire(Duration.ofMillis(50))).isInstanceOf(LockTimeoutException.class);
    holder.close();
    assertThat(sem.availablePermits()).isEqualTo(1);
    assertThat(redis("ZCARD", lockKey("quiet") + ":held")).isEqualTo(0L);
    assertNoWaiters("quiet");
  }

  @Test
  void badArguments_failFastNamingTheValue() {
    Relock relock = client();
    assertThatThrownBy(() -> relock.semaphore("s", 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0");
    assertThatThrownBy(() -> relock.semaphore(" ", 2)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> relock.semaphore("s", 2).acquire(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
    assertThat(redis("EXISTS", lockKey("s"))).isEqualTo(0L);
  }
}

package io.relock.contract;

import static io.relock.contract.RelockContract.PATIENCE;
import static io.relock.contract.RelockContract.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.relock.LockLease;
import io.relock.Relock;
import io.relock.RelockListener;
import io.relock.internal.Slots;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;
import io.relock.spi.RedisTarget;
import io.relock.testkit.RedisClusterGroup;
import io.relock.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A Redis Cluster of three primaries, each with a replica: every script keeps to one slot,
 * renewals are batched per slot, grants travel by sharded pub/sub (Redis 7+), and a slot
 * migration or a primary's failover loses neither a hold nor a waiter.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class ClusterContract {
  private RedisClusterGroup cluster;
  private final List<Relock> clients = new ArrayList<>();

  /** Connects this module's driver to a Cluster target. */
  protected abstract RedisDriver connectDriver(RedisTarget target, DriverSettings settings);

  @BeforeAll
  void startCluster() {
    cluster = RedisClusterGroup.builder().replicasPerPrimary(1).nodeTimeout(Duration.ofSeconds(1)).start();
  }

  @AfterAll
  void stopCluster() {
    cluster.close();
  }

  @BeforeEach
  void healthyAndEmpty() {
    cluster.awaitHealthy(PATIENCE);
    cluster.flushAll();
    for (RedisServer p : cluster.primaries()) {
      p.execute("CONFIG", "RESETSTAT");
    }
  }

  @AfterEach
  void closeClients() {
    clients.forEach(Relock::close);
    clients.clear();
    if (ownCluster != null) {
      ownCluster.close();
      ownCluster = null;
    }
  }

  /** A cluster a test started for itself, closed after its clients. */
  private RedisClusterGroup ownCluster;

  private Relock client(UnaryOperator<Relock.Builder> custom) {
    return client(cluster, custom);
  }

  private Relock client(RedisClusterGroup of, UnaryOperator<Relock.Builder> custom) {
    Relock c = custom.apply(Relock.builder()
        .driver(connectDriver(RedisTarget.cluster(of.seedUris()), RelockContract.DRIVER_SETTINGS))).build();
    clients.add(c);
    return c;
  }

  private static String lockKey(String name) {
    return "relock:{" + name + "}";
  }

  /** Calls of a command on one node since the last CONFIG RESETSTAT, scripts' inner calls included. */
  private static long calls(RedisServer node, String command) {
    for (String line : String.valueOf(node.execute("INFO", "commandstats")).split("\r?\n")) {
      if (line.startsWith("cmdstat_" + command + ":calls=")) {
        String n = line.substring(("cmdstat_" + command + ":calls=").length());
        return Long.parseLong(n.substring(0, n.indexOf(',')));
      }
    }
    return 0;
  }

  /** Subscribers of a lock's sharded grant channel on {@code node}. */
  private static long shardSubscribers(RedisServer node, String name) {
    List<?> reply = (List<?>) node.execute("PUBSUB", "SHARDNUMSUB", lockKey(name) + ":n");
    return (Long) reply.get(1);
  }

  @Test
  void forceUnlock_isReportedToTheHolderAtOnce_evenWhereGrantsTravelOnShardedChannels() {
    Assumptions.assumeTrue(shardedPubSub(), "Redis before 7 has no sharded channels, which this test is about");
    ForcedUnlocks.holderIsToldAtOnce(client(b -> b.defaultLease(ForcedUnlocks.LONG_LEASE)), client(b -> b), "forced",
        lock -> lock.acquire(Duration.ZERO), RelockContract::await);
  }

  /**
   * Leader election on a cluster: a yield hands the leadership over by the queue on the key's
   * primary, a forced unlock revokes at once (both leases last ten minutes), and terms increase.
   */
  @Test
  void leaderElection_yieldHandsOver_andAForcedUnlockRevokesAtOnce_withGreaterTerms() throws Exception {
    LeaderRecorder first = new LeaderRecorder();
    LeaderRecorder second = new LeaderRecorder();
    io.relock.LeaderCandidate a = client(b -> b.defaultLease(ForcedUnlocks.LONG_LEASE)).leader("election");
    a.addListener(first);
    a.start();
    io.relock.Leadership old = a.awaitLeadership(PATIENCE).orElseThrow();
    io.relock.LeaderCandidate b = client(x -> x.defaultLease(ForcedUnlocks.LONG_LEASE)).leader("election");
    b.addListener(second);
    b.start();
    RedisServer owner = cluster.primaryFor(lockKey("election"));
    await("the other candidate is queued", () -> owner.execute("ZCARD", lockKey("election") + ":q").equals(1L));

    assertThat(a.yieldLeadership()).isTrue();
    io.relock.Leadership next = b.awaitLeadership(PATIENCE).orElseThrow();
    assertThat(next.term()).isGreaterThan(old.term());
    await("the yielder is queued again", () -> owner.execute("ZCARD", lockKey("election") + ":q").equals(1L));

    assertThat(client(x -> x).lock("election").forceUnlock()).isTrue();
    await("the leader is revoked", () -> second.revocations() == 1);
    io.relock.Leadership after = a.awaitLeadership(PATIENCE).orElseThrow();
    assertThat(after.term()).isGreaterThan(next.term());
    await("both listeners heard it all", () -> first.elections() == 2 && second.revocations() == 1);
    assertThat(first.malformed()).isNull();
    assertThat(second.malformed()).isNull();
    a.close();
    b.close();
  }

  @Test
  void aClientBuiltFromSeedUris_findsTheRestOfTheCluster() {
    String[] seed = {cluster.seedUris().get(0)};
    try (Relock relock = Relock.builder().cluster(seed).build()) {
      for (int i = 0; i < 12; i++) {
        try (LockLease lease = relock.lock("seeded-" + i).acquire(PATIENCE)) {
          assertThat(lease.isValid()).isTrue();
        }
      }
    }
    long scripts = cluster.primaries().stream().filter(p -> calls(p, "evalsha") > 0).count();
    assertThat(scripts).as("primaries that ran relock's scripts, from one seed").isEqualTo(3);
  }

  @Test
  void locksOnEverySlot_areRenewedPastTheirLease_inBatchesThatKeepToOneSlot() {
    Duration lease = Duration.ofMillis(1500);
    Relock relock = client(b -> b.defaultLease(lease));
    List<LockLease> held = new ArrayList<>();
    Set<RedisServer> owners = new HashSet<>();
    for (int i = 0; i < 40; i++) {
      String name = "spread-" + i;
      held.add(relock.lock(name).acquire(PATIENCE));
      owners.add(cluster.primaryFor(lockKey(name)));
    }
    assertThat(owners).as("the names cover every primary").hasSize(3);
    long start = System.nanoTime();
    await("three leases' time has passed with every lease still valid", () -> {
      assertThat(held).allMatch(LockLease::isValid);
      return System.nanoTime() - start > lease.multipliedBy(3).toNanos();
    });
    held.forEach(LockLease::close); // throws LockLostException for any lease that was not renewed
    long renewCalls = cluster.primaries().stream().mapToLong(p -> calls(p, "evalsha")).sum();
    assertThat(renewCalls).as("script calls: 40 acquisitions, 40 releases and per-slot renewals").isGreaterThan(80);
  }

  @Test
  void everyKind_underNamesAndPrefixesMadeOfKeySeparators_isRenewedPerSlotAndReleased() {
    OddNames.holdAcrossRenewals(prefix -> client(b -> b.keyPrefix(prefix).defaultLease(OddNames.LEASE)), true);
  }

  @Test
  void extendAndCloseAfter_setTheTimeToLiveOnTheNodeOfEachKindsSlot() {
    Relock relock = client(b -> b);
    List<io.relock.LockLease> leases = List.of(
        relock.lock("ttl-lock").acquire(Duration.ZERO, Duration.ofSeconds(10)),
        relock.semaphore("ttl-sem", 2).acquire(Duration.ZERO, Duration.ofSeconds(10)),
        relock.readWriteLock("ttl-rw").readLock().acquire(Duration.ZERO, Duration.ofSeconds(10)),
        relock.multiLock("ttl-a", "ttl-b").acquire(Duration.ZERO, Duration.ofSeconds(10)));
    for (io.relock.LockLease l : leases) {
      l.extend(Duration.ofMinutes(1));
    }
    assertThat((Long) cluster.primaryFor(lockKey("ttl-lock")).execute("PTTL", lockKey("ttl-lock"))).isGreaterThan(30_000);
    assertThat((Long) cluster.primaryFor(lockKey("ttl-b")).execute("PTTL", lockKey("ttl-b"))).isGreaterThan(30_000);
    for (String shared : List.of("ttl-sem", "ttl-rw")) {
      RedisServer node = cluster.primaryFor(lockKey(shared));
      List<?> holds = (List<?>) node.execute("KEYS", lockKey(shared) + ":h:*");
      assertThat(holds).as(shared).hasSize(1);
      assertThat((Long) node.execute("PTTL", String.valueOf(holds.get(0)))).as(shared).isGreaterThan(30_000);
    }
    for (io.relock.LockLease l : leases) {
      l.closeAfter(Duration.ofSeconds(5));
      assertThat(l.isValid()).isFalse();
    }
    assertThat((Long) cluster.primaryFor(lockKey("ttl-a")).execute("PTTL", lockKey("ttl-a"))).isBetween(1L, 5000L);
    assertThat(client(b -> b).lock("ttl-lock").tryAcquire(Duration.ZERO)).as("kept after closeAfter").isEmpty();
  }

  /** A name other than {@code name} whose lock key falls in the same slot. */
  private static String sameSlotAs(String name) {
    int slot = Slots.slotOf(lockKey(name));
    for (int i = 0; ; i++) {
      String other = name + "-" + i;
      if (Slots.slotOf(lockKey(other)) == slot) {
        return other;
      }
    }
  }

  @Test
  void aMultiLock_takesNamesThatShareASlotInOneCall_andOtherNamesOneByOne() {
    Relock relock = client(b -> b);
    List<String> calls = MultiLockContract.scriptCallsOf(relock);
    String first = "pair";
    String second = sameSlotAs(first);
    try (LockLease both = relock.multiLock(first, second).acquire(PATIENCE)) {
      await("the call is heard", () -> !calls.isEmpty());
      assertThat(calls).containsExactly("multilock_acquire.lua");
      assertThat(both.fencingTokens()).containsOnlyKeys(first, second);
      assertThat(client(b -> b).lock(second).isLocked()).isTrue();
    }
    await("the releases are heard", () -> calls.size() == 3);

    calls.clear();
    try (LockLease both = relock.multiLock("{acct-7}:from", "{acct-7}:to").acquire(PATIENCE)) {
      await("the call is heard", () -> !calls.isEmpty());
      assertThat(calls).as("names with one hash tag of their own share a slot").containsExactly("multilock_acquire.lua");
      assertThat(both.fencingTokens()).containsOnlyKeys("{acct-7}:from", "{acct-7}:to");
    }
    await("the releases are heard", () -> calls.size() == 3);

    calls.clear();
    String elsewhere = "apart";
    assertThat(Slots.slotOf(lockKey(elsewhere))).isNotEqualTo(Slots.slotOf(lockKey(first)));
    try (LockLease both = relock.multiLock(first, elsewhere).acquire(PATIENCE)) {
      await("the calls are heard", () -> calls.size() == 2);
      assertThat(calls).containsExactly("acquire.lua", "acquire.lua");
      assertThat(both.fencingTokens()).containsOnlyKeys(first, elsewhere);
    }
  }

  /** Redis 7 has sharded pub/sub; the test kit's embedded fallback server is 6.2. */
  private boolean shardedPubSub() {
    String info = String.valueOf(cluster.primaries().get(0).execute("INFO", "server"));
    int at = info.indexOf("redis_version:") + "redis_version:".length();
    return Integer.parseInt(info.substring(at, info.indexOf('.', at))) >= 7;
  }

  @Test
  void aWaiter_isHandedTheLock_overShardedPubSubOnTheLocksOwnNode_orByBroadcastBefore7() throws Exception {
    boolean sharded = shardedPubSub();
    Relock holder = client(b -> b);
    Relock waiter = client(b -> b);
    RedisServer owner = cluster.primaryFor(lockKey("handed"));
    LockLease held = holder.lock("handed").acquire(PATIENCE);
    CompletableFuture<LockLease> waiting = waiter.lock("handed").acquireAsync(PATIENCE);
    await("the waiter is queued", () -> owner.execute("ZCARD", lockKey("handed") + ":q").equals(1L));
    if (sharded) {
      await("the waiter's client subscribed on the lock's node", () -> shardSubscribers(owner, "handed") == 1);
    }
    held.close();
    try (LockLease next = waiting.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
      assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
    }
    long publishes = cluster.primaries().stream().mapToLong(p -> calls(p, "publish")).sum();
    if (sharded) {
      assertThat(calls(owner, "spublish")).as("grants published with SPUBLISH").isEqualTo(1);
      assertThat(publishes).as("nothing broadcast over the cluster bus").isZero();
      await("the waiter's client unsubscribed once it no longer waits", () -> shardSubscribers(owner, "handed") == 0);
    } else {
      assertThat(calls(owner, "publish")).as("grants broadcast with PUBLISH (no sharded pub/sub)").isEqualTo(1);
    }
  }

  /**
   * A semaphore and a read-write lock keep every key of a name in its slot, and their waiters are
   * handed what they wait for over the same channels as an exclusive lock's.
   */
  @Test
  void aSemaphoreAndAReadWriteLock_handTheirWaitersPermitsAndTheLock_onTheNameSlotsNode() throws Exception {
    Relock holder = client(b -> b);
    Relock waiter = client(b -> b.recheckInterval(Duration.ofMinutes(1)));
    RedisServer owner = cluster.primaryFor(lockKey("pool"));
    LockLease permit = holder.semaphore("pool", 1).acquire(PATIENCE);
    CompletableFuture<LockLease> nextPermit = waiter.semaphore("pool", 1).acquireAsync(PATIENCE);
    await("the permit's waiter is queued", () -> owner.execute("ZCARD", lockKey("pool") + ":q").equals(1L));
    permit.close();
    try (LockLease next = nextPermit.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
      assertThat(next.fencingToken()).isGreaterThan(permit.fencingToken());
    }

    RedisServer rwOwner = cluster.primaryFor(lockKey("doc"));
    LockLease writing = holder.readWriteLock("doc").writeLock().acquire(PATIENCE);
    CompletableFuture<LockLease> reading = waiter.readWriteLock("doc").readLock().acquireAsync(PATIENCE);
    await("the reader is queued", () -> rwOwner.execute("ZCARD", lockKey("doc") + ":q").equals(1L));
    writing.close();
    try (LockLease read = reading.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
      assertThat(read.fencingToken()).as("a read epoch after the write").isGreaterThan(writing.fencingToken());
    }
  }

  /**
   * Several clients wait on one lock's sharded channel, so each hears the grants made to the
   * others: those must be ignored, never withdrawn as orphans (which would free another holder's
   * lock).
   */
  @Test
  void threeClientsContending_neverOverlap_andEachHoldIsTheirsUntilReleased() throws Exception {
    List<Relock> relocks = List.of(client(b -> b), client(b -> b), client(b -> b));
    java.util.concurrent.atomic.AtomicInteger inside = new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicLong lastToken = new java.util.concurrent.atomic.AtomicLong();
    List<CompletableFuture<Void>> workers = new ArrayList<>();
    for (Relock r : relocks) {
      for (int t = 0; t < 2; t++) {
        workers.add(CompletableFuture.runAsync(() -> {
          for (int i = 0; i < 15; i++) {
            try (LockLease lease = r.lock("contended").acquire(PATIENCE)) {
              assertThat(inside.incrementAndGet()).as("holders at once").isEqualTo(1);
              assertThat(lease.fencingToken()).isGreaterThan(lastToken.getAndSet(lease.fencingToken()));
              inside.decrementAndGet();
            } // close() throws LockLostException if the lock was taken from under the holder
          }
        }));
      }
    }
    CompletableFuture.allOf(workers.toArray(new CompletableFuture<?>[0])).get(PATIENCE.toSeconds() * 3, TimeUnit.SECONDS);
  }

  @Test
  void aSlotMigratedUnderAHolderAndAWaiter_losesNeither() throws Exception {
    Relock holder = client(b -> b.defaultLease(Duration.ofSeconds(3)));
    Relock waiter = client(b -> b);
    String name = "migrating";
    int slot = Slots.slotOf(lockKey(name));
    LockLease held = holder.lock(name).acquire(PATIENCE);
    CompletableFuture<LockLease> waiting = waiter.lock(name).acquireAsync(PATIENCE);
    RedisServer from = cluster.primaryFor(lockKey(name));
    await("the waiter is queued", () -> from.execute("ZCARD", lockKey(name) + ":q").equals(1L));
    RedisServer to = cluster.primaries().stream().filter(p -> p != from).findFirst().orElseThrow();

    cluster.migrateSlot(slot, to);

    long start = System.nanoTime();
    await("a renewal went to the slot's new node", () -> {
      Object ttl = to.execute("PTTL", lockKey(name));
      return System.nanoTime() - start > Duration.ofSeconds(3).toNanos() && ttl instanceof Long t && t > 1000;
    });
    assertThat(held.isValid()).isTrue();
    held.close();
    try (LockLease next = waiting.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
      assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
    }
  }

  @Test
  void withReplicaAcks_anAcquisitionWaitsForTheReplicaOfItsSlot() {
    Relock relock = client(b -> b.replicaAcks(1, Duration.ofSeconds(1)));
    RedisServer owner = cluster.primaryFor(lockKey("acked"));
    try (LockLease lease = relock.lock("acked").acquire(PATIENCE)) {
      assertThat(calls(owner, "wait")).as("WAIT calls on the slot's primary").isPositive();
      assertThat(cluster.replicaOf(owner).execute("DBSIZE")).as("the replica has the lock and its fence").isEqualTo(2L);
    }
  }

  /**
   * On a cluster of its own (a failover leaves a node out until it is restarted with its data).
   * The replica takes over only once the holder's renewals have failed for most of its 10 s lease,
   * with less than a tick (a third of the lease) left, as a slow failover on a loaded machine may:
   * the renewals that failed are tried again until one reaches the promoted node, not at the next
   * tick. The holder counts its lease as ending half a second before Redis does, so that no tick
   * falls between the takeover and that end however late the timer ran.
   */
  @Test
  void aHolderAndAWaiter_carryOnWhenTheirSlotsPrimaryFailsOver_lateInTheHoldersLease() throws Exception {
    RedisClusterGroup own = RedisClusterGroup.builder().replicasPerPrimary(1).nodeTimeout(Duration.ofSeconds(1))
        .start();
    ownCluster = own;
    Duration lease = Duration.ofSeconds(10);
    Relock holder = client(own, b -> b.defaultLease(lease).clockDrift(Duration.ofMillis(500)));
    AtomicInteger failedCalls = new AtomicInteger();
    holder.addListener(new RelockListener() {
      @Override
      public void renewalFailed(int leases, Throwable error) {
        failedCalls.incrementAndGet();
      }
    });
    Relock waiter = client(own, b -> b);
    String name = "failing-over";
    LockLease held = holder.lock(name).acquire(PATIENCE);
    CompletableFuture<LockLease> waiting = waiter.lock(name).acquireAsync(PATIENCE.multipliedBy(3));
    RedisServer owner = own.primaryFor(lockKey(name));
    await("the waiter is queued", () -> owner.execute("ZCARD", lockKey(name) + ":q").equals(1L));
    owner.execute("WAIT", "1", "5000");
    RedisServer replica = own.replicaOf(owner);
    replica.execute("CONFIG", "SET", "cluster-replica-no-failover", "yes"); // it takes over when told

    long killedAt = System.nanoTime();
    own.killPrimary(owner);
    Duration lastTick = lease.dividedBy(3).minusMillis(300);
    await("the hold has less than a tick of its lease left, and two renewals failed", PATIENCE,
        () -> held.remaining().compareTo(lastTick) < 0 && failedCalls.get() >= 2);
    Duration leftAtTakeover = held.remaining();
    long takeoverAt = System.nanoTime();
    replica.execute("CLUSTER", "FAILOVER", "TAKEOVER");
    RedisServer promoted = own.awaitPromotion(owner, PATIENCE);
    long promotedAt = System.nanoTime();
    // Before the takeover the hold had under a third of its lease left in Redis too (the client's
    // deadline is earlier than Redis's by the drift allowance only): more than half is a renewal's.
    await("a renewal reached the promoted replica", PATIENCE,
        () -> (Long) promoted.execute("PTTL", lockKey(name)) > lease.toMillis() / 2);
    long renewedAt = System.nanoTime();
    System.out.printf("failover: takeover %d ms after the kill, with %d ms of the lease left; promotion seen %d ms"
        + " and a renewal on the promoted node %d ms after the takeover; %d failed renewal calls%n",
        TimeUnit.NANOSECONDS.toMillis(takeoverAt - killedAt), leftAtTakeover.toMillis(),
        TimeUnit.NANOSECONDS.toMillis(promotedAt - takeoverAt), TimeUnit.NANOSECONDS.toMillis(renewedAt - takeoverAt),
        failedCalls.get());
    assertThat(held.isValid()).isTrue();
    held.close();
    try (LockLease next = waiting.get(PATIENCE.toSeconds() * 3, TimeUnit.SECONDS)) {
      assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
    }
  }
}

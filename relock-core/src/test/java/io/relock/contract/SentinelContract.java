package io.relock.contract;

import static io.relock.contract.RelockContract.PATIENCE;
import static io.relock.contract.RelockContract.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.LockLease;
import io.relock.LockLostException;
import io.relock.Relock;
import io.relock.RelockException;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;
import io.relock.spi.RedisTarget;
import io.relock.testkit.RedisSentinelGroup;
import io.relock.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A primary behind Redis Sentinel: locks work through the sentinels, holders and waiters carry on
 * across a failover, and holds the promoted replica never saw are reported lost to their holders.
 * Each test starts its own primary, replica and three sentinels (a failover uses them up).
 */
public abstract class SentinelContract {
  /** Longer than a failover takes here (about 2 to 4 s: one second to notice, then an election). */
  private static final Duration LEASE = Duration.ofSeconds(10);
  private final List<AutoCloseable> resources = new ArrayList<>();

  /** Connects this module's driver to a Sentinel target. */
  protected abstract RedisDriver connectDriver(RedisTarget target, DriverSettings settings);

  @AfterEach
  void closeAll() throws Exception {
    for (int i = resources.size() - 1; i >= 0; i--) {
      resources.get(i).close();
    }
    resources.clear();
  }

  private RedisSentinelGroup group() {
    RedisSentinelGroup g = RedisSentinelGroup.start();
    resources.add(g);
    return g;
  }

  private Relock client(RedisSentinelGroup g, UnaryOperator<Relock.Builder> custom) {
    RedisTarget target = RedisTarget.sentinel(g.masterName(), g.sentinelUris());
    Relock c = custom.apply(Relock.builder().driver(connectDriver(target, RelockContract.DRIVER_SETTINGS))
        .defaultLease(LEASE)).build();
    resources.add(c);
    return c;
  }

  @Test
  void locks_workThroughTheSentinels_alsoFromARedisSentinelUri() {
    RedisSentinelGroup g = group();
    Relock a = client(g, b -> b);
    try (LockLease lease = a.lock("s").acquire(PATIENCE)) {
      assertThat(StoredLock.read(g.primary(), "relock:{s}").token()).isEqualTo(lease.fencingToken());
    }
    try (Relock b = Relock.connect(g.sentinelUri()); LockLease lease = b.lock("s").acquire(PATIENCE)) {
      assertThat(lease.isValid()).isTrue();
    }
  }

  @Test
  void everyKind_underNamesAndPrefixesMadeOfKeySeparators_isRenewedAndReleased() {
    RedisSentinelGroup g = group();
    OddNames.holdAcrossRenewals(prefix -> {
      Relock c = Relock.builder().driver(connectDriver(RedisTarget.sentinel(g.masterName(), g.sentinelUris()),
          RelockContract.DRIVER_SETTINGS)).keyPrefix(prefix).defaultLease(OddNames.LEASE).build();
      resources.add(c);
      return c;
    }, true);
  }

  @Test
  void holderAndWaiter_carryOnAcrossAFailover() throws Exception {
    RedisSentinelGroup g = group();
    Relock holder = client(g, b -> b);
    Relock waiter = client(g, b -> b);
    LockLease held = holder.lock("f").acquire(PATIENCE);
    CompletableFuture<LockLease> waiting = waiter.lock("f").acquireAsync(PATIENCE.multipliedBy(2));
    await("the waiter is queued", () -> g.primary().execute("ZCARD", "relock:{f}:q").equals(1L));
    g.awaitReplicated(PATIENCE);

    g.failover();

    await("the holder's lease was renewed on the new primary", () -> {
      Object ttl = g.primary().execute("PTTL", "relock:{f}");
      return ttl instanceof Long t && t > LEASE.toMillis() * 5 / 6;
    });
    assertThat(held.isValid()).isTrue();
    held.close(); // would throw LockLostException had the hold been lost
    try (LockLease next = waiting.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
      assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
    }
  }

  @Test
  void holdThePromotedReplicaNeverSaw_isReportedLostToItsHolder() throws Exception {
    RedisSentinelGroup g = group();
    Relock holder = client(g, b -> b);
    Relock other = client(g, b -> b);
    g.cutReplication();
    LockLease erased = holder.lock("hole").acquire(PATIENCE);
    CountDownLatch lost = new CountDownLatch(1);
    erased.onLost(lost::countDown);

    g.failover(); // the new primary never saw the hold: the articles' Sentinel hole

    assertThat(lost.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("the holder was told").isTrue();
    assertThat(erased.isValid()).isFalse();
    assertThatThrownBy(erased::close).isInstanceOf(LockLostException.class);
    try (LockLease next = other.lock("hole").acquire(PATIENCE)) {
      // The new primary has no fence for the name: its tokens rest on its clock (microseconds).
      assertThat(next.fencingToken()).isGreaterThan(erased.fencingToken());
    }
  }

  @Test
  void afterAFailoverThatLeavesTheOldPrimaryRunning_releasesAndGrantsReachTheNewOne() throws Exception {
    RedisSentinelGroup g = group();
    Relock holder = client(g, b -> b);
    // No re-check of its own within the test: the grant must come as a notification.
    Relock waiter = client(g, b -> b.recheckInterval(Duration.ofMinutes(5)));
    LockLease held = holder.lock("moved").acquire(PATIENCE);
    CompletableFuture<LockLease> waiting = waiter.lock("moved").acquireAsync(PATIENCE.multipliedBy(2));
    RedisServer old = g.primary();
    await("the waiter is queued", () -> old.execute("ZCARD", "relock:{moved}:q").equals(1L));
    g.awaitReplicated(PATIENCE);

    g.sentinels().get(0).execute("SENTINEL", "FAILOVER", g.masterName());
    RedisServer promoted = g.awaitFailover(PATIENCE);
    await("the old primary is a replica", () -> String.valueOf(old.execute("INFO", "replication")).contains("role:slave"));

    held.close(); // first answered READONLY by the old primary, then done on the new one
    try (LockLease next = waiting.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
      assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
      assertThat(StoredLock.read(promoted, "relock:{moved}").token()).isEqualTo(next.fencingToken());
    }
  }

  @Test
  void noPrimaryReachable_failsWithinTheWait_namingTheLockAndTheTopology() {
    RedisSentinelGroup g = group();
    Relock c = Relock.builder().uri(g.sentinelUri()).commandTimeout(Duration.ofSeconds(1)).build();
    resources.add(c);
    g.replicas().forEach(RedisServer::kill);
    g.primary().kill();
    assertThatThrownBy(() -> c.lock("down").acquire(Duration.ofSeconds(2)))
        .isInstanceOf(RelockException.class)
        .hasMessageContaining("lock 'down'")
        .hasMessageContaining("sentinel '" + g.masterName() + "'");
  }

  @Test
  void withReplicaAcks_aHoldSurvivesAFailoverThatFollowsItsAcquisition() throws Exception {
    RedisSentinelGroup g = group();
    Relock holder = client(g, b -> b.replicaAcks(1, Duration.ofSeconds(1)));
    // Replication lags 300 ms: without the acknowledgement, the hold would be on the primary only
    // when acquire returns, and the cut below would keep it from the replica.
    g.delayReplication(Duration.ofMillis(300));
    LockLease held = holder.lock("acked").acquire(PATIENCE);
    g.cutReplication();
    g.failover();
    assertThat(StoredLock.read(g.primary(), "relock:{acked}").token()).isEqualTo(held.fencingToken());
    held.close();
  }

  @Test
  void withoutReplicaAcks_theSameFailoverErasesTheHold_andItsHolderIsTold() throws Exception {
    RedisSentinelGroup g = group();
    Relock holder = client(g, b -> b);
    g.delayReplication(Duration.ofMillis(300));
    LockLease held = holder.lock("unacked").acquire(PATIENCE);
    CountDownLatch lost = new CountDownLatch(1);
    held.onLost(lost::countDown);
    g.cutReplication();
    g.failover();
    assertThat(g.primary().execute("EXISTS", "relock:{unacked}")).as("the hole: the new primary never saw it").isEqualTo(0L);
    assertThat(lost.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("the holder was told").isTrue();
    assertThatThrownBy(held::close).isInstanceOf(LockLostException.class);
  }
}

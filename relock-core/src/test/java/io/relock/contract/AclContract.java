package io.relock.contract;

import static io.relock.contract.RelockContract.PATIENCE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.DistributedLock;
import io.relock.LockInfo;
import io.relock.LockLease;
import io.relock.RedisAcl;
import io.relock.Relock;
import io.relock.RelockException;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;
import io.relock.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * relock under exactly the least-privilege ACL rule it documents ({@link RedisAcl#RULE}), and under
 * narrower ones: everything works with the rule, and a permission taken away fails with a {@link
 * RelockException} naming the lock and what Redis refused. The servers' only user has the rule,
 * so the test kit works under it too.
 */
public abstract class AclContract {
  private final List<AutoCloseable> opened = new ArrayList<>();

  /** Connects this module's driver. */
  protected abstract RedisDriver connectDriver(String uri, DriverSettings settings);

  @AfterEach
  void closeAll() throws Exception {
    for (int i = opened.size() - 1; i >= 0; i--) {
      opened.get(i).close();
    }
    opened.clear();
  }

  private RedisServer serverWithOnlyUser(String rules) {
    RedisServer server = RedisServer.builder().aclUser("locks", "pw", rules).start();
    opened.add(server);
    return server;
  }

  private Relock client(RedisServer server, UnaryOperator<Relock.Builder> custom) {
    Relock c = custom.apply(Relock.builder().driver(connectDriver(server.uri(), RelockContract.DRIVER_SETTINGS)))
        .build();
    opened.add(c);
    return c;
  }

  @Test
  void underExactlyTheRule_leasesLocksWaitingRenewalInspectionListingAndForcedUnlocksWork() throws Exception {
    RedisServer server = serverWithOnlyUser(RedisAcl.RULE);
    assertThat(server.execute("PING")).as("the test kit talks to it as the restricted user").isEqualTo("PONG");
    Relock holder = client(server, b -> b.defaultLease(Duration.ofMillis(900)));
    Relock other = client(server, b -> b);

    LockLease lease = holder.lock("acl").acquire(Duration.ZERO);
    CompletableFuture<LockLease> waiting = other.lock("acl").acquireAsync(PATIENCE);
    RelockContract.await("the waiter is queued", () -> other.inspect("acl").waiters().size() == 1);
    long start = System.nanoTime();
    RelockContract.await("two leases' time has passed", () -> System.nanoTime() - start > 1_800_000_000L);
    assertThat(lease.isValid()).as("renewed past its lease").isTrue();
    assertThat(other.list("*")).extracting(LockInfo::name).containsExactly("acl");
    lease.close();
    LockLease handed = waiting.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    assertThat(handed.fencingToken()).isGreaterThan(lease.fencingToken());
    assertThat(holder.lock("acl").forceUnlock()).isTrue();

    DistributedLock reentrant = other.lock("reentrant");
    reentrant.lock();
    reentrant.lock();
    assertThat(holder.inspect("reentrant").holder().orElseThrow().holdCount()).isEqualTo(2);
    reentrant.unlock();
    reentrant.unlock();
    assertThat(holder.ping()).isPositive();

    server.restart(); // the test kit stops a server whose user may not SHUTDOWN it
    try (LockLease again = holder.lock("after-restart").acquire(PATIENCE)) {
      assertThat(again.isValid()).isTrue();
    }
  }

  @Test
  void underExactlyTheRule_redlockOverThreeMastersLocksWaitsInspectsAndLists() throws Exception {
    String[] masters = new String[3];
    for (int i = 0; i < 3; i++) {
      masters[i] = serverWithOnlyUser(RedisAcl.RULE).uri();
    }
    Relock holder = Relock.builder().redlock(masters).build();
    opened.add(holder);
    Relock other = Relock.builder().redlock(masters).build();
    opened.add(other);
    LockLease lease = holder.lock("quorum").acquire(Duration.ZERO);
    CompletableFuture<LockLease> waiting = other.lock("quorum").acquireAsync(PATIENCE);
    assertThat(other.inspect("quorum").holder().orElseThrow().fencingToken()).isEqualTo(lease.fencingToken());
    assertThat(other.list("*")).extracting(LockInfo::name).containsExactly("quorum");
    lease.close();
    try (LockLease next = waiting.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
      assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
    }
  }

  @Test
  void underTheRuleForAnotherPrefix_aClientWithThatPrefixWorks() {
    RedisServer server = serverWithOnlyUser(RedisAcl.rule("app:locks:"));
    Relock relock = client(server, b -> b.keyPrefix("app:locks:"));
    try (LockLease lease = relock.lock("prefixed").acquire(Duration.ZERO)) {
      assertThat(relock.inspect("prefixed").holder().orElseThrow().fencingToken()).isEqualTo(lease.fencingToken());
    }
    assertThat(relock.list("*")).isEmpty();
  }

  /**
   * An uncontended acquisition touches no sorted set; one that must queue does, and without
   * {@code @sortedset} fails there, naming what was refused.
   */
  @Test
  void withoutACommandCategory_theCallFails_namingTheLockTheCommandAndTheScript() {
    RedisServer server = serverWithOnlyUser(RedisAcl.RULE.replace(" +@sortedset", ""));
    Relock holder = client(server, b -> b);
    Relock relock = client(server, b -> b);
    LockLease held = holder.lock("no-sortedset").acquire(Duration.ZERO);
    assertThatThrownBy(() -> relock.lock("no-sortedset").acquire(Duration.ofSeconds(5)))
        .isInstanceOf(RelockException.class)
        .hasMessageContaining("'no-sortedset'")
        .hasMessageContaining("ZADD in acquire.lua")
        .hasMessageContaining("RedisAcl");
    held.close();
    assertThat(relock.inspect("no-sortedset").isHeld()).as("nothing left held").isFalse();
  }

  @Test
  void withoutTheKeyPattern_theCallFails_sayingTheKeyIsNotAllowed() {
    RedisServer server = serverWithOnlyUser(RedisAcl.RULE.replace("~relock:*", "~app:*"));
    Relock relock = client(server, b -> b);
    assertThatThrownBy(() -> relock.lock("no-keys").acquire(Duration.ZERO))
        .isInstanceOf(RelockException.class)
        .hasMessageContaining("'no-keys'")
        .hasMessageContaining("does not allow the keys acquire.lua is called with");
  }

  @Test
  void withoutTheChannelPattern_buildingTheClientFails_sayingTheChannelIsNotAllowed() {
    RedisServer server = serverWithOnlyUser(RedisAcl.RULE.replace("&relock:*", "&app:*"));
    assertThatThrownBy(() -> client(server, b -> b))
        .isInstanceOf(RelockException.class)
        .hasMessageContaining("relock:client:")
        .hasMessageContaining("NOPERM");
  }
}

package io.relock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.DistributedLock;
import io.relock.LockInfo;
import io.relock.LockLease;
import io.relock.Relock;
import io.relock.RelockException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link Relock#inspect} and {@link Relock#list}: what they report about free, held, re-entered
 * and contended locks, read by another client, and that reading changes nothing. Asserted through
 * the API only (holders, tokens, waiters, counts), never through Redis's keys.
 */
public abstract class InspectionContract extends RelockContract {

  @Test
  void inspect_ofANameNeverUsed_saysFree_withNoWaitersOrToken_andWritesNothing() {
    LockInfo info = client().inspect("never-used");
    assertThat(info).isEqualTo(new LockInfo("never-used", java.util.Optional.empty(), List.of(), 0));
    assertThat(redis("DBSIZE")).as("keys in Redis after inspecting").isEqualTo(0L);
  }

  @Test
  void inspect_ofAHeldLease_namesItsClientOwnerTokenAndRemainingLease() {
    Relock holder = client();
    java.time.Instant before = serverNow();
    LockLease lease = holder.lock("held").acquire(Duration.ZERO, Duration.ofSeconds(20));
    java.time.Instant after = serverNow();
    LockInfo info = client().inspect("held");

    assertThat(info.name()).isEqualTo("held");
    assertThat(info.isHeld()).isTrue();
    LockInfo.Holder h = info.holder().orElseThrow();
    assertThat(h.clientId()).isEqualTo(holder.clientId());
    assertThat(h.ownerId()).startsWith(holder.clientId() + ":");
    assertThat(h.fencingToken()).isEqualTo(lease.fencingToken());
    assertThat(h.holdCount()).isEqualTo(1);
    assertThat(h.remainingLease()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(20));
    assertThat(h.since()).as("granted, by the server's clock").get().satisfies(since -> {
      assertThat(since).isAfterOrEqualTo(before).isBeforeOrEqualTo(after);
    });
    assertThat(info.waiters()).isEmpty();
    assertThat(info.lastToken()).isEqualTo(lease.fencingToken());

    lease.close();
    LockInfo released = client().inspect("held");
    assertThat(released.isHeld()).isFalse();
    assertThat(released.lastToken()).as("the fence outlives the hold").isEqualTo(lease.fencingToken());
  }

  /** The Redis server's clock, to microseconds. */
  private java.time.Instant serverNow() {
    List<?> t = (List<?>) redis("TIME");
    return java.time.Instant.ofEpochSecond(Long.parseLong(t.get(0).toString()), 1000L * Long.parseLong(t.get(1).toString()));
  }

  @Test
  void inspect_ofAThreadsReentrantHold_countsEachHold() {
    DistributedLock lock = client().lock("reentered");
    lock.lock();
    lock.lock();
    try {
      assertThat(client().inspect("reentered").holder().orElseThrow().holdCount()).isEqualTo(2);
    } finally {
      lock.unlock();
      lock.unlock();
    }
    assertThat(client().inspect("reentered").isHeld()).isFalse();
  }

  @Test
  void inspect_listsWaitersInTheOrderTheLockWillBeHandedToThem() throws Exception {
    Relock holder = client();
    Relock observer = client();
    LockLease held = holder.lock("queue").acquire(Duration.ZERO);
    List<Relock> waiters = List.of(client(), client(), client());
    List<CompletableFuture<LockLease>> waiting = new ArrayList<>();
    for (Relock w : waiters) {
      waiting.add(w.lock("queue").acquireAsync(PATIENCE));
      int queued = waiting.size();
      await(queued + " waiter(s) queued", () -> observer.inspect("queue").waiters().size() == queued);
    }
    assertThat(observer.inspect("queue").waiters()).extracting(LockInfo.Waiter::clientId)
        .containsExactly(waiters.get(0).clientId(), waiters.get(1).clientId(), waiters.get(2).clientId());
    assertThat(observer.inspect("queue").waiters()).allSatisfy(w -> assertThat(w.ownerId()).startsWith(w.clientId() + ":"));

    held.close();
    LockLease first = waiting.get(0).get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    LockInfo next = observer.inspect("queue");
    assertThat(next.holder().orElseThrow().clientId()).isEqualTo(waiters.get(0).clientId());
    assertThat(next.holder().orElseThrow().fencingToken()).isEqualTo(first.fencingToken());
    assertThat(next.waiters()).extracting(LockInfo.Waiter::clientId)
        .containsExactly(waiters.get(1).clientId(), waiters.get(2).clientId());

    first.close();
    waiting.get(1).get(PATIENCE.toSeconds(), TimeUnit.SECONDS).close();
    waiting.get(2).get(PATIENCE.toSeconds(), TimeUnit.SECONDS).close();
    assertThat(observer.inspect("queue").waiters()).isEmpty();
  }

  @Test
  void inspecting_changesNothing_theHolderReleasesAndTheWaiterIsHandedTheLock() throws Exception {
    Relock holder = client();
    LockLease held = holder.lock("untouched").acquire(Duration.ZERO);
    CompletableFuture<LockLease> waiting = client().lock("untouched").acquireAsync(PATIENCE);
    await("the waiter is queued", () -> client().inspect("untouched").waiters().size() == 1);
    for (int i = 0; i < 20; i++) {
      client().inspect("untouched");
      client().list("*");
    }
    held.close(); // would throw LockLostException had inspecting touched the hold
    try (LockLease next = waiting.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
      assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
    }
  }

  @Test
  void list_returnsTheHeldLocksMatchingThePattern_sortedByName_asInspectSeesThem() {
    Relock holder = client();
    List<LockLease> leases = new ArrayList<>();
    for (String name : List.of("jobs:3", "jobs:1", "jobs:2", "other")) {
      leases.add(holder.lock(name).acquire(Duration.ZERO));
    }
    holder.lock("jobs:free").acquire(Duration.ZERO).close();
    Relock observer = client();

    List<LockInfo> jobs = observer.list("jobs:*");
    assertThat(jobs).extracting(LockInfo::name).containsExactly("jobs:1", "jobs:2", "jobs:3");
    for (LockInfo info : jobs) {
      LockInfo inspected = observer.inspect(info.name());
      assertThat(info.holder().orElseThrow().ownerId()).isEqualTo(inspected.holder().orElseThrow().ownerId());
      assertThat(info.holder().orElseThrow().fencingToken()).isEqualTo(inspected.holder().orElseThrow().fencingToken());
      assertThat(info.holder().orElseThrow().clientId()).isEqualTo(holder.clientId());
    }
    assertThat(observer.list("*")).extracting(LockInfo::name).containsExactly("jobs:1", "jobs:2", "jobs:3", "other");
    assertThat(observer.list("jobs:[12]")).extracting(LockInfo::name).containsExactly("jobs:1", "jobs:2");
    assertThat(observer.list("nothing-*")).isEmpty();
    leases.forEach(LockLease::close);
    assertThat(observer.list("*")).isEmpty();
  }

  @Test
  void list_pagesThroughALargeKeyspaceWithScan_neverKeys() {
    Relock holder = client();
    LockLease a = holder.lock("needle-a").acquire(Duration.ZERO);
    LockLease b = holder.lock("needle-b").acquire(Duration.ZERO);
    // Other keys, as an application sharing the database would have: several SCAN pages of them.
    for (int i = 0; i < 3000; i += 500) {
      List<String> args = new ArrayList<>(List.of("MSET"));
      for (int j = i; j < i + 500; j++) {
        args.add("app:key:" + j);
        args.add("v");
      }
      redis(args.toArray(new String[0]));
    }
    redis("CONFIG", "RESETSTAT");

    assertThat(client().list("needle-*")).extracting(LockInfo::name).containsExactly("needle-a", "needle-b");
    assertThat(commandCalls("keys")).isZero();
    assertThat(commandCalls("scan")).as("SCAN pages").isGreaterThan(3);
    a.close();
    b.close();
  }

  @Test
  void list_matchesNamesHoldingBracesAndPercentSigns_literally() {
    Relock holder = client();
    LockLease braces = holder.lock("a{b}c").acquire(Duration.ZERO);
    LockLease percent = holder.lock("50%").acquire(Duration.ZERO);
    LockLease plain = holder.lock("a-b-c").acquire(Duration.ZERO);
    Relock observer = client();

    assertThat(observer.list("a{*")).extracting(LockInfo::name).containsExactly("a{b}c");
    assertThat(observer.list("a?b?c")).extracting(LockInfo::name).containsExactly("a-b-c", "a{b}c");
    assertThat(observer.list("*%")).extracting(LockInfo::name).containsExactly("50%");
    assertThat(observer.list("a\\{b\\}c")).extracting(LockInfo::name).containsExactly("a{b}c");
    assertThat(observer.list("a[{]b*")).extracting(LockInfo::name).containsExactly("a{b}c");
    assertThat(observer.list("[^a]*")).extracting(LockInfo::name).containsExactly("50%");
    assertThat(observer.inspect("a{b}c").holder().orElseThrow().fencingToken()).isEqualTo(braces.fencingToken());
    braces.close();
    percent.close();
    plain.close();
  }

  @Test
  void namesWithAHashTagOfTheirOwn_areListedAndInspectedByName() {
    Relock holder = client();
    LockLease from = holder.lock("{acct-1}:from").acquire(Duration.ZERO);
    LockLease to = holder.lock("transfer:{acct-1}").acquire(Duration.ZERO);
    Relock observer = client();
    assertThat(redis("EXISTS", "relock:{acct-1}{%7Bacct-1%7D:from}")).as("placed by its tag").isEqualTo(1L);
    assertThat(observer.list("*")).extracting(LockInfo::name).containsExactly("transfer:{acct-1}", "{acct-1}:from");
    assertThat(observer.list("{acct-1}*")).extracting(LockInfo::name).containsExactly("{acct-1}:from");
    assertThat(observer.list("transfer:*")).extracting(LockInfo::name).containsExactly("transfer:{acct-1}");
    assertThat(observer.inspect("{acct-1}:from").holder().orElseThrow().fencingToken()).isEqualTo(from.fencingToken());
    from.close();
    to.close();
    assertThat(observer.list("*")).isEmpty();
  }

  @Test
  void badNamesAndPatterns_areRejectedNamingTheValue_beforeAnyRedisCall() {
    Relock relock = client();
    redis("CONFIG", "RESETSTAT");
    assertThatThrownBy(() -> relock.inspect(" ")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("' '");
    assertThatThrownBy(() -> relock.inspect(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> relock.list("")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("empty");
    assertThatThrownBy(() -> relock.list("a[bc")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'a[bc'");
    assertThat(scriptCalls()).isZero();
  }

  @Test
  void inspect_ofAKeyRedisCannotReadAsALock_failsWithRelockExceptionNamingTheLock() {
    redis("RPUSH", lockKey("not-a-lock"), "x");
    assertThatThrownBy(() -> client().inspect("not-a-lock")).isInstanceOf(RelockException.class)
        .hasMessageContaining("not-a-lock").hasMessageContaining("WRONGTYPE");
  }
}

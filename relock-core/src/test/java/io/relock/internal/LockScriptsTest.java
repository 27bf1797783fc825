package io.relock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.contract.StoredLock;
import io.relock.testkit.RedisExtension;
import io.relock.testkit.RedisServer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** renew.lua and release.lua on a real redis-server, called as the watchdog and the engine call them. */
class LockScriptsTest {
  @RegisterExtension static final RedisExtension redis = new RedisExtension();

  private RedisServer server;

  @BeforeEach
  void setUp(RedisServer server) {
    this.server = server;
    server.execute("FLUSHALL");
  }

  /** Takes lock {@code key} for {@code owner} with acquire.lua, as a client would. */
  private void take(String key, String owner, long leaseMillis) {
    List<String> args = ScriptCalls.acquire(owner, leaseMillis, "try", "60000", 1000, 1000, false, "ch");
    Object reply = eval(Scripts.ACQUIRE, List.of(key), args);
    assertThat(((List<?>) reply).get(0)).as("took " + key).isEqualTo(1L);
  }

  private Object eval(LuaScript script, List<String> keys, List<String> args) {
    List<String> command = new ArrayList<>(List.of("EVAL", script.source(), Integer.toString(keys.size())));
    command.addAll(keys);
    command.addAll(args);
    return server.execute(command.toArray(new String[0]));
  }

  private ScriptCalls.Renewed renew(List<String> keys, long leaseMillis, long budgetMicros, List<String> owners) {
    List<Object> reply = castList(eval(Scripts.RENEW, keys, ScriptCalls.renewArgs(leaseMillis, budgetMicros,
        owners)));
    return ScriptCalls.Renewed.of(reply);
  }

  @SuppressWarnings("unchecked")
  private static List<Object> castList(Object o) {
    return (List<Object>) o;
  }

  private long pttl(String key) {
    return (Long) server.execute("PTTL", key);
  }

  @Test
  void renewsWhatItsOwnersHold_leavingTheValueAsItIs_andReportsTheRestLost() {
    take("relock:{a}", "c:l1", 1000);
    take("relock:{b}", "c:l2", 1000);
    take("relock:{c}", "someone-else", 1000);
    server.execute("SET", "relock:{d}", "not a lock");
    server.execute("HSET", "relock:{f}", "field", "value");
    String before = (String) server.execute("GET", "relock:{a}");

    ScriptCalls.Renewed renewed = renew(List.of("relock:{a}", "relock:{b}", "relock:{c}", "relock:{d}", "relock:{e}",
        "relock:{f}"), 60_000, 100_000, List.of("c:l1", "c:l2", "c:l3", "c:l4", "c:l5",
        "c:l6"));

    assertThat(renewed.held()).containsExactly(true, true, false, false, false, false);
    assertThat(renewed.elapsedMicros()).isNotNegative();
    assertThat(pttl("relock:{a}")).isGreaterThan(50_000);
    assertThat(pttl("relock:{b}")).isGreaterThan(50_000);
    assertThat(server.execute("GET", "relock:{a}")).isEqualTo(before);
    assertThat(pttl("relock:{c}")).as("another owner's lock is left alone").isLessThanOrEqualTo(1000);
    assertThat(server.execute("GET", "relock:{d}")).isEqualTo("not a lock");
    assertThat(pttl("relock:{d}")).isEqualTo(-1L);
  }

  /**
   * A release that takes another owner's hold (its own lease lost, the lock taken since) puts it
   * back for the lease in its value: never sooner than it would have ended, though renewals left
   * no expiry in the value.
   */
  @Test
  void aReleaseOfAnotherOwnersHold_putsItBackForNoLessThanItHad() {
    take("relock:{r}", "c:l1", 60_000);
    ScriptCalls.Renewed renewed = renew(List.of("relock:{r}"), 60_000, 100_000, List.of("c:l1"));
    assertThat(renewed.held()).containsExactly(true);
    String value = (String) server.execute("GET", "relock:{r}");
    long before = pttl("relock:{r}");
    long measured = System.nanoTime();

    Object reply = eval(Scripts.RELEASE, List.of("relock:{r}"), ScriptCalls.release("c:l0", true, false, "60000", null,
        false));

    assertThat(reply).isEqualTo(List.of(0L, 0L));
    assertThat(server.execute("GET", "relock:{r}")).isEqualTo(value);
    long after = pttl("relock:{r}");
    long elapsedMillis = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - measured) + 1;
    assertThat(after).as("ends no sooner than before").isGreaterThanOrEqualTo(before - elapsedMillis)
        .isLessThanOrEqualTo(60_000);
  }

  @Test
  void outOfTime_itStopsAfterEightHolds_andTheRestAreLeftForTheNextCall() {
    List<String> keys = new ArrayList<>();
    List<String> owners = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      keys.add("relock:{k" + i + "}");
      owners.add("c:l" + i);
      take(keys.get(i), owners.get(i), 1000);
    }
    ScriptCalls.Renewed cut = renew(keys, 60_000, 0, owners);

    assertThat(cut.held()).hasSize(8).containsOnly(true);
    assertThat(pttl(keys.get(7))).isGreaterThan(50_000);
    assertThat(pttl(keys.get(8))).as("not looked at").isLessThanOrEqualTo(1000);

    ScriptCalls.Renewed rest = renew(keys.subList(8, 40), 60_000, 1_000_000, owners.subList(8, 40));
    assertThat(rest.held()).hasSize(32).containsOnly(true);
    assertThat(pttl(keys.get(39))).isGreaterThan(50_000);
  }

  @Test
  void aRenewedSharedHold_keepsItsNamesMarkerAndHolderSet_atLeastAsLongAsTheLease_neverShorter() {
    take("relock:{s}:h:c:l1", "c:l1", 1000);
    take("relock:{s}:h:c:l2", "c:l2", 1000);
    server.execute("SET", "relock:{s}", "semaphore 2", "PX", "1000");
    server.execute("ZADD", "relock:{s}:held", "1", "c:l1", "1", "c:l2");
    server.execute("PEXPIRE", "relock:{s}:held", "1000");

    ScriptCalls.Renewed renewed = renew(List.of("relock:{s}:h:c:l1", "relock:{s}:h:c:l2"), 60_000, 100_000,
        List.of("c:l1", "c:l2"));

    assertThat(renewed.held()).containsExactly(true, true);
    assertThat(pttl("relock:{s}")).as("marker").isGreaterThan(50_000);
    assertThat(pttl("relock:{s}:held")).as("holder index").isGreaterThan(50_000);
    assertThat(server.execute("GET", "relock:{s}")).isEqualTo("semaphore 2");

    server.execute("PEXPIRE", "relock:{s}", "600000");
    renew(List.of("relock:{s}:h:c:l1"), 60_000, 100_000, List.of("c:l1"));
    assertThat(pttl("relock:{s}")).as("never shortened").isGreaterThan(500_000);
  }

  /**
   * A hold's score in its holder index must never pass the hold's end (holders.lua counts a member
   * without a look at its key until then). A renewal that ends a shared hold sooner than its score
   * (after a re-entry with a longer lease raised both) lowers the score with it; a score already
   * lower stays as it is. Semaphore and read-write lock alike.
   */
  @Test
  void aRenewalThatEndsASharedHoldSooner_lowersItsScore_andNeverRaisesOne() {
    take("relock:{s}:h:c:l1", "c:l1", 3_600_000);
    take("relock:{s}:h:c:l2", "c:l2", 3_600_000);
    take("relock:{rw}:h:c:l3", "c:l3", 3_600_000);
    server.execute("SET", "relock:{s}", "semaphore 2", "PX", "600000");
    server.execute("SET", "relock:{rw}", "readwrite", "PX", "600000");
    String far = Long.toString(serverMillis() + 3_600_000);
    server.execute("ZADD", "relock:{s}:held", far, "c:l1", "5", "c:l2");
    server.execute("ZADD", "relock:{rw}:writers", far, "c:l3");

    ScriptCalls.Renewed renewed = renew(List.of("relock:{s}:h:c:l1", "relock:{s}:h:c:l2", "relock:{rw}:h:c:l3"),
        10_000, 100_000, List.of("c:l1", "c:l2", "c:l3"));

    assertThat(renewed.held()).containsExactly(true, true, true);
    long[] end = endOf("relock:{s}:h:c:l1");
    assertThat(score("relock:{s}:held", "c:l1")).as("lowered to the hold's new end").isBetween(end[0], end[1]);
    assertThat(score("relock:{s}:held", "c:l2")).as("a lower score kept").isEqualTo(5);
    assertThat(score("relock:{rw}:writers", "c:l3")).as("a writer's, in its lane's index")
        .isLessThanOrEqualTo(endOf("relock:{rw}:h:c:l3")[1]);
    assertThat(server.execute("ZSCORE", "relock:{rw}:readers", "c:l3")).as("not added to the other lane").isNull();
  }

  /**
   * The server ms a key expires at, as bounds: PTTL counts from the server's clock when it runs,
   * which lies between the two TIME readings around it (a slow machine crosses ms boundaries).
   */
  private long[] endOf(String key) {
    long before = serverMillis();
    long ttl = pttl(key);
    long after = serverMillis();
    return new long[] {before + ttl, after + ttl};
  }

  private long serverMillis() {
    List<Object> t = castList(server.execute("TIME"));
    return Long.parseLong(String.valueOf(t.get(0))) * 1000 + Long.parseLong(String.valueOf(t.get(1))) / 1000;
  }

  private long score(String index, String member) {
    return (long) Double.parseDouble(String.valueOf(server.execute("ZSCORE", index, member)));
  }

  /**
   * Exclusive locks whose name or key prefix contains ':h:' are not shared holds: a renewal
   * extends them and touches no other key (an application's, or a lookalike of a marker).
   */
  @Test
  void locksWithHColonInTheirNameOrPrefix_areRenewedAlone() {
    server.execute("HSET", "jobs", "field", "value");
    server.execute("SET", "relock:{order", "semaphore 2");
    server.execute("SET", "relock:{a", "readwrite");
    take("jobs:h:{x}", "c:l1", 1000);
    take("relock:{order:h:1}", "c:l2", 1000);
    take("relock:{a}:h:{b}", "c:l3", 1000);

    ScriptCalls.Renewed renewed = renew(List.of("jobs:h:{x}", "relock:{order:h:1}", "relock:{a}:h:{b}"), 60_000,
        100_000, List.of("c:l1", "c:l2", "c:l3"));

    assertThat(renewed.held()).containsExactly(true, true, true);
    for (String other : List.of("jobs", "relock:{order", "relock:{a")) {
      assertThat(pttl(other)).as(other + " left without an expiry").isEqualTo(-1L);
    }
  }

  /**
   * Redis lost a semaphore's keys, and the name is an exclusive lock now: renewing the lost
   * permit neither renews it nor touches the lock (whose expiry must stay within its lease).
   */
  @Test
  void aLostSharedHold_leavesWhatNowHoldsItsNameAlone() {
    take("relock:{n}", "someone-else", 30_000);
    ScriptCalls.Renewed lost = renew(List.of("relock:{n}:h:c:l1"), 60_000, 100_000, List.of("c:l1"));
    assertThat(lost.held()).containsExactly(false);
    assertThat(pttl("relock:{n}")).isLessThanOrEqualTo(30_000);

    take("relock:{n}:h:c:l2", "c:l2", 1000);
    ScriptCalls.Renewed renewed = renew(List.of("relock:{n}:h:c:l2"), 60_000, 100_000, List.of("c:l2"));
    assertThat(renewed.held()).containsExactly(true);
    assertThat(pttl("relock:{n}")).as("not a kind marker: not extended").isLessThanOrEqualTo(30_000);
  }

  /**
   * A release that may find another owner's hold ('2': its lease lost, or sent again after a lost
   * reply) reads before it deletes: another owner's hold keeps its value and its expiry.
   */
  @Test
  void aCarefulRelease_leavesAnotherOwnersHoldAsItWas() {
    take("relock:{c}", "c:l1", 3000);
    long before = pttl("relock:{c}");

    Object reply = eval(Scripts.RELEASE, List.of("relock:{c}"), ScriptCalls.release("c:l0", true, true, "60000", null,
        false));

    assertThat(reply).isEqualTo(List.of(0L, 0L));
    assertThat(pttl("relock:{c}")).isLessThanOrEqualTo(before);
    Object own = eval(Scripts.RELEASE, List.of("relock:{c}"), ScriptCalls.release("c:l1", true, true, "60000", null,
        false));
    assertThat(own).isEqualTo(List.of(2L, 0L));
    assertThat(server.execute("EXISTS", "relock:{c}")).isEqualTo(0L);
  }

  private Object waitFor(String key, String owner) {
    return eval(Scripts.ACQUIRE, List.of(key), ScriptCalls.acquire(owner, 30000, "wait", "60000", 10000, 2000, false, "ch"));
  }

  private Object releaseTo(String key, String owner, String successor, boolean ahead, String follower) {
    return eval(Scripts.RELEASE, List.of(key), ScriptCalls.release(owner, true, false, "60000", successor, ahead, follower));
  }

  private static final String FOLLOWER_ENTRY = " 10000 30000 2000 ch";

  /** A release naming a follower, with nobody queued: the follower holds the lock, with a later token. */
  @Test
  void aReleaseNamingAFollower_withNobodyQueued_handsItTheLock() {
    take("relock:{f}", "c:l1", 30000);
    long before = StoredLock.read(server, "relock:{f}").token();
    List<Object> reply = castList(releaseTo("relock:{f}", "c:l1", "=c:l2", false, FOLLOWER_ENTRY));
    assertThat(reply.get(0)).isEqualTo(3L);
    assertThat(StoredLock.holder(server, "relock:{f}")).isEqualTo("c:l2");
    assertThat((Long) reply.get(1)).isGreaterThan(before);
    assertThat(server.execute("EXISTS", "relock:{f}:q")).isEqualTo(0L);
  }

  /**
   * Not ahead of others: the follower is queued behind the other client's waiter, which gets the
   * lock, marked as having waiters (the follower's entry).
   */
  @Test
  void aReleaseNamingAFollower_notAhead_queuesItBehindAnotherClientsWaiter() {
    take("relock:{g}", "c:l1", 30000);
    waitFor("relock:{g}", "d:l1");
    List<Object> reply = castList(releaseTo("relock:{g}", "c:l1", "=c:l2", false, FOLLOWER_ENTRY));
    assertThat(reply).isEqualTo(List.of(4L, 1L));
    assertThat(StoredLock.holder(server, "relock:{g}")).isEqualTo("d:l1");
    assertThat(StoredLock.read(server, "relock:{g}").waiters()).as("marked as having waiters").isTrue();
    assertThat(server.execute("ZRANGE", "relock:{g}:q", "0", "-1")).isEqualTo(List.of("c:l2"));
  }

  /**
   * A release that reaches Redis after its client gave up on it, and after the follower it names
   * queued itself: the follower gets the lock, and its queue entry goes, so that it is not granted
   * the lock again from there (found by review).
   */
  @Test
  void aLateReleaseNamingAFollowerThatQueuedItself_takesItsEntryOffTheQueue() {
    take("relock:{h}", "c:l1", 30000);
    waitFor("relock:{h}", "c:l2");
    List<Object> reply = castList(releaseTo("relock:{h}", "c:l1", "=c:l2", true, FOLLOWER_ENTRY));
    assertThat(reply.get(0)).isEqualTo(3L);
    assertThat(StoredLock.holder(server, "relock:{h}")).isEqualTo("c:l2");
    assertThat(server.execute("EXISTS", "relock:{h}:q", "relock:{h}:qi")).isEqualTo(0L);
  }
}

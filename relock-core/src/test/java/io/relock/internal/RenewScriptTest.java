package io.relock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.testkit.RedisExtension;
import io.relock.testkit.RedisServer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** renew.lua on a real redis-server, called as the watchdog calls it. */
class RenewScriptTest {
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

  private ScriptCalls.Renewed renew(List<String> keys, List<String> markers, long leaseMillis, long budgetMicros,
      List<String> owners) {
    List<Object> reply = castList(eval(Scripts.RENEW, ScriptCalls.renewKeys(keys, markers),
        ScriptCalls.renewArgs(leaseMillis, "90000", budgetMicros, owners)));
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
        "relock:{f}"), Arrays.asList(new String[6]), 60_000, 100_000, List.of("c:l1", "c:l2", "c:l3", "c:l4", "c:l5",
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
    ScriptCalls.Renewed renewed = renew(List.of("relock:{r}"), Arrays.asList(new String[1]), 60_000, 100_000,
        List.of("c:l1"));
    assertThat(renewed.held()).containsExactly(true);
    String value = (String) server.execute("GET", "relock:{r}");
    long before = pttl("relock:{r}");

    Object reply = eval(Scripts.RELEASE, List.of("relock:{r}"), ScriptCalls.release("c:l0", true, "60000", null, false));

    assertThat(reply).isEqualTo(List.of(0L, 0L));
    assertThat(server.execute("GET", "relock:{r}")).isEqualTo(value);
    assertThat(pttl("relock:{r}")).isGreaterThanOrEqualTo(before).isLessThanOrEqualTo(60_000);
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
    List<String> markers = Arrays.asList(new String[40]);

    ScriptCalls.Renewed cut = renew(keys, markers, 60_000, 0, owners);

    assertThat(cut.held()).hasSize(8).containsOnly(true);
    assertThat(pttl(keys.get(7))).isGreaterThan(50_000);
    assertThat(pttl(keys.get(8))).as("not looked at").isLessThanOrEqualTo(1000);

    ScriptCalls.Renewed rest = renew(keys.subList(8, 40), markers.subList(8, 40), 60_000, 1_000_000,
        owners.subList(8, 40));
    assertThat(rest.held()).hasSize(32).containsOnly(true);
    assertThat(pttl(keys.get(39))).isGreaterThan(50_000);
  }

  @Test
  void theKindMarkersOfSharedHolds_areExtendedOnce() {
    take("relock:{s}:h:c:l1", "c:l1", 1000);
    take("relock:{s}:h:c:l2", "c:l2", 1000);
    server.execute("SET", "relock:{s}", "semaphore 2", "PX", "1000");

    List<String> keys = ScriptCalls.renewKeys(List.of("relock:{s}:h:c:l1", "relock:{s}:h:c:l2"),
        List.of("relock:{s}", "relock:{s}"));
    assertThat(keys).containsExactly("relock:{s}:h:c:l1", "relock:{s}:h:c:l2", "relock:{s}");
    ScriptCalls.Renewed renewed = renew(List.of("relock:{s}:h:c:l1", "relock:{s}:h:c:l2"),
        List.of("relock:{s}", "relock:{s}"), 60_000, 100_000, List.of("c:l1", "c:l2"));

    assertThat(renewed.held()).containsExactly(true, true);
    assertThat(pttl("relock:{s}")).as("kept for the marker retention").isGreaterThan(80_000);
    assertThat(server.execute("GET", "relock:{s}")).isEqualTo("semaphore 2");
  }
}

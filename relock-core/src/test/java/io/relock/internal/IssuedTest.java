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

/**
 * A queued reply's 'issued' (acquire.lua, readwrite_acquire.lua, semaphore_acquire.lua) against
 * the grants around it, each case within one microsecond of Redis's clock, which {@link
 * StoppedClock} holds still. It must be at or above the token (a reader's serial) of every grant to
 * the caller that had ended before the reply's script ran, else a late notification of that grant
 * counts as live (the double hold caf083b fixed); and below the token of every grant made after
 * it, else the caller takes a live grant for an ended one (found by the model's no_false_end).
 * Both rest on the fence holding every token issued: a fence lost within the microsecond of its
 * last token (no restart is that quick) is outside them.
 */
class IssuedTest {
  @RegisterExtension static final RedisExtension redis = new RedisExtension();
  private static final String RETENTION = "60000";
  private static final String PREFIX = "relock:client:";

  private RedisServer server;

  @BeforeEach
  void setUp(RedisServer server) {
    this.server = server;
    server.execute("FLUSHALL");
  }

  private Object evalAt(long micros, LuaScript script, List<String> keys, List<String> args) {
    return StoppedClock.eval(server, micros, script, keys, args);
  }

  private long serverMicros() {
    return StoppedClock.serverMicros(server);
  }

  @SuppressWarnings("unchecked")
  private static List<Object> list(Object o) {
    return (List<Object>) o;
  }

  private List<Object> acquire(long at, String key, String owner, String mode) {
    return list(evalAt(at, Scripts.ACQUIRE, List.of(key),
        ScriptCalls.acquire(owner, 30_000, mode, RETENTION, 10_000, 2000, false, "ch")));
  }

  private List<Object> rw(long at, String key, String owner, String mode, String lane) {
    List<String> args = new ArrayList<>(ScriptCalls.acquire(owner, 30_000, mode, RETENTION, 10_000, 2000, false, "ch"));
    args.add(lane);
    args.add("");
    return list(evalAt(at, Scripts.READWRITE_ACQUIRE, List.of(key), args));
  }

  private List<Object> sem(long at, String key, String owner, String mode) {
    List<String> args = new ArrayList<>(ScriptCalls.acquire(owner, 30_000, mode, RETENTION, 10_000, 2000, false, "ch"));
    args.add("1");
    return list(evalAt(at, Scripts.SEMAPHORE_ACQUIRE, List.of(key), args));
  }

  /** Field {@code i} of a hold's value (1: token, 4: since, which is a reader's serial). */
  private long field(String holdKey, int i) {
    return Long.parseLong(server.execute("GET", holdKey).toString().split(" ")[i]);
  }

  /**
   * Exclusive lock: the release hands W the lock (token T = the clock), force_unlock ends that
   * grant, W rechecks; then another client takes the freed lock (the 'try' fast path, whose
   * swapped &lt; now_us_text must not reuse T) and W's 'wait' sent again is queued; then a
   * multi-lock takes it after another forced unlock. All in one microsecond, and again with the
   * clock stepped back. Every 'issued' must be at or above T.
   */
  @Test
  void exclusive_grantEndedInTheSameMicrosecond_isAtOrBelowIssued() {
    String key = "relock:{x}";
    long t = serverMicros();
    assertThat(acquire(t - 20, key, "c:holder", "try").get(0)).isEqualTo(1L);
    assertThat(acquire(t - 10, key, "d:w", "wait").get(0)).isEqualTo(0L);
    evalAt(t, Scripts.RELEASE, List.of(key), ScriptCalls.release("c:holder", true, false, RETENTION, null, false));
    StoredLock granted = StoredLock.read(server, key);
    assertThat(granted.owner()).isEqualTo("d:w");
    long tT = granted.token();
    assertThat(tT).isEqualTo(t);
    evalAt(t, Scripts.FORCE_UNLOCK, List.of(key), List.of(RETENTION, PREFIX)); // W's grant ends

    List<Object> recheck = acquire(t, key, "d:w", "recheck");
    assertThat(recheck.get(0)).isEqualTo(-3L);
    assertThat((Long) recheck.get(3)).isGreaterThanOrEqualTo(tT);
    List<Object> back = acquire(t - 1000, key, "d:w", "recheck");
    assertThat((Long) back.get(3)).isGreaterThanOrEqualTo(tT);

    List<Object> other = acquire(t, key, "e:x", "try"); // fast path, same microsecond
    assertThat(other.get(0)).isEqualTo(1L);
    assertThat((Long) other.get(1)).as("the fast path's token beside " + tT).isGreaterThan(tT);
    List<Object> again = acquire(t, key, "d:w", "wait"); // W's wait sent again: queued
    assertThat(again.get(0)).isEqualTo(0L);
    assertThat((Long) again.get(3)).isGreaterThanOrEqualTo(tT);

    // W gets it once more by hand-over, it is forced off again, a multi-lock takes the name, W rechecks.
    evalAt(t, Scripts.RELEASE, List.of(key), ScriptCalls.release("e:x", true, false, RETENTION, null, false));
    long t2 = StoredLock.read(server, key).token();
    assertThat(StoredLock.holder(server, key)).isEqualTo("d:w");
    evalAt(t, Scripts.FORCE_UNLOCK, List.of(key), List.of(RETENTION, PREFIX));
    List<Object> multi = list(evalAt(t, Scripts.MULTILOCK_ACQUIRE, List.of(key), List.of("30000", RETENTION, "f:m")));
    assertThat(multi.get(0)).isEqualTo(1L);
    assertThat((Long) multi.get(1)).isGreaterThan(t2);
    List<Object> last = acquire(t, key, "d:w", "recheck");
    assertThat((Long) last.get(3)).isGreaterThanOrEqualTo(t2);
  }

  /** Two grants in one microsecond (the second's token is fence + 1, above the clock). */
  @Test
  void exclusive_secondGrantOfAMicrosecond_endedThere_isAtOrBelowIssued() {
    String key = "relock:{x2}";
    long t = serverMicros();
    acquire(t - 30, key, "c:holder", "try");
    acquire(t - 20, key, "d:w1", "wait");
    acquire(t - 10, key, "d:w2", "wait");
    evalAt(t, Scripts.RELEASE, List.of(key), ScriptCalls.release("c:holder", true, false, RETENTION, null, false));
    assertThat(acquire(t, key, "d:w1", "abandon").get(0)).isEqualTo(-1L); // w1 hands it to w2
    StoredLock granted = StoredLock.read(server, key);
    assertThat(granted.owner()).isEqualTo("d:w2");
    assertThat(granted.token()).isEqualTo(t + 1);
    evalAt(t, Scripts.FORCE_UNLOCK, List.of(key), List.of(RETENTION, PREFIX));
    List<Object> recheck = acquire(t, key, "d:w2", "recheck");
    assertThat((Long) recheck.get(3)).isGreaterThanOrEqualTo(granted.token());
  }

  /**
   * Read-write lock: two readers granted together when the writer releases; the second joins the
   * first's epoch (token = the epoch's, serial one above). Both are forced off in the same
   * microsecond; the joined reader rechecks. Its serial (what the client compares) must be at or
   * below 'issued'.
   */
  @Test
  void readWrite_joinedReaderEndedInTheSameMicrosecond_serialAtOrBelowIssued() {
    String key = "relock:{rw}";
    long t = serverMicros();
    assertThat(rw(t - 30, key, "c:writer", "try", "w").get(0)).isEqualTo(1L);
    assertThat(rw(t - 20, key, "d:r1", "wait", "r").get(0)).isEqualTo(0L);
    assertThat(rw(t - 10, key, "d:r2", "wait", "r").get(0)).isEqualTo(0L);
    evalAt(t, Scripts.READWRITE_RELEASE, List.of(key), List.of("c:writer", "1", RETENTION, "", "w"));
    long token2 = field(key + ":h:d:r2", 1);
    long serial2 = field(key + ":h:d:r2", 4);
    assertThat(serial2).isGreaterThan(token2); // joined the epoch
    evalAt(t, Scripts.READWRITE_STATE, List.of(key), List.of("force", "r", RETENTION, PREFIX));
    List<Object> recheck = rw(t, key, "d:r2", "recheck", "r");
    assertThat(recheck.get(0)).isEqualTo(-3L);
    assertThat((Long) recheck.get(3)).isGreaterThanOrEqualTo(serial2);
    List<Object> back = rw(t - 1000, key, "d:r2", "recheck", "r");
    assertThat((Long) back.get(3)).isGreaterThanOrEqualTo(serial2);
    // A writer takes it in the same microsecond; the reader's wait sent again is queued.
    assertThat(rw(t, key, "e:writer", "try", "w").get(0)).isEqualTo(1L);
    List<Object> again = rw(t, key, "d:r2", "wait", "r");
    assertThat(again.get(0)).isEqualTo(0L);
    assertThat((Long) again.get(3)).isGreaterThanOrEqualTo(serial2);
  }

  /**
   * Semaphore of one permit: the release hands W the permit (token = the clock); the grant ends (its
   * hold key expires: the claim time run out, with the scripts' clock left where it was); W
   * rechecks; another client takes the permit by the fast path; W's wait sent again is queued by
   * the fast path (its own 'issued' expression).
   */
  @Test
  void semaphore_permitEndedInTheSameMicrosecond_isAtOrBelowIssued() {
    String key = "relock:{sem}";
    long t = serverMicros();
    assertThat(sem(t - 20, key, "c:holder", "try").get(0)).isEqualTo(1L);
    assertThat(sem(t - 10, key, "d:w", "wait").get(0)).isEqualTo(0L);
    evalAt(t, Scripts.SEMAPHORE_RELEASE, List.of(key), List.of("c:holder", "1", RETENTION, ""));
    long tT = field(key + ":h:d:w", 1);
    assertThat(tT).isEqualTo(t);
    server.execute("DEL", key + ":h:d:w"); // its hold expired (the claim time ran out)
    server.execute("ZREM", key + ":held", "d:w"); // as live_holders would once its score passed
    List<Object> recheck = sem(t, key, "d:w", "recheck");
    assertThat(recheck.get(0)).isEqualTo(-3L);
    assertThat((Long) recheck.get(3)).isGreaterThanOrEqualTo(tT);
    List<Object> other = sem(t, key, "e:x", "try");
    assertThat(other.get(0)).isEqualTo(1L);
    assertThat((Long) other.get(1)).isGreaterThan(tT);
    List<Object> again = sem(t, key, "d:w", "wait");
    assertThat(again.get(0)).isEqualTo(0L);
    assertThat((Long) again.get(3)).isGreaterThanOrEqualTo(tT);
  }

  /** A kind of lock as these tests drive it: its acquire script, its release, its grant's token. */
  private interface Kind {
    List<Object> acquire(long at, String key, String owner, String mode);

    void release(long at, String key, String owner);

    /** The token of the grant {@code owner} holds, or null if it holds none. */
    Long grantedToken(String key, String owner);
  }

  private final Kind exclusive = new Kind() {
    public List<Object> acquire(long at, String key, String owner, String mode) {
      return IssuedTest.this.acquire(at, key, owner, mode);
    }

    public void release(long at, String key, String owner) {
      evalAt(at, Scripts.RELEASE, List.of(key), ScriptCalls.release(owner, true, false, RETENTION, null, false));
    }

    public Long grantedToken(String key, String owner) {
      StoredLock lock = StoredLock.read(server, key);
      return lock != null && lock.owner().equals(owner) ? lock.token() : null;
    }
  };

  private final Kind semaphore = new Kind() {
    public List<Object> acquire(long at, String key, String owner, String mode) {
      return sem(at, key, owner, mode);
    }

    public void release(long at, String key, String owner) {
      evalAt(at, Scripts.SEMAPHORE_RELEASE, List.of(key), List.of(owner, "1", RETENTION, ""));
    }

    public Long grantedToken(String key, String owner) {
      StoredLock hold = StoredLock.of(server.execute("GET", key + ":h:" + owner));
      return hold == null ? null : hold.token();
    }
  };

  private final Kind writeLane = new Kind() {
    public List<Object> acquire(long at, String key, String owner, String mode) {
      return rw(at, key, owner, mode, "w");
    }

    public void release(long at, String key, String owner) {
      evalAt(at, Scripts.READWRITE_RELEASE, List.of(key), List.of(owner, "1", RETENTION, "", "w"));
    }

    public Long grantedToken(String key, String owner) {
      return semaphore.grantedToken(key, owner);
    }
  };

  /**
   * A queued waiter's recheck says up to which token grants to it have ended ('issued'); the
   * holder's release in the same microsecond then hands it the lock. That grant's token must be
   * above 'issued', or the waiter, hearing of the grant, takes it for one that had ended: it
   * ignores the lock Redis holds for it, or, holding it, reports it lost and gives it up. Found by
   * the model (no_false_end): 'issued' was the clock itself, which such a grant also gets.
   */
  private void aGrantInTheSameMicrosecondAsARecheck_isAboveItsIssued(Kind kind, String key) {
    long t = serverMicros();
    assertThat(kind.acquire(t - 20, key, "c:holder", "try").get(0)).isEqualTo(1L);
    assertThat(kind.acquire(t - 10, key, "d:waiter", "wait").get(0)).as("queued").isEqualTo(0L);

    List<Object> recheck = kind.acquire(t, key, "d:waiter", "recheck");
    assertThat(recheck.get(0)).as("still queued").isEqualTo(0L);
    long issued = (Long) recheck.get(3);
    kind.release(t, key, "c:holder");

    assertThat(kind.grantedToken(key, "d:waiter")).as("handed to the waiter; its token beside the recheck's issued "
        + issued).isNotNull().isGreaterThan(issued);
  }

  @Test
  void aGrantInTheSameMicrosecondAsARecheck_isAboveTheIssuedTheRecheckReported() {
    aGrantInTheSameMicrosecondAsARecheck_isAboveItsIssued(exclusive, "relock:{same-us}");
  }

  /** semaphore_acquire.lua has its own 'issued'. */
  @Test
  void aPermitGrantedInTheSameMicrosecondAsARecheck_isAboveTheIssuedTheRecheckReported() {
    aGrantInTheSameMicrosecondAsARecheck_isAboveItsIssued(semaphore, "relock:{sem-same-us}");
  }

  /** readwrite_acquire.lua has its own 'issued'. */
  @Test
  void aWriteHoldGrantedInTheSameMicrosecondAsARecheck_isAboveTheIssuedTheRecheckReported() {
    aGrantInTheSameMicrosecondAsARecheck_isAboveItsIssued(writeLane, "relock:{rw-same-us}");
  }
}

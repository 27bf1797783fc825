package io.relock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.LockLease;
import io.relock.Relock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Fencing tokens: strictly increasing per lock name, across restarts and lost counters (item 6). */
public abstract class FencingContract extends RelockContract {

  private static long acquireAndRelease(Relock relock, String name) {
    try (LockLease lease = relock.lock(name).acquire(PATIENCE)) {
      return lease.fencingToken();
    }
  }

  @Test
  void tokens_strictlyIncreaseAcrossOwnersAndClients() {
    Relock a = client();
    Relock b = client();
    long previous = 0;
    for (int i = 0; i < 50; i++) {
      long token = acquireAndRelease(i % 2 == 0 ? a : b, "fenced");
      assertThat(token).isGreaterThan(previous);
      previous = token;
    }
  }

  @Test
  void tokens_keepIncreasingAfterARedisRestartWithoutPersistence() {
    Relock relock = client();
    long before = acquireAndRelease(relock, "restarted");
    redis.restart();
    assertThat(redis("DBSIZE")).as("the restart lost every key, the fence counter too").isEqualTo(0L);
    await("the client reconnected", () -> {
      try {
        return acquireAndRelease(relock, "restarted") > before;
      } catch (RuntimeException notYet) {
        return false;
      }
    });
    long after = acquireAndRelease(relock, "restarted");
    assertThat(after).isGreaterThan(before);
  }

  @Test
  void tokens_keepIncreasingWhenTheFenceKeyIsLost() {
    Relock relock = client();
    long before = acquireAndRelease(relock, "lost-fence");
    redis("DEL", lockKey("lost-fence") + ":fence");
    assertThat(acquireAndRelease(relock, "lost-fence")).isGreaterThan(before);
  }

  @Test
  void tokens_stayAboveTheStoredCounterEvenIfItRunsAheadOfTheClock() {
    Relock relock = client();
    long ahead = serverMicros() + 1_000_000_000_000L;
    redis("SET", lockKey("ahead") + ":fence", Long.toString(ahead));
    assertThat(acquireAndRelease(relock, "ahead")).isEqualTo(ahead + 1);
    assertThat(acquireAndRelease(relock, "ahead")).isEqualTo(ahead + 2);
  }

  @Test
  void handedOffAcquisition_getsAFreshLargerToken() {
    Relock a = client();
    Relock b = client();
    LockLease first = a.lock("handoff-token").acquire(Duration.ZERO);
    var second = b.lock("handoff-token").acquireAsync(PATIENCE);
    await("the waiter is queued", () -> redis("ZCARD", lockKey("handoff-token") + ":q").equals(1L));
    first.close();
    LockLease next = second.join();
    assertThat(next.fencingToken()).isGreaterThan(first.fencingToken());
    assertThat(stored("handoff-token").token()).isEqualTo(next.fencingToken());
    next.close();
  }

  private long serverMicros() {
    @SuppressWarnings("unchecked")
    List<String> t = (List<String>) redis("TIME");
    return Long.parseLong(t.get(0)) * 1_000_000 + Long.parseLong(t.get(1));
  }
}

package io.relock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.LockLease;
import io.relock.LockTimeoutException;
import io.relock.Relock;
import io.relock.RelockException;
import io.relock.RelockListener;
import io.relock.RelockStats;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** What a client tells its {@link RelockListener}s and {@link Relock#stats()}, and {@link Relock#ping()}. */
public abstract class ListenerContract extends RelockContract {

  /** Every event, as one line each, in the order heard. */
  static final class Recorder implements RelockListener {
    final List<String> events = new CopyOnWriteArrayList<>();

    @Override
    public void acquired(String lockName, Duration waited) {
      events.add("acquired " + lockName);
    }

    @Override
    public void acquireFailed(String lockName, Duration waited, Throwable error) {
      events.add("failed " + lockName + " " + error.getClass().getSimpleName());
    }

    @Override
    public void released(String lockName, Duration held) {
      events.add("released " + lockName);
    }

    @Override
    public void leaseLost(String lockName, String reason) {
      events.add("lost " + lockName);
    }

    @Override
    public void renewed(int leases) {
      events.add("renewed " + leases);
    }

    @Override
    public void renewalFailed(int leases, Throwable error) {
      events.add("renewal failed " + leases);
    }

    @Override
    public void redisCall(String script, Duration took, Throwable error) {
      events.add("call " + script + (error == null ? "" : " failed"));
    }

    List<String> without(String prefix) {
      return events.stream().filter(e -> !e.startsWith(prefix)).toList();
    }
  }

  @Test
  void acquisitionsAndReleases_areHeard_andCounted() throws Exception {
    Relock relock = client();
    Recorder heard = new Recorder();
    relock.addListener(heard);
    assertThat(relock.stats()).isEqualTo(new RelockStats(0, 0, 0));

    LockLease lease = relock.lock("seen").acquire(Duration.ZERO);
    assertThat(relock.stats().holds()).isEqualTo(1);
    CompletableFuture<LockLease> waiting = relock.lock("seen").acquireAsync(Duration.ofSeconds(30));
    await("the second acquisition is under way", () -> relock.stats().acquiring() == 1);
    assertThatThrownBy(() -> relock.lock("seen").acquire(Duration.ofMillis(50)))
        .isInstanceOf(LockTimeoutException.class);
    lease.close();
    LockLease second = waiting.get();
    await("the second acquisition is counted as a hold", () -> relock.stats().equals(new RelockStats(1, 0, 0)));
    second.close();
    assertThat(relock.stats()).isEqualTo(new RelockStats(0, 0, 0));

    assertThat(heard.without("call ")).containsExactly("acquired seen", "failed seen LockTimeoutException",
        "released seen", "acquired seen", "released seen");
    assertThat(heard.events).contains("call acquire.lua", "call release.lua");
  }

  @Test
  void reentry_isHeardAsAnAcquisition_butHoldsCountTheThreadOnce() {
    Relock relock = client();
    Recorder heard = new Recorder();
    relock.addListener(heard);
    var lock = relock.lock("again");
    lock.lock();
    lock.lock();
    assertThat(relock.stats().holds()).isEqualTo(1);
    lock.unlock();
    assertThat(relock.stats().holds()).isEqualTo(1);
    lock.unlock();
    assertThat(relock.stats().holds()).isZero();
    assertThat(heard.without("call ")).containsExactly("acquired again", "acquired again", "released again");
  }

  @Test
  void renewalsAndALostLease_areHeard() {
    Relock relock = client(b -> b.defaultLease(Duration.ofMillis(600)));
    Recorder heard = new Recorder();
    relock.addListener(heard);
    LockLease lease = relock.lock("kept").acquire(Duration.ZERO);
    await("a renewal is heard", () -> heard.events.contains("renewed 1"));
    client().lock("kept").forceUnlock();
    await("the loss is heard", () -> heard.events.contains("lost kept"));
    assertThat(heard.events.stream().filter(e -> e.startsWith("lost ")).count()).as("once").isEqualTo(1);
    assertThatThrownBy(lease::close).isInstanceOf(io.relock.LockLostException.class);
  }

  @Test
  void aRenewalThatFails_isHeard_andItsLeaseCountsAsAtRisk_untilARenewalSucceeds() {
    Duration timeout = Duration.ofMillis(300);
    Relock relock = client(redis.uri(), new io.relock.spi.DriverSettings(timeout, Duration.ofSeconds(2), "relock-test"),
        b -> b.defaultLease(Duration.ofSeconds(3)).commandTimeout(timeout));
    Recorder heard = new Recorder();
    relock.addListener(heard);
    try (LockLease lease = relock.lock("at-risk").acquire(Duration.ZERO)) {
      pauseWrites(Duration.ofSeconds(20)); // a renewal reaches Redis and waits there past the command timeout
      await("a failed renewal is heard", () -> heard.events.contains("renewal failed 1"));
      // Still paused: the renewal is tried again meanwhile, and fails again, until Redis answers.
      await("the next tick counts the lease at risk", () -> relock.stats().leasesAtRisk() == 1);
      unpause();
      await("a later renewal succeeds", () -> heard.events.lastIndexOf("renewed 1")
          > heard.events.indexOf("renewal failed 1"));
      await("the tick after it counts none at risk", () -> relock.stats().leasesAtRisk() == 0);
      assertThat(lease.isValid()).isTrue();
    } finally {
      unpause();
    }
  }

  @Test
  void aListenerThatThrows_changesNothing() {
    Relock relock = client();
    relock.addListener(new RelockListener() {
      @Override
      public void acquired(String lockName, Duration waited) {
        throw new IllegalStateException("listener bug");
      }

      @Override
      public void redisCall(String script, Duration took, Throwable error) {
        throw new IllegalStateException("listener bug");
      }
    });
    Recorder heard = new Recorder();
    relock.addListener(heard);
    String[] logged = new String[1];
    logged[0] = stderrOf(() -> {
      try (LockLease lease = relock.lock("sturdy").acquire(Duration.ZERO)) {
        assertThat(lease.isValid()).isTrue();
      }
    });
    assertThat(heard.without("call ")).containsExactly("acquired sturdy", "released sturdy");
    assertThat(logged[0]).contains("RelockListener").contains("listener bug");
    assertThat(relock.lock("sturdy").isLocked()).isFalse();
  }

  @Test
  void aRemovedListener_hearsNothingMore() {
    Relock relock = client();
    Recorder heard = new Recorder();
    relock.addListener(heard);
    relock.lock("a").acquire(Duration.ZERO).close();
    relock.removeListener(heard);
    int before = heard.events.size();
    relock.lock("b").acquire(Duration.ZERO).close();
    assertThat(heard.events).hasSize(before);
  }

  @Test
  void ping_answersWhileRedisDoes_andFailsWithRelockExceptionWhenItDoesNot() {
    Relock relock = client(b -> b.commandTimeout(Duration.ofMillis(500)));
    assertThat(relock.ping()).isPositive();
    redis.stop();
    assertThatThrownBy(relock::ping).isInstanceOf(RelockException.class);
  }
}

package io.relock.torture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.LockLease;
import io.relock.LockLostException;
import io.relock.Relock;
import io.relock.RelockException;
import io.relock.contract.StoredLock;
import io.relock.testkit.RedisMasterGroup;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A focused reproduction of an unreported loss the torture suite found in {@code
 * redlock-restart-master} runs (fixed in relock-core's RedlockDriver): a hold on two masters of
 * three, one of which restarted without its data, so that the lock was left on one master; its
 * holder called {@code close()} while the restarted master and the third one were still
 * reconnecting. The release reached the one master that still had the lock, the other two
 * rejected it unsent, and the quorum reported that as a failure that may have freed the lock; the
 * engine then took the "not held" of its retry for the lost reply of a successful release, and
 * {@code close()} returned normally. Here the restart is a {@code DEL} on master 0 and
 * "reconnecting" a cut proxy, so that nothing depends on timing. The second test is the other
 * side: a release that frees the two masters of a live hold in two attempts is a release, not a
 * loss.
 */
class RedlockLostHoldReleaseTest {
  private static final Duration PATIENCE = Duration.ofSeconds(20);
  private static final String KEY = "relock:{ship}";

  private RedisMasterGroup masters;
  private Relock relock;

  @BeforeEach
  void start() {
    masters = RedisMasterGroup.start(3);
    relock = Relock.builder().redlock(masters.proxiedUris()).commandTimeout(Duration.ofSeconds(5)).build();
  }

  @AfterEach
  void stop() {
    relock.close();
    masters.close();
  }

  @Test
  void aHoldLeftOnOneMaster_isReportedLostAtClose_thoughTheOthersRejectedTheFirstReleaseUnsent() {
    LockLease lease = holdOnMasters0And1();
    masters.master(0).execute("DEL", KEY);  // master 0 forgot the hold: the lock is on master 1 alone
    masters.proxy(0).cut();
    masters.proxy(2).cut();
    awaitNotConnected(2);

    CompletableFuture<Void> closing = CompletableFuture.runAsync(lease::close);
    await("the release ran on master 1", () -> !held(1));
    masters.proxy(0).restore();
    masters.proxy(2).restore();

    assertThatThrownBy(() -> closing.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS))
        .as("close() of a hold left on one master of three").hasCauseInstanceOf(LockLostException.class);
  }

  @Test
  void aHoldFreedOnItsTwoMastersInTwoAttempts_isReleased() throws Exception {
    LockLease lease = holdOnMasters0And1();
    masters.proxy(0).cut();
    masters.proxy(2).cut();
    awaitNotConnected(2);

    CompletableFuture<Void> closing = CompletableFuture.runAsync(lease::close);
    await("the release ran on master 1", () -> !held(1));
    masters.proxy(0).restore();
    masters.proxy(2).restore();

    closing.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);  // no LockLostException: master 0 still had it
    await("master 0 is free too", () -> !held(0));
  }

  /**
   * A hold on masters 0 and 1 only (master 2 is held by someone else while it is granted), with a
   * fixed lease, so that no renewal can learn anything before close() does.
   */
  private LockLease holdOnMasters0And1() {
    StoredLock.plant(masters.master(2), KEY, "someone-else", 1, Duration.ofMinutes(1));
    LockLease lease = relock.lock("ship").acquire(Duration.ZERO, Duration.ofSeconds(20));
    masters.master(2).execute("DEL", KEY);
    assertThat(held(0) && held(1)).isTrue();
    return lease;
  }

  private boolean held(int master) {
    return Long.valueOf(1).equals(masters.master(master).execute("EXISTS", KEY));
  }

  /** Waits until the client has noticed that {@code n} masters are not connected (it then rejects calls to them unsent). */
  private void awaitNotConnected(int n) {
    await("the client finds " + n + " masters not connected", () -> {
      try {
        relock.lock("probe").tryAcquire(Duration.ZERO).ifPresent(LockLease::close);
        return false;
      } catch (RelockException e) {
        return String.valueOf(e.getMessage()).split("Currently not connected", -1).length == n + 1;
      }
    });
  }

  private static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out waiting until " + what);
      }
      java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
    }
  }
}

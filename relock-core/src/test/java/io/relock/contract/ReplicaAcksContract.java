package io.relock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.LockLease;
import io.relock.Relock;
import io.relock.RelockException;
import io.relock.testkit.RedisServer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code replicaAcks}: an acquisition counts only once replicas acknowledged it (Redis WAIT), on a
 * primary with one replica.
 */
public abstract class ReplicaAcksContract extends RelockContract {
  private static final Duration ACK_TIMEOUT = Duration.ofMillis(300);
  /** Under the default command timeout (3 s), which bounds the call that waits for the replica. */
  private static final Duration ACK_PATIENCE = Duration.ofSeconds(2);
  private RedisServer replica;

  @BeforeAll
  void startReplica() {
    replica = RedisServer.start();
    replica.execute("REPLICAOF", redis.host(), Integer.toString(redis.port()));
  }

  @AfterAll
  void stopReplica() {
    replica.close();
  }

  @BeforeEach
  void replicaInSync() {
    if (!replica.isRunning()) {
      replica.restart();
      replica.execute("REPLICAOF", redis.host(), Integer.toString(redis.port()));
    }
    replica.resume();
    await("the replica is in sync", () -> String.valueOf(replica.execute("INFO", "replication"))
        .contains("master_link_status:up"));
  }

  /** A client that waits {@link #ACK_TIMEOUT} for the replica: for tests in which it is paused. */
  private Relock acked() {
    return client(b -> b.replicaAcks(1, ACK_TIMEOUT));
  }

  /**
   * A client that waits for the replica as long as it can: for tests in which it runs (a busy
   * machine can hold a replica's acknowledgement beyond {@link #ACK_TIMEOUT}).
   */
  private Relock ackedPatiently() {
    return client(b -> b.replicaAcks(1, ACK_PATIENCE));
  }

  @Test
  void acquisition_returnsOnlyAfterTheReplicaAcknowledgedIt() {
    Relock relock = ackedPatiently();
    try (LockLease lease = relock.lock("acked").acquire(PATIENCE)) {
      assertThat(commandCalls("wait")).as("WAIT calls on the primary").isEqualTo(1);
      assertThat(StoredLock.read(replica, lockKey("acked")).token())
          .as("the replica has the hold and its token when acquire returns")
          .isEqualTo(lease.fencingToken());
    }
  }

  @Test
  void acquisition_thatNoReplicaAcknowledges_failsAndLeavesTheLockFree() {
    Relock relock = acked();
    replica.pause();
    try {
      assertThatThrownBy(() -> relock.lock("unacked").acquire(PATIENCE))
          .isInstanceOf(RelockException.class)
          .hasMessageContaining("lock 'unacked'")
          .hasMessageContaining("only 0 of 1 replicas acknowledged it within " + ACK_TIMEOUT);
      awaitNothingLeftOf("unacked");
      assertThat(relock.lock("unacked").isLocked()).isFalse();
    } finally {
      replica.resume();
    }
  }

  @Test
  void zeroWaitAttempt_thatNoReplicaAcknowledges_failsAndLeavesTheLockFree() {
    Relock relock = acked();
    replica.pause();
    try {
      assertThatThrownBy(() -> relock.lock("unacked-try").tryAcquire(Duration.ZERO))
          .isInstanceOf(RelockException.class)
          .hasMessageContaining("replicas acknowledged");
      awaitNothingLeftOf("unacked-try");
    } finally {
      replica.resume();
    }
  }

  @Test
  void multiLockTakenInOneCall_returnsOnlyAfterTheReplicaAcknowledgedEveryLock() {
    Relock relock = ackedPatiently();
    relock.multiLock("warm-a", "warm-b").acquire(PATIENCE).close(); // Redis loads the script (NOSCRIPT, retried)
    redis("CONFIG", "RESETSTAT");
    try (LockLease both = relock.multiLock("acked-a", "acked-b").acquire(PATIENCE)) {
      assertThat(commandCalls("wait")).as("one WAIT, after the one call that took both").isEqualTo(1);
      for (String name : java.util.List.of("acked-a", "acked-b")) {
        assertThat(StoredLock.read(replica, lockKey(name)).token()).as(name).isEqualTo(both.fencingTokens().get(name));
      }
    }
  }

  @Test
  void multiLockThatNoReplicaAcknowledges_failsAndLeavesEveryLockFree() {
    Relock relock = acked();
    replica.pause();
    try {
      assertThatThrownBy(() -> relock.multiLock("unacked-a", "unacked-b").tryAcquire(Duration.ZERO))
          .isInstanceOf(RelockException.class)
          .hasMessageContaining("replicas acknowledged");
      awaitNothingLeftOf("unacked-a");
      awaitNothingLeftOf("unacked-b");
    } finally {
      replica.resume();
    }
  }

  @Test
  void handedOverLock_countsOnlyOnceTheReplicaAcknowledgedIt() throws Exception {
    Relock holder = client();
    Relock waiter = ackedPatiently();
    LockLease held = holder.lock("handed").acquire(PATIENCE);
    CompletableFuture<LockLease> waiting = waiter.lock("handed").acquireAsync(PATIENCE);
    await("the waiter is queued", () -> redis("ZCARD", lockKey("handed") + ":q").equals(1L));
    held.close();
    try (LockLease lease = waiting.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
      assertThat(lease.isValid()).isTrue();
      assertThat(StoredLock.read(replica, lockKey("handed")).token()).isEqualTo(lease.fencingToken());
    }
  }

  @Test
  void handedOverLock_thatNoReplicaAcknowledges_failsTheWaiterAndIsReleased() throws Exception {
    Relock holder = client();
    Relock waiter = acked();
    LockLease held = holder.lock("handed-unacked").acquire(PATIENCE);
    CompletableFuture<LockLease> waiting = waiter.lock("handed-unacked").acquireAsync(PATIENCE);
    await("the waiter is queued", () -> redis("ZCARD", lockKey("handed-unacked") + ":q").equals(1L));
    replica.pause();
    try {
      held.close(); // grants the lock to the waiter, which must not count it
      assertThatThrownBy(() -> waiting.get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause().isInstanceOf(RelockException.class)
          .hasMessageContaining("replicas acknowledged");
      awaitNothingLeftOf("handed-unacked");
    } finally {
      replica.resume();
    }
  }

  /**
   * Acknowledged calls share a connection and queue behind each other's WAIT; one that times out
   * on the client may still run later and take its lock. Its withdrawal must come after it.
   */
  @Test
  void acquisitionsThatTimeOutQueuedBehindWaits_leaveNoLockBehind() throws Exception {
    io.relock.spi.DriverSettings oneSecond =
        new io.relock.spi.DriverSettings(Duration.ofSeconds(1), Duration.ofSeconds(2), "relock-test");
    Relock relock = client(redis.uri(), oneSecond, b -> b.commandTimeout(Duration.ofSeconds(1))
        .replicaAcks(1, ACK_TIMEOUT).defaultLease(Duration.ofSeconds(60)));
    replica.pause();
    try {
      java.util.List<CompletableFuture<LockLease>> attempts = new java.util.ArrayList<>();
      for (int i = 0; i < 8; i++) {
        attempts.add(relock.lock("queued-" + i).acquireAsync(Duration.ofSeconds(1)));
      }
      for (CompletableFuture<LockLease> attempt : attempts) {
        assertThatThrownBy(() -> attempt.get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
            .isInstanceOf(ExecutionException.class)
            .cause().isInstanceOf(RelockException.class);
      }
    } finally {
      replica.resume();
    }
    for (int i = 0; i < 8; i++) {
      awaitNothingLeftOf("queued-" + i); // a lock taken late and left behind would stay for 60 s
    }
  }

  @Test
  void withoutReplicaAcks_noWaitIsSent() {
    Relock relock = client();
    try (LockLease lease = relock.lock("plain").acquire(PATIENCE)) {
      assertThat(lease.isValid()).isTrue();
    }
    assertThat(commandCalls("wait")).isZero();
  }
}

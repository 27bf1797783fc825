package io.relock.integration;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.Relock;
import io.relock.testkit.JvmProcess;
import io.relock.testkit.RedisExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/** Spring Integration's LockRegistryLeaderInitiator on RelockLockRegistry, in two processes. */
class LeaderElectionTest {
  @RegisterExtension static final RedisExtension redis = new RedisExtension();
  private static final Duration PATIENCE = Duration.ofSeconds(60);
  /** The clients' default lease: how long a dead leader's lock outlives it, at most. */
  private static final Duration LEASE = Duration.ofSeconds(2);
  private static final List<String> FAST_START = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

  /** An initiator as both processes run it: the default heartbeat and busy wait, shortened a little. */
  static LockRegistryLeaderInitiator initiator(RelockLockRegistry registry, Candidate candidate) {
    LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry, candidate);
    initiator.setHeartBeatMillis(200);
    initiator.setBusyWaitMillis(100);
    return initiator;
  }

  @Test
  void twoInstances_electOneLeader_andWhenItsProcessDies_theOtherLeadsWithinTheLease() throws Exception {
    CountDownLatch granted = new CountDownLatch(1);
    try (JvmProcess leader = JvmProcess.start(FAST_START, LeaderMain.class, redis.server().uri(), LEASE.toString());
        Relock relock = Relock.builder().uri(redis.server().uri()).defaultLease(LEASE).build()) {
      leader.awaitLine("granted"::equals, PATIENCE);
      LockRegistryLeaderInitiator here = initiator(new RelockLockRegistry(relock), new DefaultCandidate("here", "cluster") {
        @Override
        public void onGranted(Context ctx) {
          granted.countDown();
        }
      });
      here.start();
      try {
        // Several heartbeats of both: the second instance stays a follower while the leader lives.
        assertThat(granted.await(1500, TimeUnit.MILLISECONDS)).as("a second leader").isFalse();
        assertThat(here.getContext().isLeader()).isFalse();
        long killed = System.nanoTime();
        leader.kill9();
        assertThat(granted.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).as("taken over").isTrue();
        Duration tookOver = Duration.ofNanos(System.nanoTime() - killed);
        System.out.println("the follower led " + tookOver.toMillis() + " ms after the leader's kill -9 (lease " + LEASE + ")");
        // Within the lease, plus a heartbeat and a recheck interval for the follower to look again.
        assertThat(tookOver).as("took over after " + tookOver).isLessThan(LEASE.plusSeconds(3));
        assertThat(here.getContext().isLeader()).isTrue();
      } finally {
        here.stop();
      }
      assertThat(leader.output()).doesNotContain("revoked");
    }
  }
}

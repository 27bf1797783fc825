package io.relock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.LockLease;
import io.relock.Relock;
import io.relock.testkit.JvmProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Holders in separate JVM processes: exclusion, kill -9, SIGSTOP past the lease. */
public abstract class MultiProcessContract extends RelockContract {

  @Test
  void holdersInSeveralProcesses_neverOverlap_checkedThroughFencingTokens() {
    int processes = 3;
    int rounds = 150;
    List<JvmProcess> workers = new ArrayList<>();
    try {
      for (int i = 0; i < processes; i++) {
        workers.add(JvmProcess.start(LockWorker.class, "count", redis.uri(), "shared", Integer.toString(rounds)));
      }
      TreeMap<Long, Long> tokenByCount = new TreeMap<>();
      for (JvmProcess w : workers) {
        assertThat(w.waitFor(Duration.ofMinutes(2))).as("worker exit code; output %s", w.output()).isZero();
        for (String line : w.output()) {
          if (line.startsWith("ENTRY ")) {
            String[] p = line.split(" ");
            Long clash = tokenByCount.put(Long.parseLong(p[1]), Long.parseLong(p[2]));
            assertThat(clash).as("two holders read counter value %s", p[1]).isNull();
          }
        }
      }
      assertThat(tokenByCount).hasSize(processes * rounds);
      assertThat(tokenByCount.firstKey()).isZero();
      assertThat(tokenByCount.lastKey()).isEqualTo(processes * rounds - 1L);
      assertThat(redis("GET", "shared-counter")).isEqualTo(Integer.toString(processes * rounds));
      long previous = 0;
      for (long token : tokenByCount.values()) {
        assertThat(token).as("tokens follow the order of the critical sections").isGreaterThan(previous);
        previous = token;
      }
    } finally {
      workers.forEach(JvmProcess::close);
    }
  }

  @Test
  void holderKilledWithSigkill_freesTheLockWithinItsLeasePlusOneSecond() {
    long leaseMs = 2000;
    try (JvmProcess holder = JvmProcess.start(LockWorker.class, "hold", redis.uri(), "killed", Long.toString(leaseMs))) {
      holder.awaitLine(l -> l.startsWith("HELD"), PATIENCE);
      holder.kill9();
      Relock relock = client();
      try (LockLease lease = relock.lock("killed").acquire(Duration.ofMillis(leaseMs + 1000))) {
        assertThat(lease.isValid()).isTrue();
      }
    }
  }

  @Test
  void holderPausedPastItsLease_isToldAfterResuming_andItsReleaseSparesTheNewOwner() {
    long leaseMs = 1000;
    try (JvmProcess holder = JvmProcess.start(LockWorker.class, "hold", redis.uri(), "paused", Long.toString(leaseMs))) {
      String held = holder.awaitLine(l -> l.startsWith("HELD"), PATIENCE);
      long oldToken = Long.parseLong(held.split(" ")[1]);
      holder.pause();
      Relock relock = client();
      LockLease mine;
      try {
        mine = relock.lock("paused").acquire(PATIENCE);
      } finally {
        holder.resume();
      }
      assertThat(mine.fencingToken()).isGreaterThan(oldToken);
      holder.awaitLine(l -> l.equals("LOST"), PATIENCE);
      holder.awaitLine(l -> l.startsWith("CLOSE"), PATIENCE);
      assertThat(holder.output()).contains("CLOSE io.relock.LockLostException");
      assertThat(holderInRedis("paused")).startsWith(relock.clientId());
      assertThat(mine.isValid()).isTrue();
      mine.close();
    }
  }
}

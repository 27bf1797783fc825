package io.relock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.LockLease;
import io.relock.Relock;
import io.relock.testkit.JvmProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A semaphore's and a read-write lock's holders in separate JVM processes: exclusion, kill -9, SIGSTOP. */
public abstract class FamilyMultiProcessContract extends RelockContract {

  private List<String> run(int processes, String... args) {
    List<JvmProcess> workers = new ArrayList<>();
    List<String> lines = new ArrayList<>();
    try {
      for (int i = 0; i < processes; i++) {
        workers.add(JvmProcess.start(LockWorker.class, args));
      }
      for (JvmProcess w : workers) {
        assertThat(w.waitFor(Duration.ofMinutes(2))).as("worker exit code; output %s", w.output()).isZero();
        lines.addAll(w.output());
      }
      return lines;
    } finally {
      workers.forEach(JvmProcess::close);
    }
  }

  @Test
  void permitHoldersInSeveralProcesses_neverExceedThePermits_andEachPermitHasItsOwnToken() {
    List<String> lines = run(3, "permits", redis.uri(), "pool", "2", "40");
    long most = 0;
    Set<Long> tokens = new HashSet<>();
    for (String line : lines) {
      if (line.startsWith("INSIDE ")) {
        String[] p = line.split(" ");
        most = Math.max(most, Long.parseLong(p[1]));
        assertThat(tokens.add(Long.parseLong(p[2]))).as("token %s issued twice", p[2]).isTrue();
      }
    }
    assertThat(tokens).hasSize(3 * 40);
    assertThat(most).as("holders inside at once").isLessThanOrEqualTo(2);
    assertThat(redis("GET", "pool-inside")).isEqualTo("0");
  }

  @Test
  void readersAndWritersInSeveralProcesses_neverMeet_andWriteTokensRise() {
    List<String> lines = run(3, "readwrite", redis.uri(), "doc", "60");
    int reads = 0;
    int writes = 0;
    for (String line : lines) {
      String[] p = line.split(" ");
      if (p[0].equals("READ")) {
        reads++;
        assertThat(p[1]).as("writers inside during a read").isIn("0", "null");
      } else if (p[0].equals("WRITE")) {
        writes++;
        assertThat(p[1]).as("readers inside during a write").isIn("0", "null");
        assertThat(p[2]).as("writers inside during a write").isEqualTo("1");
      }
    }
    assertThat(reads + writes).isEqualTo(3 * 60);
    assertThat(writes).as("the mix wrote at all").isPositive();
  }

  @Test
  void aPermitHolderKilledWithSigkill_givesItsPermitBackWithinItsLeasePlusOneSecond() {
    long leaseMs = 2000;
    try (JvmProcess holder = JvmProcess.start(LockWorker.class, "permit", redis.uri(), "killed", "1",
        Long.toString(leaseMs))) {
      holder.awaitLine(l -> l.startsWith("HELD"), PATIENCE);
      holder.kill9();
      try (LockLease lease = client().semaphore("killed", 1).acquire(Duration.ofMillis(leaseMs + 1000))) {
        assertThat(lease.isValid()).isTrue();
      }
    }
  }

  @Test
  void aPermitHolderPausedPastItsLease_isToldAfterResuming_andTheNewHolderKeepsItsPermit() {
    long leaseMs = 1000;
    try (JvmProcess holder = JvmProcess.start(LockWorker.class, "permit", redis.uri(), "paused", "1",
        Long.toString(leaseMs))) {
      long oldToken = Long.parseLong(holder.awaitLine(l -> l.startsWith("HELD"), PATIENCE).split(" ")[1]);
      holder.pause();
      Relock relock = client();
      LockLease mine;
      try {
        mine = relock.semaphore("paused", 1).acquire(PATIENCE);
      } finally {
        holder.resume();
      }
      assertThat(mine.fencingToken()).isGreaterThan(oldToken);
      holder.awaitLine(l -> l.startsWith("CLOSE"), PATIENCE);
      assertThat(holder.output()).contains("LOST", "CLOSE io.relock.LockLostException");
      assertThat(mine.isValid()).isTrue();
      assertThat(relock.semaphore("paused", 1).availablePermits()).isZero();
      mine.close();
    }
  }
}

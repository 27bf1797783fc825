package io.relock.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.Relock;
import io.relock.testkit.JvmProcess;
import io.relock.testkit.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** ShedLock jobs in several processes, each with its own relock client, on one Redis. */
class SchedulerLockProcessesTest {
  @RegisterExtension static final RedisExtension redis = new RedisExtension();
  private static final Duration PATIENCE = Duration.ofSeconds(60);
  /** Short-lived children start sooner without the optimising compiler. */
  private static final List<String> FAST_START = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

  @Test
  void oneSchedulerLockJob_inTwoProcesses_runsOncePerTick_withGrowingTokens() {
    try (JvmProcess a = JvmProcess.start(FAST_START, ScheduledJobMain.class, redis.server().uri());
        JvmProcess b = JvmProcess.start(FAST_START, ScheduledJobMain.class, redis.server().uri())) {
      a.awaitLine("ready"::equals, PATIENCE);
      b.awaitLine("ready"::equals, PATIENCE);
      // Three ticks with both processes up (every two seconds).
      waitForRuns(a, b, countRuns(a) + countRuns(b) + 3);
      Map<Long, Integer> perTick = new HashMap<>();
      List<long[]> runs = new ArrayList<>();
      for (JvmProcess p : List.of(a, b)) {
        for (String line : p.output()) {
          if (line.startsWith("ran ")) {
            String[] f = line.split(" ");
            long tick = Long.parseLong(f[1]);
            perTick.merge(tick, 1, Integer::sum);
            runs.add(new long[] {tick, Long.parseLong(f[2])});
          }
        }
      }
      assertThat(perTick.values()).as("runs per tick, both processes together: " + perTick).allMatch(n -> n == 1);
      runs.sort((x, y) -> Long.compare(x[0], y[0]));
      for (int i = 1; i < runs.size(); i++) {
        assertThat(runs.get(i)[1]).as("fencing tokens follow the ticks").isGreaterThan(runs.get(i - 1)[1]);
      }
    }
  }

  @Test
  void lockAtMostFor_endsTheLockOfAProcessThatDied() throws Exception {
    try (JvmProcess holder = JvmProcess.start(FAST_START, HolderMain.class, redis.server().uri(), "crashed", "PT3S");
        Relock relock = Relock.connect(redis.server().uri())) {
      holder.awaitLine("locked"::equals, PATIENCE);
      holder.kill9();
      RelockLockProvider provider = new RelockLockProvider(relock);
      LockConfiguration config = new LockConfiguration(ClockProvider.now(), "crashed", Duration.ofSeconds(10),
          Duration.ZERO);
      assertThat(provider.lock(config)).as("still held by the dead process").isEmpty();
      long deadline = System.nanoTime() + PATIENCE.toNanos();
      while (provider.lock(config).map(l -> {
        l.unlock();
        return false;
      }).orElse(true)) {
        assertThat(System.nanoTime() - deadline).as("lockAtMostFor ended the lock").isNegative();
        Thread.sleep(50);
      }
    }
  }

  private static void waitForRuns(JvmProcess a, JvmProcess b, long n) {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (countRuns(a) + countRuns(b) < n) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("the job did not run " + n + " times in " + PATIENCE + ": " + a.output() + " "
            + b.output());
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  private static long countRuns(JvmProcess p) {
    return p.output().stream().filter(l -> l.startsWith("ran ")).count();
  }

  /** A child JVM that takes one ShedLock lock for lockAtMostFor (its args: URI, name, ISO duration) and waits. */
  public static final class HolderMain {
    private HolderMain() {}

    public static void main(String[] args) throws Exception {
      Relock relock = Relock.connect(args[0]);
      LockConfiguration config = new LockConfiguration(ClockProvider.now(), args[1], Duration.parse(args[2]),
          Duration.ZERO);
      new RelockLockProvider(relock).lock(config).orElseThrow();
      System.out.println("locked");
      System.out.flush();
      Thread.sleep(Long.MAX_VALUE);
    }
  }
}

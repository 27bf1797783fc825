package io.relock.stress;

import io.relock.Relock;
import io.relock.testkit.RedisMasterGroup;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The randomized stress suite ({@link StressRun}) on Redlock over three masters: every entry point
 * under random interrupts, cancellations and client closes, while the faults (pauses past the
 * per-node timeout, script flushes, killed connections) hit one master at a time. Each checkpoint
 * looks at every master. Run by each driver module, through the driver on its class path.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class RedlockStressContract {
  private RedisMasterGroup masters;

  @BeforeAll
  void startMasters() {
    masters = RedisMasterGroup.start(3);
  }

  @AfterAll
  void stopMasters() {
    masters.close();
  }

  @Test
  void randomMixOfEveryEntryPoint_onRedlock_underFaults_leavesNothingBehind() {
    StressSettings settings = StressSettings.fromSystemProperties();
    StressRun run = new StressRun(settings, masters.masters(), () -> Relock.builder()
        .redlock(masters.uris())
        .commandTimeout(settings.commandTimeout())
        .defaultLease(StressRun.LEASE)
        .redlockRestartDelay(StressRun.LEASE.multipliedBy(2))
        .build(), false);
    StressContract.runAndCheck(run);
  }
}

package io.relock.stress;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.Relock;
import io.relock.contract.RelockContract;
import io.relock.spi.DriverSettings;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The randomized stress suite (see {@link StressRun}), run by each driver module. Short by default
 * so that {@code ./mvnw verify} runs it; longer on demand through the system properties of {@link
 * StressSettings}, for example:
 *
 * <pre>
 * ./mvnw -pl relock-lettuce -am verify -Dtest=LettuceStressTest -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Drelock.stress.rounds=100 -Drelock.stress.seed=7
 * </pre>
 */
public abstract class StressContract extends RelockContract {

  @Test
  void randomMixOfEveryEntryPoint_underFaults_leavesNothingBehind() {
    StressSettings settings = StressSettings.fromSystemProperties();
    DriverSettings driver = new DriverSettings(settings.commandTimeout(), Duration.ofSeconds(2), "relock-stress");
    StressRun run = new StressRun(settings, List.of(redis), () -> Relock.builder()
        .driver(connectDriver(redis.uri(), driver))
        .commandTimeout(settings.commandTimeout())
        .defaultLease(StressRun.LEASE)
        .build(), true);
    runAndCheck(run);
  }

  @Test
  void randomMixOfEveryEntryPoint_overASimulatedLossyNetwork_leavesNothingBehind() {
    StressSettings settings = StressSettings.fromSystemProperties();
    DriverSettings driver = new DriverSettings(settings.commandTimeout(), Duration.ofSeconds(2), "relock-stress");
    SimulatedNetwork.Faults faults = SimulatedNetwork.Faults.forStress(settings.commandTimeout());
    java.util.concurrent.atomic.AtomicLong clientNumber = new java.util.concurrent.atomic.AtomicLong();
    StressRun[] run = new StressRun[1];
    run[0] = new StressRun(settings, List.of(redis), () -> Relock.builder()
        // Each client's network draws from a seed of its own, derived from the run's.
        .driver(new SimulatedNetwork(connectDriver(redis.uri(), driver), settings.commandTimeout(), faults,
            settings.seed() * 1_000_003 + clientNumber.incrementAndGet(), what -> run[0].log().count(what)))
        .commandTimeout(settings.commandTimeout())
        .defaultLease(StressRun.LEASE)
        .build(), true, true);
    runAndCheck(run[0]);
  }

  /** Runs {@code run} and fails on any violation, printing the report either way. */
  static void runAndCheck(StressRun run) {
    StressSettings settings = run.settings();
    StressLog log = run.run();
    String report = log.report(settings);
    System.out.println(report);
    assertThat(log.total("checkpoint: ")).as("checkpoints reached").isEqualTo(settings.rounds() + 1L);
    assertThat(log.total("")).as("operations run").isGreaterThan(settings.rounds() * 100L);
    assertThat(log.violations()).as(report).isEmpty();
  }
}

package io.relock.torture;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole machine, small: real redis-servers, two worker JVMs, the nemesis and the checker, for a
 * fault-free run and a run that pauses lock holders past their lease, side by side. Well under a minute.
 */
class TortureSmokeTest {

  @Test
  void faultFreeRun_andPauseRun_behaveAsClaimed(@TempDir Path out) {
    TortureSettings settings = TortureSettings.shortRun().withRunLength(Duration.ofSeconds(7), Duration.ofSeconds(7));
    List<TortureRun.Plan> plans = TortureMain.plans(settings, 11, List.of("none", "pause-holder"));
    // Side by side, as ./relock torture --short runs them.
    List<RunResult> results = new TortureSuite(settings, out, System.out, 2).run(plans);
    Map<String, RunResult> byName = results.stream().collect(Collectors.toMap(RunResult::run, r -> r));

    RunResult none = byName.get("none");
    assertThat(none.holds()).as("locks were taken").isGreaterThan(20);
    assertThat(none.overlaps().pairs()).as("(a) without faults").isZero();
    assertThat(none.failures()).isEmpty();

    RunResult pause = byName.get("pause-holder");
    assertThat(pause.faultsDone()).as("holders were paused").isNotEmpty();
    assertThat(pause.overlaps().pairs()).as("a holder paused past its lease overlaps the next").isPositive();
    assertThat(pause.losses().lost()).as("and lost its lease").isPositive();
    assertThat(pause.fencing().violations()).as("(b)").isZero();
    assertThat(pause.losses().lostAtClose()).as("(c) close() threw LockLostException for every lost hold")
        .isEqualTo(pause.losses().lost());
    assertThat(pause.updates().lost()).as("(e)").isZero();
    assertThat(pause.updates().acknowledged()).isPositive();
    // Not asserted here: that onLost ran for every lease relock had itself judged expired. It does
    // not always (LockLease.close() can win the race against the expiry check); the suite counts
    // those as unreported losses and docs/safety.md describes the defect.
  }
}

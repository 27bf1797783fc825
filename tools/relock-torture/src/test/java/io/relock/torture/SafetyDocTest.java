package io.relock.torture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SafetyDocTest {

  private static final FailoverCheck.Result NO_FAILOVER = new FailoverCheck.Result(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
      0, 0, 0, List.of());

  /** A run whose checks found {@code k} overlapping pairs, {@code 10 k} stale operations refused, and so on. */
  private static RunResult run(String name, Fault fault, Topology topology, int acks, Workload workload, int k,
      FailoverCheck.Result failover) {
    return new RunResult(name, fault, List.of(fault.id + " at 2 s"), 100 * k, 0, 0, List.of(),
        new OverlapCheck.Result(k, 0, List.of("expected overlap " + k)), new FencingCheck.Result(0, 0, 0, 10 * k,
        List.of()), new LossCheck.Result(k, k, 0, 0, 0, List.of()), new StuckLockCheck.Result(1, 900, 0, 0, 1,
        List.of()), new UpdateCheck.Result(50L * k, 50L * k, 0, 0, 0, List.of()), topology, acks, failover,
        RedlockCheck.Result.NONE, null, workload);
  }

  private static String write(List<RunResult> results, Path dir) throws IOException {
    TortureSettings s = TortureSettings.shortRun();
    Path doc = SafetyDoc.write(dir, results, s, s.forSentinel(true), s.forCluster(true), s.forRedlock(true), 7L,
        "./relock torture --short --write-docs", Duration.ofSeconds(90), SummaryTable.summaryLine(results));
    return Files.readString(doc, StandardCharsets.UTF_8);
  }

  @Test
  void aRun_fillsInTheFiguresOfEachTopologyAndKindOfLockItHad(@TempDir Path dir) throws IOException {
    String page = write(List.of(
        run("none", Fault.NONE, Topology.SINGLE, 0, Workload.EXCLUSIVE, 1, NO_FAILOVER),
        run("failover-hole", Fault.FAILOVER_HOLE, Topology.SENTINEL, 0, Workload.EXCLUSIVE, 2,
            new FailoverCheck.Result(2, 1, 3000, 5000, 1, 1, 1, 0, 0, 0, 0, 2, 0, 0, List.of())),
        run("sem", Fault.KILL_HOLDER, Topology.SINGLE, 0, Workload.SEMAPHORE, 3, NO_FAILOVER)), dir);
    assertThat(page).startsWith("# Safety: what relock guarantees, and what it does not\n")
        .contains("Command: `./relock torture --short --write-docs` (seed 7), ", ", 1.5 minutes, relock ")
        .contains("Settings: 2 worker processes x 2 threads, locks [torture-a, torture-b], lease 1500 ms",
            " Sentinel runs: a primary, one replica and three sentinels")
        .contains("- **failover-hole** (" + Fault.FAILOVER_HOLE.description + "): failover-hole at 2 s\n")
        .contains("- none: expected overlap 1\n")
        .contains("1 Sentinel runs (`failover-hole`): the nemesis killed the primary 2 times, 1 of them right after"
            + " cutting replication. The sentinels agreed on the promoted replica 2.5 s on average after the kill"
            + " (longest 3000 ms).\n\n**Without replicaAcks** the hole erased 1 hold: ")
        .contains("The hole also erased 1 release: ", "these runs had 2 overlapping pairs of holds (2 in failover-hole"
            + " runs) and the fenced counter refused 20 stale operations.\n\nAcross the Sentinel runs:")
        .contains("This run did not include the Cluster topology", "This run did not include the Redlock topology")
        .contains("**Semaphore of 3 permits** (`sem`): 300 holds in 1 runs, 1 faults injected. 3 grants while 3"
            + " others still acted (3 in kill-holder runs)")
        .doesNotContain("{{", "Read-write lock** (");
  }

  @Test
  void withoutOtherTopologiesOrTheFamily_thePageSaysSo(@TempDir Path dir) throws IOException {
    String page = write(List.of(run("none", Fault.NONE, Topology.SINGLE, 0, Workload.EXCLUSIVE, 1, NO_FAILOVER)), dir);
    assertThat(page).contains("This run did not include the Sentinel topology (`./relock torture --topology sentinel`,"
        + " or `all`), so it has no failover numbers.", "This run did not include the lock family's runs")
        .doesNotContain("Sentinel runs:");
  }
}

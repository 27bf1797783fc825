package io.relock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ResultsTest {

  private static final BenchSettings SETTINGS = BenchSettings.full();
  private static final Machine MACHINE = new Machine(2, "cpu", 1L << 30, "os", "jvm", "7.0.15", "loopback", "-", "abc");

  /**
   * relock holding {@code locks} locks for 60 s with a tick every 10 s, {@code evalsha} calls in
   * all; its quiet window saw {@code perTick} calls per tick and {@code stall}.
   */
  private static HeldRow held(int locks, long evalsha, double perTick, StallSample stall) {
    RedisInfo.Delta redis = new RedisInfo.Delta(Map.of("evalsha", evalsha, "pexpire", 10L * locks, "info", 2L), 0.25);
    BenchRedis.QuietWindow quiet = new BenchRedis.QuietWindow(stall, redis, new RenewalTicks((long) (2 * perTick), 2,
        perTick), 20.5);
    return new HeldRow(Implementation.RELOCK, locks, 60, 10, 1.5, redis, 0.75, 8_000_000, 3_000_000, 100L * locks,
        locks, locks, CallSplit.none(), quiet, null);
  }

  private static HeldRow held(long evalsha, StallSample stall) {
    return held(SETTINGS.heldLocks(), evalsha, evalsha / 6.0, stall);
  }

  private static Results results(HeldRow... held) {
    return new Results(SETTINGS, MACHINE, List.of(), List.of(held), 100, "0.1");
  }

  private static Results.Target target(Results results, String what) {
    return results.targets().stream().filter(t -> t.what().contains(what)).findFirst().orElseThrow();
  }

  @Test
  void heldTargets_capTheWorstStallAtHalfAMillisecond_andCallsPerTickAtOnePerHundredLocks() {
    Results fine = results(held(10_000, 600, 100, StallSample.fromSlowlog(List.of(
        List.of(1L, 0L, 480L, List.of("evalsha")), List.of(2L, 0L, 500L, List.of("evalsha"))), 20.5)),
        held(100_000, 6000, 950, StallSample.fromSlowlog(List.of(List.of(1L, 0L, 430L, List.of("evalsha"))), 20.5)));
    assertThat(target(fine, "10,000 held locks: relock worst Redis stall").threshold()).isEqualTo("<= 0.5");
    assertThat(target(fine, "10,000 held locks: relock worst Redis stall").value()).isEqualTo(0.5);
    assertThat(target(fine, "10,000 held locks: relock worst Redis stall").verdict()).isEqualTo("met");
    assertThat(target(fine, "10,000 held locks: relock Redis calls per renewal tick").threshold()).isEqualTo("<= 100");
    assertThat(target(fine, "10,000 held locks: relock Redis calls per renewal tick").verdict()).isEqualTo("met");
    assertThat(target(fine, "100,000 held locks: relock Redis calls per renewal tick").threshold()).isEqualTo("<= 1000");
    assertThat(target(fine, "100,000 held locks: relock Redis calls per renewal tick").value()).isEqualTo(950.0);
    assertThat(target(fine, "100,000 held locks: relock worst Redis stall").verdict()).isEqualTo("met");

    Results slow = results(held(10_000, 900, 150, StallSample.fromSlowlog(List.of(List.of(1L, 0L, 501L,
        List.of("evalsha"))), 20.5)));
    assertThat(target(slow, "10,000 held locks: relock worst Redis stall").verdict()).isEqualTo("MISSED");
    assertThat(target(slow, "10,000 held locks: relock Redis calls per renewal tick").verdict()).isEqualTo("MISSED");
    assertThat(target(slow, "100,000 held locks: relock worst Redis stall").verdict()).isEqualTo("not measured");

    Results refused = results(held(10_000, 600, 100, StallSample.notMeasured(20.5, "CONFIG GET refused")));
    assertThat(target(refused, "10,000 held locks: relock worst Redis stall").verdict()).isEqualTo("not measured");
    assertThat(target(refused, "10,000 held locks: relock Redis calls per renewal tick").verdict()).isEqualTo("met");
    assertThat(target(results(), "10,000 held locks: relock worst Redis stall").verdict()).isEqualTo("not measured");
  }

  @Test
  void onRedlock_theSummaryNamesTheGroupSize_andComparesWithRedissonsRedLock() {
    Results r = new Results(SETTINGS, MACHINE, List.of(
        BenchRows.row(Results.UNCONTENDED, Implementation.RELOCK, 1, 8, 3000, 27_000),
        BenchRows.row(Results.UNCONTENDED, Implementation.REDISSON_REDLOCK, 1, 8, 1000, 9000),
        BenchRows.row(Results.CONTENDED_PROCESSES, Implementation.RELOCK, 4, 8, 400, 3600),
        BenchRows.row(Results.CONTENDED_PROCESSES, Implementation.REDISSON_REDLOCK, 4, 8, 100, 900)),
        List.of(), 100, "0.1", Deployment.redlock(3));
    assertThat(r.summaryLine()).isEqualTo("bench: topology=redlock-3 uncontended_vs_redisson=3.00"
        + " contended_vs_redisson=4.00 contended_calls_per_acquisition=9.00 limit_fraction=n/a"
        + " contended_4x2_vs_redisson=n/a p99_4x2_vs_redisson=n/a contended_4x1_vs_redisson=n/a p99_4x1_vs_redisson=n/a");
    assertThat(r.tables().get(0).title()).endsWith("[topology: redlock, 3 masters (calls summed over them)]");
    assertThat(r.tables().get(0).rows()).extracting(row -> row.get(0)).containsExactly("relock", "redisson-redlock");
    assertThat(r.toJson()).containsEntry("topology", "redlock").containsEntry("redlock_masters", 3);
  }

  @Test
  void heldTargets_areThereForEachHeldRun() {
    List<String> held = results().targets().stream().map(Results.Target::what).filter(w -> w.contains("held locks")).toList();
    assertThat(held).containsExactly(
        "10,000 held locks: relock worst Redis stall while renewing, ms",
        "10,000 held locks: relock Redis calls per renewal tick",
        "100,000 held locks: relock worst Redis stall while renewing, ms",
        "100,000 held locks: relock Redis calls per renewal tick");
  }

  @Test
  void heldTable_showsTheWorstStallInMilliseconds_withTwoDecimals() {
    StallSample stall = StallSample.fromSlowlog(List.of(List.of(1L, 0L, 456L, List.of("evalsha"))), 10.5);
    Table t = results(held(150, stall), held(150, StallSample.fromSlowlog(List.of(), 10.5)),
        held(150, StallSample.notMeasured(10.5, "refused"))).tables().get(0);
    int column = t.header().indexOf("worst Redis stall ms");
    assertThat(column).isPositive();
    assertThat(t.rows()).extracting(r -> r.get(column)).containsExactly("0.46", "< 0.10", "-");
    assertThat(t.rightAligned(column)).isTrue();
  }

  @Test
  void heldJson_carriesTheStall_andNullsWhenNotMeasured() {
    Map<String, Object> json = held(150, StallSample.fromSlowlog(List.of(
        List.of(1L, 0L, 456L, List.of("EVALSHA")), List.of(2L, 0L, 120L, List.of("hset"))), 10.5)).toJson();
    assertThat(json).containsEntry("worst_stall_us", 456.0).containsEntry("slow_commands_over_100us", 2)
        .containsEntry("slowest_command", "evalsha").containsEntry("quiet_window_s", 20.5)
        .containsEntry("calls_per_renewal_tick", 25.0).containsEntry("redis_bytes_per_lock", 100.0)
        .containsEntry("stall_not_measured_because", null);

    Map<String, Object> parsed = BenchJson.readObject(BenchJson.line(held(150, StallSample.notMeasured(10.5, "refused")).toJson()));
    assertThat(parsed).containsEntry("worst_stall_us", null).containsEntry("slow_commands_over_100us", null)
        .containsEntry("slowest_command", null).containsEntry("stall_not_measured_because", "refused");
  }
}

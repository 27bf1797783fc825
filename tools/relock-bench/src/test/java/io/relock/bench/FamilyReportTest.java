package io.relock.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FamilyReportTest {

  private static final Machine MACHINE = new Machine(2, "cpu", 1L << 30, "os", "jvm", "7.0.15", "loopback", "-", "abc");
  private static final Workload READ_HEAVY = Workload.parse("rw-read-heavy");
  private static final Workload SEMAPHORE = Workload.parse("semaphore-5");

  /**
   * Read-heavy: relock 4,000/s at 2 ms, Redisson 1,000/s at 10 ms (4x, p99 0.2: met). Semaphore:
   * relock 2,000/s, Redisson 1,000/s at the same wait (2x, p99 1: missed). 2 calls per acquisition.
   */
  private static Results results(List<Results.Failure> failures) {
    return new Results(BenchSettings.family(false), MACHINE, List.of(
        BenchRows.family(READ_HEAVY, Implementation.RELOCK, 2, 3600, 4000, 4000, 4000),
        BenchRows.family(READ_HEAVY, Implementation.REDISSON, 10, 900, 1000, 1000, 1000),
        BenchRows.family(SEMAPHORE, Implementation.RELOCK, 5, 0, 2000, 2000, 2000),
        BenchRows.family(SEMAPHORE, Implementation.REDISSON, 5, 0, 1000, 1000, 1000)),
        List.of(), List.of(), 60, "0.1", Deployment.of(BenchTarget.Topology.SINGLE), null,
        new Results.Family(List.of(READ_HEAVY, SEMAPHORE), failures));
  }

  @Test
  void theTargets_judgeEachRowAgainstRedisson() {
    List<Results.Target> t = results(List.of()).targets();
    assertThat(t).extracting(Results.Target::verdict)
        .containsExactly("met", "met", "met", "MISSED", "MISSED", "met", "met");
    assertThat(t.get(0).what()).startsWith("rw-read-heavy (read-write lock, 90% reads), 4 x 5: relock / Redisson");
    assertThat(t.get(0).value()).isEqualTo(4.0);
    assertThat(t.get(1).value()).isCloseTo(0.2, org.assertj.core.data.Offset.offset(0.01));
    assertThat(t.get(2).value()).isEqualTo(2.0);
    assertThat(t.get(3).value()).isEqualTo(2.0);
    assertThat(t.get(4).value()).isCloseTo(1.0, org.assertj.core.data.Offset.offset(0.01));
  }

  @Test
  void aFailedRow_hasNoFigures_failsTheCheckTarget_andShowsWhy() {
    Results r = results(List.of(new Results.Failure(SEMAPHORE, Implementation.REDISSON, 4, 5,
        "the hold check saw 1 violation(s): 6 permit holders at once, with 5 permits")));
    assertThat(r.targets().get(r.targets().size() - 1).verdict()).isEqualTo("MISSED");
    Table t = FamilyReport.table(r);
    List<String> failed = t.rows().get(t.rows().size() - 1);
    assertThat(failed.get(0)).isEqualTo("redisson");
    assertThat(failed.get(FamilyReport.COLUMNS.indexOf("acq/s"))).isEqualTo("-");
    assertThat(failed.get(FamilyReport.COLUMNS.indexOf("hold check"))).startsWith("FAILED: the hold check saw 1");
    assertThat(r.summaryLine()).endsWith("hold_check_failures=1");
  }

  @Test
  void theTable_showsTheMixAsMeasured_andTheMostHoldsAtOnce() {
    Table t = FamilyReport.table(results(List.of()));
    assertThat(t.rows()).hasSize(4);
    List<String> relockRead = t.rows().get(0);
    assertThat(relockRead.subList(0, 4)).containsExactly("relock", "rw-read-heavy", "read-write lock, 90% reads",
        "4 x 5");
    assertThat(relockRead.get(FamilyReport.COLUMNS.indexOf("reads %"))).isEqualTo("30.0");
    assertThat(relockRead.get(FamilyReport.COLUMNS.indexOf("most at once"))).isEqualTo("3 readers");
    assertThat(t.rows().get(1).get(FamilyReport.COLUMNS.indexOf("vs relock"))).isEqualTo("0.25");
    assertThat(t.rows().get(2).get(FamilyReport.COLUMNS.indexOf("most at once"))).isEqualTo("5 of 5 holders");
    assertThat(t.rows().get(2).get(FamilyReport.COLUMNS.indexOf("reads %"))).isEqualTo("-");
  }

  @Test
  void theSummaryLine_namesEachRow() {
    assertThat(results(List.of()).summaryLine()).isEqualTo("bench: family rw_read_heavy_vs_redisson=4.00"
        + " p99_rw_read_heavy_vs_redisson=0.20 rw_read_heavy_calls_per_acquisition=2.00 semaphore_5_vs_redisson=2.00"
        + " p99_semaphore_5_vs_redisson=1.00 semaphore_5_calls_per_acquisition=2.00 hold_check_failures=0");
  }

  @Test
  void aViolationInAnyWorkersReply_failsTheRun() {
    Map<String, Object> clean = Map.of("checked", new LoadPhase.Checked(9, 1, 0, "", 3, 0, 0).toJson());
    Map<String, Object> broken = Map.of("checked", new LoadPhase.Checked(5, 5, 2, "a write hold began while 0 other"
        + " write and 1 read hold(s) were held", 3, 0, 0).toJson());
    assertThat(Bench.checked(List.of(clean, clean)).reads()).isEqualTo(18);
    assertThat(Bench.checked(List.of(Map.of("ok", true)))).as("an exclusive run has no check").isNull();
    assertThatThrownBy(() -> Bench.checked(List.of(clean, broken))).isInstanceOf(Bench.HoldCheckFailed.class)
        .hasMessage("the hold check saw 2 violation(s): a write hold began while 0 other write and 1 read hold(s) were"
            + " held");
  }

  @Test
  void writingTheSection_keepsTheRestOfThePage_andReplacesOnlyItself(@TempDir Path dir) throws IOException {
    Path chart = dir.resolve("chart.png");
    Files.writeString(chart, "png");
    Path page = dir.resolve("benchmarks.md");
    String before = "# Benchmarks\n\nsingle-Redis figures\n\n" + DocsWriter.Part.COMPARISON.begin() + "\ncompare\n"
        + DocsWriter.Part.COMPARISON.end() + "\n";
    Files.writeString(page, before);
    DocsWriter.writeFamily(results(List.of()), "./relock bench --family --write-docs", chart, dir);
    String once = Files.readString(page, StandardCharsets.UTF_8);
    assertThat(once).startsWith(before.stripTrailing());
    assertThat(once).contains("## Lock family: read-write locks and semaphores against Redisson")
        .contains("| rw-read-heavy (read-write lock, 90% reads), 4 x 5: relock / Redisson acquisitions/s | &gt;= 3 |"
            + " 4.00 | met |")
        .contains(DocsWriter.Part.FAMILY.end());
    assertThat(dir.resolve(DocsWriter.FAMILY_CHART)).exists();

    DocsWriter.writeFamily(results(List.of()), "./relock bench --family --write-docs", chart, dir);
    String twice = Files.readString(page, StandardCharsets.UTF_8);
    assertThat(twice.split(java.util.regex.Pattern.quote(DocsWriter.Part.FAMILY.begin()), -1)).hasSize(2);
    // A single-Redis run rewrites the page and keeps the section.
    DocsWriter.write(new Results(BenchSettings.full(), MACHINE, List.of(), List.of(), 280, "0.1"), "./relock bench",
        chart, dir);
    assertThat(DocsWriter.sectionOf(Files.readString(page, StandardCharsets.UTF_8), DocsWriter.Part.FAMILY))
        .isEqualTo(DocsWriter.sectionOf(twice, DocsWriter.Part.FAMILY)).isNotEmpty();
  }
}

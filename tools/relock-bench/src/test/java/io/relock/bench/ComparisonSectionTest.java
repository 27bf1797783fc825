package io.relock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.bench.BenchTarget.Topology;
import io.relock.bench.Implementation.Server;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ComparisonSectionTest {

  private static final Machine MACHINE = new Machine(2, "cpu", 1L << 30, "os", "jvm", "7.0.15", "loopback", "-", "abc");

  private static Results compared(long relockUncontended, long postgresUncontended) {
    BenchSettings settings = BenchSettings.compare(true);
    List<Row> rows = List.of(
        BenchRows.windows(Results.UNCONTENDED, Implementation.RELOCK, 1, 8, 0.2, relockUncontended),
        BenchRows.windows(Results.UNCONTENDED, Implementation.ZOOKEEPER, 1, 8, 2.0, 1000),
        BenchRows.windows(Results.UNCONTENDED, Implementation.POSTGRES_ADVISORY, 1, 8, 0.1, postgresUncontended),
        BenchRows.windows(Results.CONTENDED_PROCESSES, Implementation.RELOCK, 4, 2, 2.0, 4000),
        BenchRows.windows(Results.CONTENDED_PROCESSES, Implementation.ZOOKEEPER, 4, 2, 20.0, 300));
    List<TakeoverRow> kills = List.of(
        new TakeoverRow(Implementation.RELOCK, Duration.ofSeconds(3), List.of(2400.0, 2500.0, 2600.0), 16_000),
        new TakeoverRow(Implementation.POSTGRES_ADVISORY, Duration.ofSeconds(3), List.of(11.0, 12.0, Double.NaN), 16_000));
    return new Results(settings, MACHINE, rows, List.of(), kills, 120, "0.1", Deployment.of(Topology.SINGLE),
        new Results.Comparison(Map.of(Server.ZOOKEEPER, "ZooKeeper 3.9.3 standalone",
            Server.POSTGRES, "PostgreSQL 14.22 (embedded)"), Map.of(Server.ETCD, "no etcd binary on the PATH")));
  }

  /** The comparison's section as the page shows it. */
  private static String section(Results r, Path dir) throws IOException {
    Path chart = Files.write(dir.resolve("chart.png"), new byte[] {1});
    DocsWriter.writeComparison(r, "./relock bench --compare --write-docs", chart, dir);
    return DocsWriter.sectionOf(Files.readString(dir.resolve("benchmarks.md"), StandardCharsets.UTF_8),
        DocsWriter.Part.COMPARISON);
  }

  @Test
  void theRedisClaim_isJudgedFromTheRun_perConfiguration(@TempDir Path dir) throws IOException {
    assertThat(ComparisonSection.fastest(compared(9000, 3000))).extracting(ComparisonSection.Fastest::allRedis,
        ComparisonSection.Fastest::configurations).containsExactly(true, 2);
    assertThat(section(compared(9000, 3000), dir))
        .contains("**\"Redis is the fastest.\"** It holds in this run: a Redis lock was the fastest in all 2"
            + " configurations. Fastest per configuration, and the best of each other server against it:")
        .contains("uncontended 1 x 8: relock 9,000/s; PostgreSQL at best postgres-advisory 3,000/s (0.33 x),"
            + " ZooKeeper at best zookeeper 1,000/s (0.11 x); across processes 4 x 2: relock 4,000/s; ZooKeeper at"
            + " best zookeeper 300/s (0.075 x).");
    assertThat(section(compared(3000, 9000), dir))
        .contains("**\"Redis is the fastest.\"** It held in 1 of 2 configurations in this run.")
        .contains("uncontended 1 x 8: postgres-advisory 9,000/s; Redis at best relock 3,000/s (0.33 x)")
        // BenchRows gives Redis 0.1 s of CPU per window through INFO, and the other servers none measured.
        .contains(" Seen from the server instead, the least CPU one uncontended acquisition and release cost it"
            + " (1 x 8), best of each: Redis 33 us (relock).\n");
  }

  @Test
  void theReliabilityClaim_givesEachNextHolder_orNever(@TempDir Path dir) throws IOException {
    assertThat(section(compared(9000, 3000), dir)).contains("**\"ZooKeeper is the most reliable.\"** With every"
        + " system told to give up on a silent holder after 3 s, the next holder got in after (median of the kills):"
        + " relock 2,500 ms, postgres-advisory 12 ms (the session's end). A dead ZooKeeper client's lock waits");
  }

  @Test
  void theGlanceTable_putsTheFiguresBesideWhatEachGives() {
    Table t = ComparisonSection.glance(compared(9000, 3000));
    assertThat(t.header()).startsWith("implementation", "server", "1 x 8 acq/s", "4 x 2 acq/s", "4 x 2 p99 ms");
    assertThat(t.rows()).extracting(r -> r.get(0)).containsExactly("relock", "zookeeper", "postgres-advisory");
    assertThat(t.rows().get(2)).contains("PostgreSQL", "3,000", "12 (1 never)", "none");
    assertThat(t.rows().get(1)).contains("-", "the lock node's sequence number and zxid, both growing");
    // Words stay left-aligned, figures right-aligned.
    assertThat(DocsModel.table(t).columns()).extracting(DocsModel.Column::figures)
        .containsExactly(false, false, true, true, true, true, true, false, false, false, false);
  }

  @Test
  void theSection_isWrittenBetweenItsMarkers_beforeTheTopologies_andKeptByASingleRedisRun(@TempDir Path dir)
      throws IOException {
    Results redlock = new Results(BenchSettings.shortRun(), MACHINE, List.of(
        BenchRows.row(Results.UNCONTENDED, Implementation.RELOCK, 1, 8, 3000, 9000)), List.of(), 40, "0.1",
        Deployment.redlock(3));
    DocsWriter.writeSection(Topology.REDLOCK, List.of(redlock), "./relock bench --topology redlock --write-docs", dir);
    Path chart = Files.write(dir.resolve("chart.png"), new byte[] {1});
    DocsWriter.writeComparison(compared(9000, 3000), "./relock bench --compare --write-docs", chart, dir);
    String page = Files.readString(dir.resolve("benchmarks.md"), StandardCharsets.UTF_8);
    String section = DocsWriter.sectionOf(page, DocsWriter.Part.COMPARISON);
    assertThat(section).startsWith(DocsWriter.Part.COMPARISON.begin()).endsWith(DocsWriter.Part.COMPARISON.end())
        .contains("## Redis vs ZooKeeper vs etcd vs PostgreSQL", "### At a glance",
            "**\"Redis is the fastest.\"** It holds in this run", "**\"ZooKeeper is the most reliable.\"**",
            "### When each is the right choice", "- **Left out:** etcd: no etcd binary on the PATH",
            "![comparison chart](benchmarks-compare.png)", "bench: compare uncontended_vs_zookeeper=9.00");
    assertThat(page.indexOf(DocsWriter.Part.COMPARISON.begin())).isLessThan(page.indexOf(DocsWriter.Part.REDLOCK.begin()));
    assertThat(dir.resolve(DocsWriter.COMPARISON_CHART)).exists();

    DocsWriter.write(new Results(BenchSettings.full(), MACHINE, List.of(), List.of(), 280, "0.1"),
        "./relock bench --write-docs", chart, dir);
    String rewritten = Files.readString(dir.resolve("benchmarks.md"), StandardCharsets.UTF_8);
    assertThat(DocsWriter.sectionOf(rewritten, DocsWriter.Part.COMPARISON)).isEqualTo(section);
    assertThat(DocsWriter.sectionOf(rewritten, DocsWriter.Part.REDLOCK)).isNotEmpty();
  }
}

package io.relock.demo.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import io.relock.demo.production.OrderLedger;
import io.relock.demo.production.WriterCounters;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StrategyReportTest {

  private static final SeckillClient.Timings NOTHING_OBSERVED = new SeckillClient.Timings(0, 0, 0, 0);

  @Test
  void aStrategyWhosePurchasesWaitedForALock_reportsTheShareOfTheirTimeSpentWaiting() {
    LoadRun run = new LoadRun("relock", Map.of(Outcome.SOLD, 2), new long[] {1_000_000L, 2_000_000L}, 1_000_000_000L);
    // 4 waits taking 30 ms in all, in 2 purchases taking 40 ms in all
    StrategyReport report = new StrategyReport(run, new SaleState(0, 2, 2, 0), List.of(),
        new SeckillClient.Timings(4, 30_000_000L, 2, 40_000_000L));
    assertThat(report.lockWaitShare()).isEqualTo(0.75);
    assertThat(report.summaryLine()).endsWith(" leftover_keys=0 lock_wait_share=0.75");
  }

  @Test
  void summaryLine_hasTheDocumentedKeysInOrder() {
    long ms = 1_000_000L;
    LoadRun run =
        new LoadRun(
            "seed-setnx",
            Map.of(Outcome.SOLD, 3, Outcome.SOLD_OUT, 1, Outcome.LOCK_BUSY, 1, Outcome.FAILED, 1),
            new long[] {5 * ms, 1 * ms, 2 * ms, 3 * ms, 4 * ms, 100 * ms},
            2_000_000_000L);
    StrategyReport report = new StrategyReport(run, new SaleState(0, 2, 3, 1), List.of("relock-demo:setnx-lock:item:x"),
        NOTHING_OBSERVED);

    assertThat(report.summaryLine())
        .isEqualTo(
            "strategy=seed-setnx requests=6 sold=3 oversold=1 errors=2 rps=3 p99_ms=100 leftover_keys=1");
    assertThat(run.lockErrors()).isEqualTo(1);
    assertThat(run.latencyMillis(50)).isEqualTo(3.0);
  }

  @Test
  void productionSummaryLine_addsTheOrdersInTheDatabase_andWhenTheSaleSoldOut() {
    long ms = 1_000_000L;
    LoadRun run = new LoadRun("production", Map.of(Outcome.SOLD, 2, Outcome.SOLD_OUT, 2),
        new long[] {1 * ms, 2 * ms, 3 * ms, 4 * ms}, 1_000_000_000L, 37 * ms, new long[] {3 * ms, 4 * ms});
    ProductionFigures figures = new ProductionFigures(2, new OrderLedger.SaleFigures(2, 0, 0, 0),
        new WriterCounters(3, 2, 1, 4, 1, 1), 0, 120, Optional.empty());
    StrategyReport report = new StrategyReport(run, new SaleState(0, 2, 2, 0), List.of(), NOTHING_OBSERVED,
        Optional.of(figures));

    assertThat(report.summaryLine()).isEqualTo("strategy=production requests=4 sold=2 oversold=0 errors=0 rps=4"
        + " p99_ms=4 leftover_keys=0 persisted=2 duplicates=0 lost=0 sold_out_ms=37 fenced_writes=1 redelivered=4");
    assertThat(figures.problems()).isEmpty();
    assertThat(run.soldOutLatencyMillis(50)).isEqualTo(3.0);
  }

  @Test
  void productionFigures_nameEveryLostDuplicatedOrUnacknowledgedOrder() {
    ProductionFigures figures = new ProductionFigures(5, new OrderLedger.SaleFigures(5, 1, 1, 0),
        new WriterCounters(0, 0, 0, 0, 0, 0), 2, 60_000, Optional.empty());

    assertThat(figures.lost()).isEqualTo(1);
    assertThat(figures.problems()).hasSize(3);
  }

  @Test
  void chart_isWrittenAsAPng(@TempDir Path dir) throws Exception {
    System.setProperty("java.awt.headless", "true");
    LoadRun run = new LoadRun("relock", Map.of(Outcome.SOLD, 2, Outcome.SOLD_OUT, 3), new long[] {1, 2, 3, 4, 5}, 1_000_000_000L);
    Path png = dir.resolve("nested").resolve("chart.png");

    ReportChart.write(List.of(new StrategyReport(run, new SaleState(0, 2, 2, 0), List.of(), NOTHING_OBSERVED)), "title",
        png);

    BufferedImage image = ImageIO.read(png.toFile());
    assertThat(image.getWidth()).isEqualTo(1200);
    assertThat(image.getHeight()).isEqualTo(750);
  }
}

package io.relock.demo.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StrategyReportTest {

  @Test
  void summaryLine_hasTheDocumentedKeysInOrder() {
    long ms = 1_000_000L;
    LoadRun run =
        new LoadRun(
            "seed-setnx",
            Map.of(Outcome.SOLD, 3, Outcome.SOLD_OUT, 1, Outcome.LOCK_BUSY, 1, Outcome.FAILED, 1),
            new long[] {5 * ms, 1 * ms, 2 * ms, 3 * ms, 4 * ms, 100 * ms},
            2_000_000_000L);
    StrategyReport report = new StrategyReport(run, new SaleState(0, 2, 3, 1), List.of("relock-demo:setnx-lock:item:x"));

    assertThat(report.summaryLine())
        .isEqualTo(
            "strategy=seed-setnx requests=6 sold=3 oversold=1 errors=2 rps=3 p99_ms=100 leftover_keys=1");
    assertThat(run.lockErrors()).isEqualTo(1);
    assertThat(run.latencyMillis(50)).isEqualTo(3.0);
  }

  @Test
  void chart_isWrittenAsAPng(@TempDir Path dir) throws Exception {
    System.setProperty("java.awt.headless", "true");
    LoadRun run = new LoadRun("relock", Map.of(Outcome.SOLD, 2, Outcome.SOLD_OUT, 3), new long[] {1, 2, 3, 4, 5}, 1_000_000_000L);
    Path png = dir.resolve("nested").resolve("chart.png");

    ReportChart.write(List.of(new StrategyReport(run, new SaleState(0, 2, 2, 0), List.of())), "title", png);

    BufferedImage image = ImageIO.read(png.toFile());
    assertThat(image.getWidth()).isEqualTo(1200);
    assertThat(image.getHeight()).isEqualTo(600);
  }
}

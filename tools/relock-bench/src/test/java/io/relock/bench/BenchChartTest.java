package io.relock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchChartTest {

  private static final Machine MACHINE = new Machine(2, "cpu", 1L << 30, "os", "jvm", "7.0.15", "loopback", "-", "abc");

  @Test
  void panels_groupTheBarsByConfiguration_oneSeriesPerImplementation_emptyPanelsLeftOut() {
    Results r = new Results(BenchSettings.full(), MACHINE, List.of(
        BenchRows.windows(Results.UNCONTENDED, Implementation.RELOCK, 1, 8, 0.2, 900, 1000, 1100),
        BenchRows.windows(Results.UNCONTENDED, Implementation.REDISSON, 1, 8, 0.4, 400, 500, 600),
        BenchRows.windows(Results.CONTENDED_PROCESSES, Implementation.RELOCK, 4, 2, 2.0, 300, 300, 300)),
        List.of(), 10, "0.1");
    List<BenchChart.Panel> panels = BenchChart.panelsFor(r);
    assertThat(panels).extracting(BenchChart.Panel::title).noneMatch(t -> t.contains("held locks"));
    BenchChart.Panel uncontended = panels.get(0);
    assertThat(uncontended.groups()).containsExactly("1 x 1", "1 x 8", "1 x 64");
    assertThat(uncontended.values()).containsOnlyKeys(Implementation.RELOCK, Implementation.REDISSON);
    assertThat(uncontended.values().get(Implementation.RELOCK)).containsExactly(Double.NaN, 1000.0, Double.NaN);
    BenchChart.Panel waits = panels.get(2);
    assertThat(waits.logScale()).isTrue();
    assertThat(waits.groups()).containsExactly("4 x 1", "4 x 2", "4 x 8");
  }

  @Test
  void write_drawsTheChartsTwoToARow_withTheCaptionBelow(@TempDir Path dir) throws Exception {
    Results r = new Results(BenchSettings.shortRun(), MACHINE, List.of(
        BenchRows.windows(Results.UNCONTENDED, Implementation.RELOCK, 1, 8, 0.2, 900, 1000, 1100),
        BenchRows.windows(Results.CONTENDED_PROCESSES, Implementation.RELOCK, 4, 8, 2.0, 300, 300, 300),
        BenchRows.windows(Results.CONTENDED_PROCESSES, Implementation.REDISSON, 4, 8, 90.0, 30, 50, 40)),
        List.of(), 10, "0.1");
    Path png = dir.resolve("nested").resolve("chart.png");
    BenchChart.write(BenchChart.panelsFor(r), List.of("command", "machine", r.summaryLine()), png);
    BufferedImage image = ImageIO.read(png.toFile());
    assertThat(image.getWidth()).isEqualTo(1400);
    assertThat(image.getHeight()).isGreaterThan(3 * 380);
  }
}

package io.relock.bench;

import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToDoubleFunction;
import javax.imageio.ImageIO;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.CategoryStyler;
import org.knowm.xchart.style.Styler;

/**
 * The results as one PNG (XChart): bar charts, two to a row, of the medians over the windows,
 * grouped by configuration (threads, or processes x threads), one colour per implementation in
 * every chart (relock blue, the Redis-bound limit green), each bar labelled with its value; the
 * run's command, machine and summary line below them. Bars stand upright because XChart draws a
 * logarithmic axis right only on upright bar charts, and waits need one.
 */
final class BenchChart {

  /**
   * One chart: a title, the configurations that group its bars (top to bottom), per implementation
   * one value per configuration (NaN: not measured), and whether its axis is logarithmic.
   */
  record Panel(String title, List<String> groups, Map<Implementation, double[]> values, String decimalPattern,
      boolean logScale) {}

  private static final int PANEL_WIDTH = 700;
  private static final int PANEL_HEIGHT = 380;
  private static final int CAPTION_LINE = 20;
  private static final Font TITLE = new Font(Font.SANS_SERIF, Font.BOLD, 14);
  private static final Font TEXT = new Font(Font.SANS_SERIF, Font.PLAIN, 12);
  private static final Font VALUE = new Font(Font.SANS_SERIF, Font.PLAIN, 10);
  private static final Color GRID = new Color(0xE0E0E0);
  private static final Color LABEL = new Color(0x202020);

  private BenchChart() {}

  /** The colour of {@code impl}'s bars, the same in every chart. */
  static Color colorOf(Implementation impl) {
    return switch (impl) {
      case RELOCK -> new Color(0x3C78D8);
      case RELOCK_ACKS -> new Color(0x6F9BE0);
      case REDISSON, REDISSON_REDLOCK -> new Color(0xE08A2C);
      case SPRING_SPIN -> new Color(0x8A8F98);
      case SPRING_PUBSUB -> new Color(0xBCC0C7);
      case RECIPE -> new Color(0x7A55B0);
      case LIMIT -> new Color(0x2E9E5B);
      case ZOOKEEPER -> new Color(0xC0392B);
      case ETCD -> new Color(0x17A2B8);
      case POSTGRES_ADVISORY -> new Color(0x6D4C41);
      case POSTGRES_FOR_UPDATE -> new Color(0xA1887F);
      case POSTGRES_OPTIMISTIC -> new Color(0xD7B98E);
    };
  }

  static List<Panel> panelsFor(Results results) {
    if (results.family != null) {
      return FamilyReport.panels(results);
    }
    List<Panel> panels = new ArrayList<>();
    List<Integer> uncontended = results.settings.uncontendedThreads();
    List<Integer> across = results.settings.processThreads().stream().sorted().toList();
    int procs = results.settings.processes();
    panels.add(panel(results, "Uncontended: acquisitions/s (higher is better)", Results.UNCONTENDED,
        uncontended, t -> "1 x " + t, Row::perSecond, "#,###", false));
    panels.add(panel(results, "Across processes, one key: acquisitions/s (higher is better)",
        Results.CONTENDED_PROCESSES, across, t -> procs + " x " + t, Row::perSecond, "#,###", false));
    panels.add(panel(results, "Across processes: p99 wait, ms, log scale (lower is better)",
        Results.CONTENDED_PROCESSES, across, t -> procs + " x " + t, r -> r.millis(99), "#,##0.##", true));
    panels.add(panel(results, "Across processes: longest wait, ms, log scale (lower is better)",
        Results.CONTENDED_PROCESSES, across, t -> procs + " x " + t, Row::maxMillis, "#,##0.#", true));
    if (results.comparison != null) {
      panels.add(panel(results, "Uncontended: server CPU per acquisition, us, log (lower is better)",
          Results.UNCONTENDED, uncontended, t -> "1 x " + t, Row::serverCpuMicrosPerAcquisition, "#,##0", true));
      Map<Implementation, double[]> killed = new LinkedHashMap<>();
      for (TakeoverRow t : results.takeovers) {
        killed.put(t.impl(), new double[] {t.spread().median()});
      }
      panels.add(new Panel("Holder killed: ms until the next holder got in, log (lower is better)",
          List.of("gives up on a silent holder after " + results.settings.deathTimeout().toSeconds() + " s"), killed,
          "#,##0", true));
      return panels.stream().filter(p -> !p.values().isEmpty()).toList();
    }
    panels.add(panel(results, "Across processes: Redis calls per acquisition (lower is better)",
        Results.CONTENDED_PROCESSES, across, t -> procs + " x " + t, Row::callsPerAcquisition, "0.##", false));
    Map<Implementation, double[]> held = new LinkedHashMap<>();
    for (HeldRow h : results.held) {
      if (h.locks() == results.settings.heldLocks()) {
        held.put(h.impl(), new double[] {h.callsPerTick()});
      }
    }
    panels.add(new Panel(String.format(Locale.ROOT, "%,d held locks: Redis calls per renewal tick (lower is better)",
        results.settings.heldLocks()), List.of(String.format(Locale.ROOT, "lease %d s, a tick every %d s",
        results.settings.heldLease().toSeconds(), results.settings.renewalTick().toSeconds())), held, "#,##0.#", false));
    return panels.stream().filter(p -> !p.values().isEmpty()).toList();
  }

  /** The rows of {@code scenario}, one group per thread count, one bar per implementation in each. */
  private static Panel panel(Results results, String title, String scenario, List<Integer> threads,
      java.util.function.IntFunction<String> groupName, ToDoubleFunction<Row> figure, String pattern, boolean log) {
    Map<Implementation, double[]> values = new LinkedHashMap<>();
    for (Implementation impl : Implementation.values()) {
      double[] v = new double[threads.size()];
      boolean any = false;
      for (int i = 0; i < threads.size(); i++) {
        Optional<Row> row = results.find(scenario, impl, threads.get(i));
        v[i] = row.map(figure::applyAsDouble).orElse(Double.NaN);
        any |= row.isPresent();
      }
      if (any) {
        values.put(impl, v);
      }
    }
    return new Panel(title, threads.stream().map(groupName::apply).toList(), values, pattern, log);
  }

  static void write(List<Panel> panels, List<String> caption, Path file) throws IOException {
    int columns = 2;
    int width = columns * PANEL_WIDTH;
    int rows = Math.max(1, (panels.size() + columns - 1) / columns);
    Font captionFont = TEXT.deriveFont(13f);
    List<String> lines = wrap(caption, captionFont, width - 40);
    int height = rows * PANEL_HEIGHT + 20 + CAPTION_LINE * lines.size();
    BufferedImage sheet = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = sheet.createGraphics();
    try {
      g.setColor(Color.WHITE);
      g.fillRect(0, 0, width, height);
      for (int i = 0; i < panels.size(); i++) {
        g.drawImage(BitmapEncoder.getBufferedImage(chart(panels.get(i))), (i % columns) * PANEL_WIDTH,
            (i / columns) * PANEL_HEIGHT, null);
      }
      g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
      g.setColor(Color.DARK_GRAY);
      g.setFont(captionFont);
      for (int i = 0; i < lines.size(); i++) {
        g.drawString(lines.get(i), 20, rows * PANEL_HEIGHT + 20 + CAPTION_LINE * i);
      }
    } finally {
      g.dispose();
    }
    Files.createDirectories(file.toAbsolutePath().getParent());
    ImageIO.write(sheet, "png", file.toFile());
  }

  /** {@code lines}, each broken at spaces where it would be wider than {@code width} pixels. */
  private static List<String> wrap(List<String> lines, Font font, int width) {
    java.awt.FontMetrics metrics = new BufferedImage(1, 1, BufferedImage.TYPE_INT_RGB).createGraphics().getFontMetrics(font);
    List<String> out = new ArrayList<>();
    for (String line : lines) {
      StringBuilder current = new StringBuilder();
      for (String word : line.split(" ", -1)) {
        if (current.length() > 0 && metrics.stringWidth(current + " " + word) > width) {
          out.add(current.toString());
          current.setLength(0);
          current.append("    ");
        }
        if (current.length() > 0 && !current.toString().isBlank()) {
          current.append(' ');
        }
        current.append(word);
      }
      out.add(current.toString());
    }
    return out;
  }

  private static CategoryChart chart(Panel p) {
    CategoryChart chart = new CategoryChartBuilder().width(PANEL_WIDTH).height(PANEL_HEIGHT).title(p.title()).build();
    CategoryStyler s = chart.getStyler();
    s.setChartBackgroundColor(Color.WHITE);
    s.setPlotBackgroundColor(Color.WHITE);
    s.setPlotBorderVisible(false);
    s.setPlotGridLinesColor(GRID);
    s.setPlotGridVerticalLinesVisible(false);
    s.setChartTitleFont(TITLE);
    s.setChartTitleBoxVisible(false);
    s.setAxisTickLabelsFont(TEXT);
    s.setAxisTicksMarksVisible(false);
    s.setLegendFont(TEXT);
    s.setLegendPosition(Styler.LegendPosition.OutsideE);
    s.setLegendBorderColor(Color.WHITE);
    // Values written along each bar, in dark text that stays legible where a short bar ends under it.
    s.setLabelsVisible(true);
    s.setLabelsFont(VALUE);
    s.setLabelsRotation(90);
    s.setLabelsPosition(0.5);
    s.setLabelsFontColorAutomaticEnabled(false);
    s.setLabelsFontColor(LABEL);
    // One group of a few bars would fill the width: keep such bars as wide as grouped ones look.
    s.setAvailableSpaceFill(p.groups().size() == 1 ? 0.5 : 0.9);
    s.setDecimalPattern(p.decimalPattern());
    s.setSeriesColors(p.values().keySet().stream().map(BenchChart::colorOf).toArray(Color[]::new));
    double floor = 0;
    if (p.logScale()) {
      double min = p.values().values().stream().flatMapToDouble(java.util.Arrays::stream)
          .filter(v -> v > 0).min().orElse(1);
      floor = Math.pow(10, Math.floor(Math.log10(min)));
      // A bar just above the axis's floor would hardly show: give it a decade more.
      if (min / floor < 3) {
        floor /= 10;
      }
      s.setYAxisLogarithmic(true);
      s.setYAxisMin(floor);
    } else {
      s.setYAxisMin(0.0);
    }
    for (Map.Entry<Implementation, double[]> e : p.values().entrySet()) {
      List<Double> ys = new ArrayList<>();
      for (double v : e.getValue()) {
        // Not measured (or nothing to draw on a log axis): a bar of no height.
        ys.add(Double.isNaN(v) || v < floor ? floor : v);
      }
      chart.addSeries(e.getKey().id(), p.groups(), ys);
    }
    return chart;
  }
}

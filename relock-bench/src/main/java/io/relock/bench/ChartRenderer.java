package io.relock.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.ToDoubleFunction;
import javax.imageio.ImageIO;

/**
 * Draws the results as one PNG of six horizontal bar charts (Java2D, headless): uncontended and
 * contended throughput, contended p99 and longest wait, Redis calls per acquisition, and calls
 * per renewal tick with many held locks. relock's bars are blue, the peers' grey, the
 * Redis-bound limit's green.
 */
final class ChartRenderer {

  /** One bar. */
  record Bar(String label, double value, Color color) {}

  /** One chart: a title, a unit for the value labels, bars, and whether the axis is logarithmic. */
  record Panel(String title, String unit, List<Bar> bars, boolean logScale) {}

  private static final int WIDTH = 1400;
  private static final int PANEL_HEIGHT = 330;
  private static final Color RELOCK = new Color(0x1f5fbf);
  private static final Color PEER = new Color(0x8a8f98);
  private static final Color LIMIT = new Color(0x2e9e5b);

  private ChartRenderer() {}

  static List<Panel> panelsFor(Results results) {
    List<Panel> panels = new ArrayList<>();
    int t = results.settings.uncontendedThreads().contains(8) ? 8
        : results.settings.uncontendedThreads().get(results.settings.uncontendedThreads().size() - 1);
    panels.add(new Panel("Uncontended, " + t + " threads: acquisitions/s (higher is better)", "/s",
        bars(results, Results.UNCONTENDED, t, Row::perSecond), false));
    String procs = results.settings.processes() + " procs x " + results.settings.threadsPerProcess() + " threads";
    panels.add(new Panel("Contended, " + procs + ": acquisitions/s (higher is better)", "/s",
        bars(results, Results.CONTENDED_PROCESSES, -1, Row::perSecond), false));
    panels.add(new Panel("Contended, " + procs + ": p99 wait, ms, log (lower is better)", " ms",
        bars(results, Results.CONTENDED_PROCESSES, -1, r -> r.millis(99)), true));
    panels.add(new Panel("Contended, " + procs + ": longest wait, ms, log (lower is better)", " ms",
        bars(results, Results.CONTENDED_PROCESSES, -1, Row::maxMillis), true));
    panels.add(new Panel("Contended, " + procs + ": Redis calls per acquisition (lower is better)", "",
        bars(results, Results.CONTENDED_PROCESSES, -1, Row::callsPerAcquisition), false));
    List<Bar> held = new ArrayList<>();
    for (HeldRow h : results.held) {
      held.add(new Bar(h.impl().label(), h.callsPerTick(), h.impl() == Implementation.RELOCK ? RELOCK : PEER));
    }
    panels.add(new Panel(String.format(Locale.ROOT, "%,d held locks: Redis calls per renewal tick, log (lower is better)",
        results.settings.heldLocks()), "", held, true));
    return panels;
  }

  private static List<Bar> bars(Results results, String scenario, int threads, ToDoubleFunction<Row> value) {
    List<Bar> bars = new ArrayList<>();
    for (Implementation impl : Implementation.values()) {
      Optional<Row> row = threads < 0 ? results.find(scenario, impl) : results.find(scenario, impl, threads);
      row.ifPresent(r -> bars.add(new Bar(impl.label(), value.applyAsDouble(r),
          impl == Implementation.RELOCK ? RELOCK : impl == Implementation.LIMIT ? LIMIT : PEER)));
    }
    return bars;
  }

  static void write(List<Panel> panels, List<String> caption, Path file) throws IOException {
    int columns = 2;
    int rows = (panels.size() + columns - 1) / columns;
    int height = rows * PANEL_HEIGHT + 20 + 20 * caption.size();
    BufferedImage image = new BufferedImage(WIDTH, height, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    try {
      g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
      g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
      g.setColor(Color.WHITE);
      g.fillRect(0, 0, WIDTH, height);
      g.setColor(Color.DARK_GRAY);
      g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
      for (int i = 0; i < caption.size(); i++) {
        g.drawString(caption.get(i), 20, rows * PANEL_HEIGHT + 20 + 20 * i);
      }
      int panelWidth = WIDTH / columns;
      for (int i = 0; i < panels.size(); i++) {
        drawPanel(g, panels.get(i), (i % columns) * panelWidth, (i / columns) * PANEL_HEIGHT, panelWidth);
      }
    } finally {
      g.dispose();
    }
    Files.createDirectories(file.toAbsolutePath().getParent());
    ImageIO.write(image, "png", file.toFile());
  }

  private static void drawPanel(Graphics2D g, Panel p, int x0, int y0, int width) {
    g.setColor(Color.BLACK);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
    g.drawString(p.title(), x0 + 20, y0 + 30);
    if (p.bars().isEmpty()) {
      g.setFont(new Font(Font.SANS_SERIF, Font.ITALIC, 13));
      g.drawString("not measured in this run", x0 + 20, y0 + 60);
      return;
    }
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    FontMetrics fm = g.getFontMetrics();
    int labelWidth = 0;
    for (Bar b : p.bars()) {
      labelWidth = Math.max(labelWidth, fm.stringWidth(b.label()));
    }
    int barLeft = x0 + 20 + labelWidth + 10;
    int barMaxWidth = x0 + width - 110 - barLeft;
    int barHeight = Math.min(34, (PANEL_HEIGHT - 70) / p.bars().size() - 8);
    double max = 0;
    double minPositive = Double.MAX_VALUE;
    for (Bar b : p.bars()) {
      if (!Double.isNaN(b.value())) {
        max = Math.max(max, b.value());
        if (b.value() > 0) {
          minPositive = Math.min(minPositive, b.value());
        }
      }
    }
    double logFloor = minPositive == Double.MAX_VALUE ? 0 : Math.log10(minPositive) - 0.5;
    g.setStroke(new BasicStroke(1f));
    int y = y0 + 50;
    for (Bar b : p.bars()) {
      g.setColor(Color.DARK_GRAY);
      g.drawString(b.label(), x0 + 20 + labelWidth - fm.stringWidth(b.label()), y + barHeight / 2 + fm.getAscent() / 2 - 2);
      double fraction;
      if (Double.isNaN(b.value()) || max <= 0) {
        fraction = 0;
      } else if (p.logScale()) {
        double top = Math.log10(max) - logFloor;
        fraction = b.value() <= 0 ? 0 : Math.max(0.01, (Math.log10(b.value()) - logFloor) / top);
      } else {
        fraction = b.value() / max;
      }
      int w = (int) Math.round(fraction * barMaxWidth);
      g.setColor(b.color());
      g.fillRect(barLeft, y, Math.max(1, w), barHeight);
      g.setColor(Color.BLACK);
      String text = Double.isNaN(b.value()) ? "none acquired" : format(b.value()) + p.unit();
      g.drawString(text, barLeft + w + 6, y + barHeight / 2 + fm.getAscent() / 2 - 2);
      y += barHeight + 8;
    }
    g.setColor(Color.LIGHT_GRAY);
    g.drawLine(barLeft, y0 + 45, barLeft, y);
  }

  static String format(double v) {
    if (Double.isNaN(v)) {
      return "n/a";
    }
    if (v >= 100) {
      return String.format(Locale.ROOT, "%,.0f", v);
    }
    if (v >= 10) {
      return String.format(Locale.ROOT, "%.1f", v);
    }
    return String.format(Locale.ROOT, "%.2f", v);
  }
}

package io.relock.demo.load;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * The demo's chart, drawn with Java2D: on the left, per strategy, units sold, oversold, lock errors
 * and other errors against a line at the stock; on the right, requests per second with the p99
 * latency under each bar.
 */
public final class ReportChart {

  private static final int WIDTH = 1200;
  private static final int HEIGHT = 600;
  private static final Color SOLD = new Color(0x2E7D32);
  private static final Color OVERSOLD = new Color(0xC62828);
  private static final Color LOCK_ERRORS = new Color(0xEF6C00);
  private static final Color OTHER_ERRORS = new Color(0x757575);
  private static final Color RPS = new Color(0x1565C0);
  private static final Color GRID = new Color(0xE0E0E0);
  private static final Color TEXT = new Color(0x212121);

  private ReportChart() {}

  /**
   * Writes the chart as a PNG, creating parent directories.
   *
   * @param reports one per strategy, in the order to show
   * @param title the first line of the chart, e.g. the run's settings
   */
  public static void write(List<StrategyReport> reports, String title, Path png) {
    BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    try {
      g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
      g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
      g.setColor(Color.WHITE);
      g.fillRect(0, 0, WIDTH, HEIGHT);
      g.setColor(TEXT);
      g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 18));
      g.drawString(title, 30, 34);
      drawSales(g, reports, 30, 70, 760, 480);
      drawThroughput(g, reports, 840, 70, 330, 480);
    } finally {
      g.dispose();
    }
    try {
      Path parent = png.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      ImageIO.write(image, "png", png.toFile());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write chart " + png, e);
    }
  }

  private static void drawSales(Graphics2D g, List<StrategyReport> reports, int x, int y, int w, int h) {
    long stock = reports.isEmpty() ? 0 : reports.get(0).sale().initialStock();
    long max = stock;
    for (StrategyReport r : reports) {
      max = Math.max(max, Math.max(r.sale().sold(), r.run().errors()));
    }
    String[] names = {"sold", "oversold", "lock errors", "other errors"};
    Color[] colors = {SOLD, OVERSOLD, LOCK_ERRORS, OTHER_ERRORS};
    heading(g, "units sold, oversold and errors per strategy", x, y);
    legend(g, names, colors, x + 10, y + 22);
    int plotTop = y + 60;
    int plotBottom = y + h - 40;
    int plotLeft = x + 60;
    int plotRight = x + w;
    double top = axis(g, max, plotLeft, plotRight, plotTop, plotBottom);
    // The stock line goes under the bars, so that their value labels stay readable.
    if (stock > 0) {
      int yStock = plotBottom - (int) Math.round(stock / top * (plotBottom - plotTop));
      g.setColor(TEXT);
      g.setStroke(new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {8f, 6f}, 0f));
      g.drawLine(plotLeft, yStock, plotRight, yStock);
      g.setStroke(new BasicStroke(1f));
      g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
      g.drawString("stock " + stock, plotRight - 70, yStock - 4);
    }
    int groupWidth = (plotRight - plotLeft) / Math.max(1, reports.size());
    int barWidth = Math.min(48, (groupWidth - 40) / names.length);
    for (int i = 0; i < reports.size(); i++) {
      StrategyReport r = reports.get(i);
      long[] values = {
        r.sale().sold(), r.sale().oversold(), r.run().lockErrors(), r.run().errors() - r.run().lockErrors()
      };
      int groupLeft = plotLeft + i * groupWidth + (groupWidth - barWidth * names.length) / 2;
      for (int b = 0; b < values.length; b++) {
        bar(g, colors[b], values[b], top, groupLeft + b * barWidth + 2, barWidth - 4, plotTop, plotBottom);
      }
      int center = plotLeft + i * groupWidth + groupWidth / 2;
      centered(g, r.strategy(), center, plotBottom + 20, true);
      centered(g, "lock keys left behind: " + r.leftoverKeys().size(), center, plotBottom + 38, false);
    }
  }

  private static void drawThroughput(Graphics2D g, List<StrategyReport> reports, int x, int y, int w, int h) {
    double max = 0;
    for (StrategyReport r : reports) {
      max = Math.max(max, r.run().requestsPerSecond());
    }
    heading(g, "requests per second (p99 latency below)", x, y);
    int plotTop = y + 60;
    int plotBottom = y + h - 40;
    int plotLeft = x + 50;
    int plotRight = x + w;
    double top = axis(g, max, plotLeft, plotRight, plotTop, plotBottom);
    int groupWidth = (plotRight - plotLeft) / Math.max(1, reports.size());
    int barWidth = Math.min(56, groupWidth - 30);
    for (int i = 0; i < reports.size(); i++) {
      StrategyReport r = reports.get(i);
      int center = plotLeft + i * groupWidth + groupWidth / 2;
      bar(g, RPS, Math.round(r.run().requestsPerSecond()), top, center - barWidth / 2, barWidth, plotTop, plotBottom);
      centered(g, r.strategy(), center, plotBottom + 20, true);
      centered(g, String.format(Locale.ROOT, "p99 %.0f ms", r.run().latencyMillis(99)), center, plotBottom + 38, false);
    }
  }

  /** Draws grid lines and labels up to a round number at or above {@code max}; returns that number. */
  private static double axis(Graphics2D g, double max, int left, int right, int plotTop, int plotBottom) {
    double step = niceStep(Math.max(1, max) / 5);
    double top = Math.max(step, Math.ceil(max / step) * step);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    FontMetrics metrics = g.getFontMetrics();
    for (double v = 0; v <= top + step / 2; v += step) {
      int yLine = plotBottom - (int) Math.round(v / top * (plotBottom - plotTop));
      g.setColor(GRID);
      g.drawLine(left, yLine, right, yLine);
      g.setColor(TEXT);
      String label = String.format(Locale.ROOT, "%.0f", v);
      g.drawString(label, left - 8 - metrics.stringWidth(label), yLine + 4);
    }
    g.setColor(TEXT);
    g.drawLine(left, plotBottom, right, plotBottom);
    return top;
  }

  private static double niceStep(double raw) {
    double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
    double fraction = raw / magnitude;
    double nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10;
    return nice * magnitude;
  }

  private static void bar(Graphics2D g, Color color, long value, double top, int left, int width, int plotTop, int plotBottom) {
    int height = (int) Math.round(value / top * (plotBottom - plotTop));
    g.setColor(color);
    g.fillRect(left, plotBottom - height, width, height);
    g.setColor(TEXT);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
    centered(g, Long.toString(value), left + width / 2, plotBottom - height - 4, false);
  }

  private static void heading(Graphics2D g, String text, int x, int y) {
    g.setColor(TEXT);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
    g.drawString(text, x, y);
  }

  private static void legend(Graphics2D g, String[] names, Color[] colors, int x, int y) {
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    FontMetrics metrics = g.getFontMetrics();
    int at = x;
    for (int i = 0; i < names.length; i++) {
      g.setColor(colors[i]);
      g.fillRect(at, y - 10, 12, 12);
      g.setColor(TEXT);
      g.drawString(names[i], at + 16, y);
      at += 16 + metrics.stringWidth(names[i]) + 18;
    }
  }

  private static void centered(Graphics2D g, String text, int centerX, int baseline, boolean bold) {
    if (bold) {
      g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
    }
    FontMetrics metrics = g.getFontMetrics();
    g.drawString(text, centerX - metrics.stringWidth(text) / 2, baseline);
    if (bold) {
      g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    }
  }
}

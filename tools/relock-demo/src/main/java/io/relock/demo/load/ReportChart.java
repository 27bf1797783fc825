package io.relock.demo.load;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.function.ToLongFunction;
import javax.imageio.ImageIO;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.style.markers.SeriesMarkers;
import org.knowm.xchart.style.CategoryStyler;
import org.knowm.xchart.style.Styler;

/**
 * The demo's chart (XChart): on the left, per strategy, units sold, oversold, lock errors and
 * other errors (and, with the production strategy, orders lost) against a dashed line at the stock,
 * and how many lock keys it left behind; on the right, one above the other, requests per second,
 * the p50 and p99 latency, and the time until the first buyer was told "sold out". The run's
 * settings go above them all.
 */
public final class ReportChart {

  private static final int WIDTH = 1200;
  private static final int HEIGHT = 750;
  private static final int TITLE_HEIGHT = 50;
  private static final int SALES_WIDTH = 790;
  private static final Color SOLD = new Color(0x2E7D32);
  private static final Color OVERSOLD = new Color(0xC62828);
  private static final Color LOCK_ERRORS = new Color(0xEF6C00);
  private static final Color OTHER_ERRORS = new Color(0x757575);
  private static final Color STOCK = new Color(0x212121);
  private static final Color RPS = new Color(0x1565C0);
  private static final Color P99 = new Color(0x5E35B1);
  private static final Color P50 = new Color(0xB39DDB);
  private static final Color SOLD_OUT = new Color(0x00838F);
  private static final Color LOST = new Color(0x6A1B9A);
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
      g.setColor(Color.WHITE);
      g.fillRect(0, 0, WIDTH, HEIGHT);
      g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
      g.setColor(TEXT);
      g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 18));
      g.drawString(title, 30, 34);
      if (!reports.isEmpty()) {
        int third = (HEIGHT - TITLE_HEIGHT) / 3;
        g.drawImage(BitmapEncoder.getBufferedImage(sales(reports)), 0, TITLE_HEIGHT, null);
        g.drawImage(BitmapEncoder.getBufferedImage(perStrategy(reports, "requests per second", RPS, "#,###",
            r -> Math.round(r.run().requestsPerSecond()), third)), SALES_WIDTH, TITLE_HEIGHT, null);
        g.drawImage(BitmapEncoder.getBufferedImage(latency(reports, third)), SALES_WIDTH, TITLE_HEIGHT + third, null);
        g.drawImage(BitmapEncoder.getBufferedImage(perStrategy(reports, "first \"sold out\" answer after, ms (0: none)", SOLD_OUT,
            "#,###", r -> Double.isNaN(r.run().soldOutMillis()) ? 0 : Math.round(r.run().soldOutMillis()), third)),
            SALES_WIDTH, TITLE_HEIGHT + 2 * third, null);
      }
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

  private static CategoryChart sales(List<StrategyReport> reports) {
    CategoryChart chart = new CategoryChartBuilder().width(SALES_WIDTH).height(HEIGHT - TITLE_HEIGHT)
        .title("units sold, oversold and errors per strategy").build();
    List<String> strategies = reports.stream().map(r -> r.strategy() + ", " + r.leftoverKeys().size()
        + (r.leftoverKeys().size() == 1 ? " lock key left" : " lock keys left")).toList();
    long stock = reports.get(0).sale().initialStock();
    long most = stock;
    for (StrategyReport r : reports) {
      most = Math.max(most, Math.max(r.sale().sold(), r.run().errors()));
    }
    style(chart.getStyler(), "#,###", most);
    chart.addSeries("sold", strategies, reports.stream().map(r -> (Number) r.sale().sold()).toList());
    chart.addSeries("oversold", strategies, reports.stream().map(r -> (Number) r.sale().oversold()).toList());
    chart.addSeries("lock errors", strategies, reports.stream().map(r -> (Number) r.run().lockErrors()).toList());
    chart.addSeries("other errors", strategies,
        reports.stream().map(r -> (Number) (r.run().errors() - r.run().lockErrors())).toList());
    boolean withOrders = reports.stream().anyMatch(r -> r.production().isPresent());
    if (withOrders) {
      chart.addSeries("orders lost", strategies,
          reports.stream().map(r -> (Number) r.production().map(ProductionFigures::lost).orElse(0L)).toList());
    }
    CategorySeries stockLine = chart.addSeries("stock " + stock, strategies,
        Collections.nCopies(strategies.size(), (Number) stock));
    stockLine.setChartCategorySeriesRenderStyle(CategorySeries.CategorySeriesRenderStyle.Line);
    stockLine.setLineStyle(new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f,
        new float[] {8f, 6f}, 0f));
    stockLine.setMarker(SeriesMarkers.NONE);
    chart.getStyler().setSeriesColors(withOrders ? new Color[] {SOLD, OVERSOLD, LOCK_ERRORS, OTHER_ERRORS, LOST, STOCK}
        : new Color[] {SOLD, OVERSOLD, LOCK_ERRORS, OTHER_ERRORS, STOCK});
    chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
    return chart;
  }

  /** The p50 and p99 latency, side by side per strategy. */
  private static CategoryChart latency(List<StrategyReport> reports, int height) {
    CategoryChart chart = new CategoryChartBuilder().width(WIDTH - SALES_WIDTH).height(height)
        .title("buyers' latency, ms").build();
    long most = reports.stream().mapToLong(r -> Math.round(r.run().latencyMillis(99))).max().orElse(1);
    style(chart.getStyler(), "#,###", most);
    chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
    chart.getStyler().setSeriesColors(new Color[] {P50, P99});
    chart.getStyler().setAvailableSpaceFill(0.7);
    List<String> strategies = reports.stream().map(StrategyReport::strategy).toList();
    chart.addSeries("p50", strategies, reports.stream().map(r -> (Number) Math.round(r.run().latencyMillis(50))).toList());
    chart.addSeries("p99", strategies, reports.stream().map(r -> (Number) Math.round(r.run().latencyMillis(99))).toList());
    return chart;
  }

  /** One bar per strategy, its value written above it. */
  private static CategoryChart perStrategy(List<StrategyReport> reports, String title, Color color, String pattern,
      ToLongFunction<StrategyReport> value, int height) {
    CategoryChart chart = new CategoryChartBuilder().width(WIDTH - SALES_WIDTH).height(height).title(title).build();
    long most = reports.stream().mapToLong(value).max().orElse(1);
    style(chart.getStyler(), pattern, most);
    chart.getStyler().setLegendVisible(false);
    chart.getStyler().setSeriesColors(new Color[] {color});
    chart.getStyler().setAvailableSpaceFill(0.55);
    chart.addSeries(title, reports.stream().map(StrategyReport::strategy).toList(),
        reports.stream().map(r -> (Number) value.applyAsLong(r)).toList());
    return chart;
  }

  /** White, light grid, values written just above the bars, with room above {@code most} for them. */
  private static void style(CategoryStyler s, String decimalPattern, long most) {
    s.setChartBackgroundColor(Color.WHITE);
    s.setPlotBackgroundColor(Color.WHITE);
    s.setPlotBorderVisible(false);
    s.setPlotGridLinesColor(GRID);
    s.setPlotGridVerticalLinesVisible(false);
    s.setChartTitleFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
    s.setChartTitleBoxVisible(false);
    s.setChartFontColor(TEXT);
    s.setAxisTickLabelsFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    s.setAxisTicksMarksVisible(false);
    s.setLegendFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    s.setLegendBorderColor(Color.WHITE);
    s.setLabelsVisible(true);
    s.setLabelsFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
    s.setLabelsFontColorAutomaticEnabled(false);
    s.setLabelsFontColor(TEXT);
    s.setLabelsPosition(1.03);
    s.setDecimalPattern(decimalPattern);
    s.setYAxisMin(0.0);
    s.setYAxisMax(Math.max(1, most) * 1.12);
  }
}

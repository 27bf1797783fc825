package io.relock.spring;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.relock.micrometer.RelockObservations;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.annotations.XYTextAnnotation;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.SymbolAxis;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.StandardXYBarPainter;
import org.jfree.chart.renderer.xy.XYBarRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.RectangleInsets;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.xy.XYIntervalSeries;
import org.jfree.data.xy.XYIntervalSeriesCollection;

/**
 * Draws spans as a timeline (a PNG, with JFreeChart): one row per span, top to bottom in the
 * order given, each a bar from its start to its end on a shared axis of milliseconds since the
 * first span started, labelled with its name and its relock attributes. For {@link
 * LockWaitTraceTest}: its spans are drawn when the system property {@value #PROPERTY} names a file.
 */
final class LockWaitTimeline {

  /** The system property naming the PNG to write; relative to the repository's root. */
  static final String PROPERTY = "relock.trace.png";

  private static final String SERVER = "HTTP server span";
  private static final Color SERVER_COLOUR = new Color(0xC6DBEF);
  private static final Color WAIT_COLOUR = new Color(0xFDD0A2);
  private static final Color HOLD_COLOUR = new Color(0xC7E9C0);

  private LockWaitTimeline() {}

  /** Writes {@code spans} (the first request's server span, wait and hold, then the second's) to the file asked for, if any. */
  static void writeIfAsked(List<SpanData> spans) {
    String file = System.getProperty(PROPERTY, "");
    if (file.isBlank()) {
      return;
    }
    Path out = repositoryRoot().resolve(file);
    try {
      Files.createDirectories(out.toAbsolutePath().getParent());
      ChartUtils.saveChartAsPNG(out.toFile(), chart(spans), 1400, 600);
    } catch (IOException e) {
      throw new UncheckedIOException("could not write " + out, e);
    }
    System.out.println("wrote the trace's timeline to " + out.toAbsolutePath());
  }

  /** The nearest directory up from the working directory (the module's) that has the Maven wrapper. */
  private static Path repositoryRoot() {
    Path dir = Path.of("").toAbsolutePath();
    for (Path d = dir; d != null; d = d.getParent()) {
      if (Files.isRegularFile(d.resolve("mvnw"))) {
        return d;
      }
    }
    return dir;
  }

  static JFreeChart chart(List<SpanData> spans) {
    long zero = spans.stream().mapToLong(SpanData::getStartEpochNanos).min().orElse(0);
    long last = spans.stream().mapToLong(SpanData::getEndEpochNanos).max().orElse(0);
    double span = ms(last - zero);

    Map<String, XYIntervalSeries> series = new LinkedHashMap<>();
    series.put(SERVER, new XYIntervalSeries(SERVER));
    series.put(RelockObservations.WAIT, new XYIntervalSeries(RelockObservations.WAIT));
    series.put(RelockObservations.HOLD, new XYIntervalSeries(RelockObservations.HOLD));
    List<String> rows = new ArrayList<>();
    List<XYTextAnnotation> labels = new ArrayList<>();
    Map<String, Integer> requests = new LinkedHashMap<>();
    Double handOver = null;
    for (int row = 0; row < spans.size(); row++) {
      SpanData s = spans.get(row);
      int request = requests.computeIfAbsent(s.getTraceId(), t -> requests.size() + 1);
      boolean server = s.getKind() == SpanKind.SERVER;
      rows.add("request " + request + ": " + s.getName());
      double start = ms(s.getStartEpochNanos() - zero);
      double end = ms(s.getEndEpochNanos() - zero);
      // The bar in the lower part of its row, its label above it.
      series.get(server ? SERVER : s.getName()).add(row, row - 0.02, row + 0.36, start, start, end);
      XYTextAnnotation label = new XYTextAnnotation(describe(s, server), row - 0.06, 0);
      label.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
      label.setPaint(Color.BLACK);
      // From the bar's start rightwards, or, late in the timeline, leftwards from its end.
      if (start <= span / 2) {
        label.setY(start);
        label.setTextAnchor(TextAnchor.BOTTOM_LEFT);
      } else {
        label.setY(end);
        label.setTextAnchor(TextAnchor.BOTTOM_RIGHT);
      }
      labels.add(label);
      if (request == 1 && RelockObservations.HOLD.equals(s.getName())) {
        handOver = end;
      }
    }

    XYIntervalSeriesCollection data = new XYIntervalSeriesCollection();
    series.values().forEach(data::addSeries);
    SymbolAxis rowAxis = new SymbolAxis(null, rows.toArray(String[]::new));
    rowAxis.setInverted(true);
    rowAxis.setGridBandsVisible(false);
    rowAxis.setTickLabelFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
    NumberAxis timeAxis = new NumberAxis("milliseconds since the first request started");
    timeAxis.setRange(-span * 0.01, span * 1.01);
    timeAxis.setLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
    XYBarRenderer bars = new XYBarRenderer();
    bars.setUseYInterval(true);
    bars.setBarPainter(new StandardXYBarPainter());
    bars.setShadowVisible(false);
    bars.setDrawBarOutline(true);
    bars.setDefaultOutlinePaint(Color.GRAY);
    bars.setSeriesPaint(0, SERVER_COLOUR);
    bars.setSeriesPaint(1, WAIT_COLOUR);
    bars.setSeriesPaint(2, HOLD_COLOUR);

    XYPlot plot = new XYPlot(data, rowAxis, timeAxis, bars);
    plot.setOrientation(PlotOrientation.HORIZONTAL);
    plot.setBackgroundPaint(Color.WHITE);
    plot.setRangeGridlinePaint(new Color(0xDDDDDD));
    plot.setDomainGridlinesVisible(false);
    labels.forEach(plot::addAnnotation);
    if (handOver != null) {
      ValueMarker marker = new ValueMarker(handOver, new Color(0xB2182B), new BasicStroke(1.5f,
          BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f));
      marker.setLabel("request 1's hold ends: handed over to request 2 ");
      marker.setLabelFont(new Font(Font.SANS_SERIF, Font.ITALIC, 12));
      marker.setLabelPaint(new Color(0xB2182B));
      marker.setLabelBackgroundColor(new Color(255, 255, 255, 220));
      marker.setLabelAnchor(RectangleAnchor.BOTTOM_LEFT);
      marker.setLabelTextAnchor(TextAnchor.BOTTOM_RIGHT);
      marker.setLabelOffset(new RectangleInsets(4, 4, 4, 4));
      plot.addRangeMarker(marker);
    }

    String lock = spans.stream().map(s -> s.getAttributes().get(AttributeKey.stringKey(RelockObservations.LOCK_NAME)))
        .filter(n -> n != null).findFirst().orElse("?");
    JFreeChart chart = new JFreeChart("Two HTTP requests contend for one @Locked method",
        new Font(Font.SANS_SERIF, Font.BOLD, 18), plot, true);
    chart.addSubtitle(new TextTitle("lock '" + lock + "': OpenTelemetry spans exported by LockWaitTraceTest",
        new Font(Font.SANS_SERIF, Font.PLAIN, 13)));
    chart.setBackgroundPaint(Color.WHITE);
    return chart;
  }

  private static String describe(SpanData s, boolean server) {
    String took = String.format(Locale.ROOT, "%.1f ms", ms(s.getEndEpochNanos() - s.getStartEpochNanos()));
    if (server) {
      return "trace " + s.getTraceId().substring(0, 8) + "…  " + took;
    }
    String text = "token " + attribute(s, RelockObservations.FENCING_TOKEN)
        + "  handed.over=" + attribute(s, RelockObservations.HANDED_OVER)
        + "  outcome=" + attribute(s, RelockObservations.OUTCOME);
    return text + "  " + took;
  }

  private static String attribute(SpanData s, String key) {
    return s.getAttributes().get(AttributeKey.stringKey(key));
  }

  private static double ms(long nanos) {
    return nanos / 1e6;
  }
}

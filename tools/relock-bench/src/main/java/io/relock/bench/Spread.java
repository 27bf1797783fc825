package io.relock.bench;

import java.util.Arrays;
import java.util.Locale;

/**
 * One figure over a row's measured windows: the median (what the tables, ratios and targets use)
 * and the lowest and highest window (how far one window alone could have been off). Windows with
 * nothing to show (NaN: nothing acquired) are left out; with none left every part is NaN.
 */
record Spread(double min, double median, double max) {

  static final Spread NONE = new Spread(Double.NaN, Double.NaN, Double.NaN);

  static Spread of(double... values) {
    double[] v = Arrays.stream(values).filter(d -> !Double.isNaN(d)).sorted().toArray();
    if (v.length == 0) {
      return NONE;
    }
    int mid = v.length / 2;
    double median = v.length % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
    return new Spread(v[0], median, v[v.length - 1]);
  }

  /**
   * The range as {@code low–high} with {@code decimals} decimals and thousands separators, or
   * {@code -} when not measured.
   */
  String rangeText(int decimals) {
    if (Double.isNaN(median)) {
      return "-";
    }
    String f = "%,." + decimals + "f";
    return String.format(Locale.ROOT, f + "–" + f, min, max);
  }

  /** (max - min) / median: 0.1 means the windows lay within a tenth of the median of each other. */
  double relativeWidth() {
    return median == 0 || Double.isNaN(median) ? Double.NaN : (max - min) / median;
  }
}

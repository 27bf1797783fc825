package io.relock.cli;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/** Durations as people write them on a command line, and as the tool prints them. */
final class Durations {
  private static final Pattern FORM = Pattern.compile("(\\d{1,12})(ms|s|m|h|d)");

  private Durations() {}

  /**
   * Reads {@code 500ms}, {@code 10s}, {@code 5m}, {@code 2h}, {@code 1d}, or a sum of them written
   * together ({@code 1m30s}); {@code 0} alone is zero.
   *
   * @throws IllegalArgumentException naming the text, if it is anything else
   */
  static Duration parse(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    if (t.equals("0")) {
      return Duration.ZERO;
    }
    Matcher m = FORM.matcher(t);
    Duration total = Duration.ZERO;
    int at = 0;
    while (at < t.length() && m.find(at) && m.start() == at) {
      long n = Long.parseLong(m.group(1));
      total = total.plus(switch (m.group(2)) {
        case "ms" -> Duration.ofMillis(n);
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        case "h" -> Duration.ofHours(n);
        default -> Duration.ofDays(n);
      });
      at = m.end();
    }
    if (t.isEmpty() || at != t.length()) {
      throw new IllegalArgumentException("'" + text + "' is not a duration: write a number and a unit (ms, s, m, h"
          + " or d), such as 500ms, 10s, 5m or 1m30s");
    }
    return total;
  }

  /** For picocli: a bad duration is a usage error naming the option and the value. */
  static final class Converter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      try {
        return parse(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }

  /** {@code 850ms}, {@code 29.9s}, {@code 4m10s}, {@code 2h05m}, {@code 3d04h}. */
  static String human(Duration d) {
    long ms = d.toMillis();
    if (ms < 1000) {
      return ms + "ms";
    }
    if (ms < 60_000) {
      return String.format(Locale.ROOT, "%.1fs", ms / 1000.0);
    }
    long s = ms / 1000;
    if (s < 3600) {
      return (s / 60) + "m" + String.format(Locale.ROOT, "%02d", s % 60) + "s";
    }
    if (s < 86_400) {
      return (s / 3600) + "h" + String.format(Locale.ROOT, "%02d", s % 3600 / 60) + "m";
    }
    if (s > 100L * 365 * 86_400) {
      return "no expiry";
    }
    return (s / 86_400) + "d" + String.format(Locale.ROOT, "%02d", s % 86_400 / 3600) + "h";
  }
}

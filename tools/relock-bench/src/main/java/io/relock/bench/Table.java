package io.relock.bench;

import java.util.ArrayList;
import java.util.List;

/** A titled table, printed aligned for the terminal; the docs' template {@code table.mustache} writes it as Markdown. */
record Table(String title, List<String> header, List<List<String>> rows) {

  Table(String title, List<String> header) {
    this(title, List.copyOf(header), new ArrayList<>());
  }

  void add(String... cells) {
    if (cells.length != header.size()) {
      throw new IllegalArgumentException(cells.length + " cells for " + header.size() + " columns");
    }
    rows.add(List.of(cells));
  }

  /** Whether column {@code i} is right-aligned: not the first, and it holds figures, not words. */
  boolean rightAligned(int i) {
    return i > 0 && figures(i);
  }

  /** Whether column {@code i} holds figures, not words: every cell starts with a digit, '<' or is '-'. */
  private boolean figures(int i) {
    for (List<String> r : rows) {
      String c = r.get(i);
      if (!c.equals("-") && !c.isEmpty() && !Character.isDigit(c.charAt(0)) && c.charAt(0) != '<') {
        return false;
      }
    }
    return true;
  }

  String toText() {
    int[] widths = new int[header.size()];
    for (int i = 0; i < widths.length; i++) {
      widths[i] = header.get(i).length();
      for (List<String> r : rows) {
        widths[i] = Math.max(widths[i], r.get(i).length());
      }
    }
    StringBuilder out = new StringBuilder(title).append('\n');
    appendText(out, header, widths);
    for (List<String> r : rows) {
      appendText(out, r, widths);
    }
    return out.toString();
  }

  private static void appendText(StringBuilder out, List<String> cells, int[] widths) {
    for (int i = 0; i < cells.size(); i++) {
      String c = cells.get(i);
      out.append(i == 0 ? "  " : "  ");
      if (i == 0) {
        out.append(c).append(" ".repeat(widths[i] - c.length()));
      } else {
        out.append(" ".repeat(widths[i] - c.length())).append(c);
      }
    }
    out.append('\n');
  }
}

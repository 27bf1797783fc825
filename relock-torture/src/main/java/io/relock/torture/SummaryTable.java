package io.relock.torture;

import java.util.ArrayList;
import java.util.List;

/**
 * The per-fault table printed at the end of a suite (and written to docs/safety.md), and the final
 * one-line summary scripts read.
 */
final class SummaryTable {

  static final List<String> HEADER = List.of("run", "faults", "holds", "overlaps (a)", "stale ops refused",
      "fenced violations (b)", "lost holds", "told: onLost / invalid / LockLost", "unreported (c)",
      "dead holders", "max regrant ms", "stuck (d)", "fenced writes", "lost updates (e)",
      "lost: write-only fence / no fence");

  private SummaryTable() {}

  static List<String> row(RunResult r) {
    LossCheck.Result l = r.losses();
    return List.of(
        r.run(),
        Integer.toString(r.faultsDone().size()),
        Integer.toString(r.holds()),
        r.overlaps().pairs() + (r.forbiddenOverlaps() > 0 ? " (" + r.forbiddenOverlaps() + " unexplained) FAIL" : ""),
        Integer.toString(r.fencing().staleRefused()),
        mark(r.fencing().violations()),
        Integer.toString(l.lost()),
        l.noticed() + " / " + l.invalidBeforeClose() + " / " + l.lostAtClose(),
        mark(l.unreported()),
        Integer.toString(r.stuck().measured()),
        r.stuck().measured() == 0 ? "-" : r.stuck().maxMillis() == Long.MAX_VALUE ? "never" : Long.toString(r.stuck().maxMillis()),
        mark(r.stuck().stuck()),
        Long.toString(r.updates().accepted()),
        mark(r.updates().lost()),
        r.updates().writeOnlyLost() + " / " + r.updates().unfencedLost());
  }

  private static String mark(long n) {
    return n == 0 ? "0" : n + " FAIL";
  }

  /** A Markdown table, readable as plain text too. */
  static List<String> markdown(List<RunResult> results) {
    List<List<String>> rows = new ArrayList<>();
    rows.add(HEADER);
    results.forEach(r -> rows.add(row(r)));
    rows.add(totals(results));
    int[] width = new int[HEADER.size()];
    for (List<String> row : rows) {
      for (int i = 0; i < row.size(); i++) {
        width[i] = Math.max(width[i], row.get(i).length());
      }
    }
    List<String> lines = new ArrayList<>();
    for (int r = 0; r < rows.size(); r++) {
      lines.add(line(rows.get(r), width));
      if (r == 0) {
        StringBuilder rule = new StringBuilder("|");
        for (int w : width) {
          rule.append("-".repeat(w + 2)).append('|');
        }
        lines.add(rule.toString());
      }
    }
    return lines;
  }

  private static List<String> totals(List<RunResult> results) {
    List<String> t = new ArrayList<>();
    t.add("total");
    long[] sums = new long[HEADER.size()];
    for (RunResult r : results) {
      sums[1] += r.faultsDone().size();
      sums[2] += r.holds();
      sums[3] += r.overlaps().pairs();
      sums[4] += r.fencing().staleRefused();
      sums[5] += r.fencing().violations();
      sums[6] += r.losses().lost();
      sums[8] += r.losses().unreported();
      sums[9] += r.stuck().measured();
      sums[11] += r.stuck().stuck();
      sums[12] += r.updates().accepted();
      sums[13] += r.updates().lost();
    }
    for (int i = 1; i < HEADER.size(); i++) {
      t.add(i == 7 || i == 10 || i == 14 ? "" : Long.toString(sums[i]));
    }
    return t;
  }

  private static String line(List<String> cells, int[] width) {
    StringBuilder s = new StringBuilder("|");
    for (int i = 0; i < cells.size(); i++) {
      String c = cells.get(i);
      s.append(' ').append(c).append(" ".repeat(width[i] - c.length())).append(" |");
    }
    return s.toString();
  }

  /** The line scripts read. Unfenced overlaps are all overlaps, expected ones included. */
  static String summaryLine(List<RunResult> results) {
    long overlaps = results.stream().mapToLong(r -> r.overlaps().pairs()).sum();
    long fenced = results.stream().mapToLong(r -> r.fencing().violations()).sum();
    long unreported = results.stream().mapToLong(r -> r.losses().unreported()).sum();
    long stuck = results.stream().mapToLong(r -> r.stuck().stuck()).sum();
    long lost = results.stream().mapToLong(r -> r.updates().lost()).sum();
    return "torture: runs=" + results.size() + " unfenced_overlaps=" + overlaps + " fenced_violations=" + fenced
        + " unreported_losses=" + unreported + " stuck_locks=" + stuck + " lost_updates=" + lost;
  }
}

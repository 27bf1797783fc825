package io.relock.cli;

import io.relock.LockInfo;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/** Locks for people: aligned tables, durations in human units, client ids shortened in tables. */
final class LockText {
  private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");

  private LockText() {}

  /** {@code status}: one field per line. */
  static List<String> status(LockInfo info) {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"lock", info.name()});
    if (info.holder().isPresent()) {
      LockInfo.Holder h = info.holder().get();
      rows.add(new String[] {"state", "held"});
      rows.add(new String[] {"client", h.clientId()});
      rows.add(new String[] {"owner", h.ownerId()});
      rows.add(new String[] {"since", since(h)});
      rows.add(new String[] {"lease", Durations.human(h.remainingLease()) + " remaining"});
      rows.add(new String[] {"token", Long.toString(h.fencingToken())});
      rows.add(new String[] {"holds", Integer.toString(h.holdCount())});
    } else {
      rows.add(new String[] {"state", "free"});
    }
    rows.add(new String[] {"last token", info.lastToken() == 0 ? "-" : Long.toString(info.lastToken())});
    rows.add(new String[] {"waiters", info.waiters().isEmpty() ? "none" : Integer.toString(info.waiters().size())});
    List<String> lines = aligned(rows);
    int n = 1;
    for (LockInfo.Waiter w : info.waiters()) {
      lines.add("  " + n++ + ". client " + w.clientId() + "  owner " + w.ownerId());
    }
    return lines;
  }

  /** {@code list}: a table with a header row. */
  static List<String> table(List<LockInfo> infos) {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"NAME", "CLIENT", "SINCE", "LEASE", "TOKEN", "HOLDS", "WAITERS"});
    for (LockInfo info : infos) {
      LockInfo.Holder h = info.holder().orElseThrow();
      rows.add(new String[] {info.name(), shortId(h.clientId()), since(h), Durations.human(h.remainingLease()),
          Long.toString(h.fencingToken()), Integer.toString(h.holdCount()), Integer.toString(info.waiters().size())});
    }
    return aligned(rows);
  }

  /** {@code watch}: one line for a state, stamped with the local time it was seen. */
  static String change(LockInfo info, Instant at) {
    String time = LocalTime.ofInstant(at, ZoneId.systemDefault()).format(CLOCK);
    StringBuilder line = new StringBuilder(time).append("  ");
    if (info.holder().isPresent()) {
      LockInfo.Holder h = info.holder().get();
      line.append("held by ").append(shortId(h.clientId())).append(" (owner ").append(h.ownerId())
          .append(", token ").append(h.fencingToken()).append(", lease ").append(Durations.human(h.remainingLease()))
          .append(')');
    } else {
      line.append("free (last token ").append(info.lastToken() == 0 ? "-" : Long.toString(info.lastToken()))
          .append(')');
    }
    if (info.waiters().isEmpty()) {
      line.append(", no waiters");
    } else {
      line.append(", ").append(info.waiters().size()).append(" waiting:");
      for (LockInfo.Waiter w : info.waiters()) {
        line.append(' ').append(shortId(w.clientId()));
      }
    }
    return line.toString();
  }

  /** The first 8 hex digits of a client id: enough to tell clients apart in a table. */
  static String shortId(String clientId) {
    return clientId.length() > 8 ? clientId.substring(0, 8) : clientId;
  }

  private static String since(LockInfo.Holder h) {
    return h.since().map(Instant::toString).orElse("-");
  }

  /** Columns padded to their widest cell; the last column is not padded. */
  private static List<String> aligned(List<String[]> rows) {
    int columns = rows.get(0).length;
    int[] width = new int[columns];
    for (String[] row : rows) {
      for (int c = 0; c < columns; c++) {
        width[c] = Math.max(width[c], row[c].length());
      }
    }
    List<String> lines = new ArrayList<>();
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int c = 0; c < columns; c++) {
        line.append(row[c]);
        if (c < columns - 1) {
          line.append(" ".repeat(width[c] - row[c].length() + 2));
        }
      }
      lines.add(line.toString().stripTrailing());
    }
    return lines;
  }
}

package io.relock.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * CPU time of a server process and everything it started (PostgreSQL's backends, say), read from
 * {@code /proc}: for the root and each live descendant its user and system time, plus the time of
 * the children each has already reaped (a backend that exited is counted by the postmaster).
 */
final class ProcessCpu {

  /** Linux's USER_HZ: /proc counts CPU in ticks of 1/100 s on every mainstream kernel build. */
  static final double TICKS_PER_SECOND = 100;

  /** One line of {@code /proc/<pid>/stat}, the fields this class needs. */
  record Stat(long pid, long parent, long ownTicks, long reapedTicks) {

    /**
     * Reads a stat line; the command name may hold spaces and parentheses, so fields are counted
     * from the last ')'.
     */
    static Stat parse(String line) {
      int open = line.indexOf('(');
      String[] f = line.substring(line.lastIndexOf(')') + 2).trim().split("\\s+");
      // f[0] is field 3 (state): ppid is field 4, utime..cstime are fields 14..17.
      return new Stat(Long.parseLong(line.substring(0, open).trim()), Long.parseLong(f[1]),
          Long.parseLong(f[11]) + Long.parseLong(f[12]), Long.parseLong(f[13]) + Long.parseLong(f[14]));
    }
  }

  private ProcessCpu() {}

  /** Seconds of CPU used so far by {@code root} and its descendants; NaN when it cannot be read (not Linux, gone). */
  static double seconds(long root) {
    try {
      return ticks(root, readAll()) / TICKS_PER_SECOND;
    } catch (IOException | RuntimeException e) {
      return Double.NaN;
    }
  }

  /** Ticks of {@code root} and its descendants among {@code stats}; throws if root is not there. */
  static long ticks(long root, List<Stat> stats) {
    Map<Long, List<Stat>> children = new HashMap<>();
    Stat rootStat = null;
    for (Stat s : stats) {
      children.computeIfAbsent(s.parent(), p -> new ArrayList<>()).add(s);
      if (s.pid() == root) {
        rootStat = s;
      }
    }
    if (rootStat == null) {
      throw new IllegalStateException("no process " + root);
    }
    long total = 0;
    Deque<Stat> todo = new ArrayDeque<>(List.of(rootStat));
    while (!todo.isEmpty()) {
      Stat s = todo.pop();
      total += s.ownTicks() + s.reapedTicks();
      todo.addAll(children.getOrDefault(s.pid(), List.of()));
    }
    return total;
  }

  private static List<Stat> readAll() throws IOException {
    List<Stat> out = new ArrayList<>();
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
      for (Path dir : dirs) {
        try {
          out.add(Stat.parse(Files.readString(dir.resolve("stat"))));
        } catch (IOException | RuntimeException e) {
          // Gone between the listing and the read.
        }
      }
    }
    return out;
  }
}

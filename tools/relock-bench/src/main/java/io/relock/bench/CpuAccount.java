package io.relock.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How much of the machine's CPU went to processes other than the bench during a run: the
 * machine's busy time from {@code /proc/stat} minus this process's own and its reaped children's
 * (worker JVMs, and the redis-server the bench started) from {@code /proc/self/stat}. On a shared
 * machine, figures from a run where others took a noticeable share are not comparable.
 *
 * @param busyTicks busy time of all CPUs, in clock ticks
 * @param totalTicks busy plus idle time of all CPUs, in clock ticks
 * @param ownTicks this process's user and system time plus that of its reaped children
 */
record CpuAccount(long busyTicks, long totalTicks, long ownTicks) {

  /** Now; null where /proc is not there (not Linux). */
  static CpuAccount now() {
    try {
      return parse(Files.readString(Path.of("/proc/stat")), Files.readString(Path.of("/proc/self/stat")));
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  static CpuAccount parse(String procStat, String selfStat) {
    String cpu = procStat.lines().filter(l -> l.startsWith("cpu ")).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no cpu line in /proc/stat"));
    String[] f = cpu.trim().split("\\s+");
    long user = Long.parseLong(f[1]);
    long nice = Long.parseLong(f[2]);
    long system = Long.parseLong(f[3]);
    long idle = Long.parseLong(f[4]);
    long iowait = f.length > 5 ? Long.parseLong(f[5]) : 0;
    long irq = f.length > 6 ? Long.parseLong(f[6]) : 0;
    long softirq = f.length > 7 ? Long.parseLong(f[7]) : 0;
    long steal = f.length > 8 ? Long.parseLong(f[8]) : 0;
    long busy = user + nice + system + irq + softirq + steal;
    // The command name may hold spaces and parentheses; the fields after the last ')' start at 3.
    String[] s = selfStat.substring(selfStat.lastIndexOf(')') + 2).trim().split("\\s+");
    long own = Long.parseLong(s[11]) + Long.parseLong(s[12]) + Long.parseLong(s[13]) + Long.parseLong(s[14]);
    return new CpuAccount(busy, busy + idle + iowait, own);
  }

  /** The share (0..1) of all CPU time between {@code earlier} and this that was busy, whoever used it. */
  double busyShareSince(CpuAccount earlier) {
    long total = totalTicks - earlier.totalTicks;
    return total <= 0 ? Double.NaN : Math.max(0, Math.min(1, (double) (busyTicks - earlier.busyTicks) / total));
  }

  /** The share (0..1) of all CPU time between {@code earlier} and this that others used. */
  double othersShareSince(CpuAccount earlier) {
    return othersShareSince(earlier, 0);
  }

  /**
   * The same, counting {@code alsoOwnTicks} more as the bench's own: CPU of processes it started
   * that are not its children (a PostgreSQL server that pg_ctl detached).
   */
  double othersShareSince(CpuAccount earlier, long alsoOwnTicks) {
    long total = totalTicks - earlier.totalTicks;
    if (total <= 0) {
      return 0;
    }
    long others = (busyTicks - earlier.busyTicks) - (ownTicks - earlier.ownTicks) - alsoOwnTicks;
    return Math.max(0, Math.min(1, (double) others / total));
  }
}

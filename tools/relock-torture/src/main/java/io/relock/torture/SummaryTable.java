package io.relock.torture;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The per-fault table printed at the end of a suite (and written to docs/safety.md), and the final
 * one-line summary scripts read.
 */
final class SummaryTable {

  static final List<String> HEADER = List.of("run", "topology", "lock", "replica acks", "faults", "holds", "overlaps (a)",
      "stale ops refused",
      "fenced violations (b)", "lost holds", "told: onLost / invalid / LockLost", "unreported (c)",
      "dead holders", "max regrant ms", "stuck (d)", "fenced writes", "lost updates (e)",
      "lost: write-only fence / no fence");

  private SummaryTable() {}

  static List<String> row(RunResult r) {
    LossCheck.Result l = r.losses();
    return List.of(
        r.run(),
        r.topology().id,
        r.workload().kind(),
        r.topology() == Topology.REDLOCK ? "-" : acks(r.replicaAcks()),
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

  /** replicaAcks as the table shows it: off, or replicas and timeout. */
  static String acks(int replicaAcks) {
    return replicaAcks == 0 ? "off" : replicaAcks + " (" + TortureSettings.REPLICA_ACK_TIMEOUT.toMillis() + " ms)";
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
    long faults = 0;
    long holds = 0;
    long overlaps = 0;
    long refused = 0;
    long violations = 0;
    long lost = 0;
    long unreported = 0;
    long dead = 0;
    long stuck = 0;
    long writes = 0;
    long lostUpdates = 0;
    for (RunResult r : results) {
      faults += r.faultsDone().size();
      holds += r.holds();
      overlaps += r.overlaps().pairs();
      refused += r.fencing().staleRefused();
      violations += r.fencing().violations();
      lost += r.losses().lost();
      unreported += r.losses().unreported();
      dead += r.stuck().measured();
      stuck += r.stuck().stuck();
      writes += r.updates().accepted();
      lostUpdates += r.updates().lost();
    }
    return List.of("total", "", "", "", Long.toString(faults), Long.toString(holds), Long.toString(overlaps),
        Long.toString(refused), Long.toString(violations), Long.toString(lost), "", Long.toString(unreported),
        Long.toString(dead), "", Long.toString(stuck), Long.toString(writes), Long.toString(lostUpdates), "");
  }

  private static String line(List<String> cells, int[] width) {
    StringBuilder s = new StringBuilder("|");
    for (int i = 0; i < cells.size(); i++) {
      String c = cells.get(i);
      s.append(' ').append(c).append(" ".repeat(width[i] - c.length())).append(" |");
    }
    return s.toString();
  }

  /**
   * What the Sentinel runs measured, in one line: per replicaAcks setting, failovers, holds the
   * hole erased, told and overlapped, acquisitions that failed, overlaps; then what replicaAcks
   * cost an acquisition. Null if no run used the Sentinel topology.
   */
  static String sentinelLine(List<RunResult> results) {
    List<RunResult> sentinel = results.stream().filter(r -> r.topology() == Topology.SENTINEL).toList();
    if (sentinel.isEmpty()) {
      return null;
    }
    List<String> parts = new ArrayList<>();
    for (int acks : sentinel.stream().mapToInt(RunResult::replicaAcks).distinct().sorted().toArray()) {
      List<RunResult> rs = sentinel.stream().filter(r -> r.replicaAcks() == acks).toList();
      parts.add(String.format(Locale.ROOT, "replicaAcks %s: %d runs, %d failovers (%d with replication cut first,"
              + " longest %d ms), %d holds erased by the hole (%d told, %d overlapped by the next holder),"
              + " %d acquisitions failed with RelockException (%d for want of a replica's acknowledgement),"
              + " %d overlaps",
          acks(acks), rs.size(), sum(rs, r -> r.failover().failovers()), sum(rs, r -> r.failover().holes()),
          rs.stream().mapToLong(r -> r.failover().maxFailoverMillis()).max().orElse(0),
          sum(rs, r -> r.failover().erased()), sum(rs, r -> r.failover().erasedTold()),
          sum(rs, r -> r.failover().erasedOverlapped()), sum(rs, r -> r.failover().acquireErrors()),
          sum(rs, r -> r.failover().ackRefusals()), sum(rs, r -> r.overlaps().pairs())));
    }
    String cost = ackCost(sentinel);
    return "sentinel: " + String.join("; ", parts) + (cost == null ? "" : "; " + cost);
  }

  /** The slot migrations a Cluster run did, from its list of faults. */
  static long migrations(RunResult r) {
    return r.faultsDone().stream().filter(d -> d.startsWith(Fault.MIGRATE_SLOT.id + " ")).count();
  }

  /**
   * What the Cluster runs measured, in one line: primaries killed, slots migrated, acquisitions
   * that failed, overlaps. Null if no run used the Cluster topology.
   */
  static String clusterLine(List<RunResult> results) {
    List<RunResult> cluster = results.stream().filter(r -> r.topology() == Topology.CLUSTER).toList();
    if (cluster.isEmpty()) {
      return null;
    }
    return String.format(Locale.ROOT, "cluster: %d runs, %d primaries killed (longest takeover %d ms), %d slots migrated"
            + " under load, %d acquisitions failed with RelockException (%d for want of a replica's acknowledgement),"
            + " %d overlaps (%d unexplained)", cluster.size(), sum(cluster, r -> r.failover().failovers()),
        cluster.stream().mapToLong(r -> r.failover().maxFailoverMillis()).max().orElse(0),
        sum(cluster, SummaryTable::migrations), sum(cluster, r -> r.failover().acquireErrors()),
        sum(cluster, r -> r.failover().ackRefusals()), sum(cluster, r -> r.overlaps().pairs()),
        sum(cluster, r -> r.overlaps().unexplained()));
  }

  /**
   * What the Redlock runs measured, in one line: the faults on masters, the holds restarts erased,
   * how many of them were told and overlapped by a later holder, and before they were told (with
   * and without the delayed restart), acquisitions that failed, keys left on a minority of the
   * masters. Null if no run used the Redlock topology.
   */
  static String redlockLine(List<RunResult> results) {
    List<RunResult> redlock = results.stream().filter(r -> r.topology() == Topology.REDLOCK).toList();
    if (redlock.isEmpty()) {
      return null;
    }
    List<String> parts = new ArrayList<>();
    parts.add(String.format(Locale.ROOT, "%d runs, %d masters cut off, %d paused, %d restarted without their data",
        redlock.size(), sum(redlock, r -> r.redlock().partitions()), sum(redlock, r -> r.redlock().pauses()),
        sum(redlock, r -> r.redlock().restarts())));
    for (Fault f : List.of(Fault.RESTART_MASTER, Fault.RESTART_MASTER_NODELAY, Fault.CLOCK_STEP_MASTER)) {
      List<RunResult> rs = redlock.stream().filter(r -> r.fault() == f).toList();
      if (rs.isEmpty()) {
        continue;
      }
      String what = switch (f) {
        case RESTART_MASTER -> "restarts with the delayed restart";
        case RESTART_MASTER_NODELAY -> "restarts without it (control)";
        default -> sum(rs, r -> r.redlock().clockSteps()) + " clock steps";
      };
      parts.add(String.format(Locale.ROOT, "%s: %d holds erased (%d told, %d overlapped by a later holder, %d of them"
              + " before the holder knew)", what, sum(rs, r -> r.redlock().erased()), sum(rs, r -> r.redlock().erasedTold()),
          sum(rs, r -> r.redlock().erasedOverlapped()), sum(rs, r -> r.redlock().overlappedBeforeTold())));
    }
    parts.add(String.format(Locale.ROOT, "%d acquisitions failed with RelockException, %d overlaps, %d keys left on"
            + " a master after the workers stopped", sum(redlock, r -> r.redlock().acquireErrors()),
        sum(redlock, r -> r.overlaps().pairs()), sum(redlock, r -> r.stuck().leftovers())));
    return "redlock: " + String.join("; ", parts);
  }

  /** The median cost of replicaAcks per uncontended acquisition, over the runs that measured it; or null. */
  static String ackCost(List<RunResult> results) {
    List<AckCost.Result> costs = results.stream().map(RunResult::ackCost).filter(c -> c != null).toList();
    if (costs.isEmpty()) {
      return null;
    }
    long off = medianOf(costs.stream().mapToLong(AckCost.Result::medianOffMicros).toArray());
    long on = medianOf(costs.stream().mapToLong(AckCost.Result::medianOnMicros).toArray());
    return String.format(Locale.ROOT, "uncontended acquire, median of %d runs' medians (up to %d samples each):"
        + " %.2f ms without replicaAcks, %.2f ms with replicaAcks %d (%+.2f ms)", costs.size(), AckCost.SAMPLES,
        off / 1000.0, on / 1000.0, costs.get(0).replicaAcks(), (on - off) / 1000.0);
  }

  private static long medianOf(long[] values) {
    long[] sorted = values.clone();
    java.util.Arrays.sort(sorted);
    return sorted.length % 2 == 1 ? sorted[sorted.length / 2]
        : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
  }

  private static long sum(List<RunResult> rs, java.util.function.ToLongFunction<RunResult> f) {
    return rs.stream().mapToLong(f).sum();
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

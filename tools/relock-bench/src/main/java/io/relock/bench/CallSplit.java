package io.relock.bench;

import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Which share of each command's calls came from clients rather than from Lua scripts, as seen
 * under {@code MONITOR} in a calibration window of the same implementation and load. Applied to
 * the {@code INFO commandstats} deltas of a measured window, it gives the calls clients made
 * there without monitoring that window (monitoring would slow it down).
 *
 * <p>Commands the calibration did not see fall back to the rule by name: commands a script cannot
 * run ({@link RedisInfo#isClientOnly}) and the implementation's declared direct data commands are
 * client calls, the rest script commands.
 */
final class CallSplit {

  private final Map<String, Double> clientShare;
  private final Map<String, long[]> seen;

  private CallSplit(Map<String, Double> clientShare, Map<String, long[]> seen) {
    this.clientShare = Collections.unmodifiableMap(clientShare);
    this.seen = seen;
  }

  /** No calibration: the rule by name alone. */
  static CallSplit none() {
    return new CallSplit(Map.of(), Map.of());
  }

  /** From counts per command of {client, script} calls. */
  static CallSplit fromMonitor(Map<String, long[]> counts) {
    Map<String, Double> share = new TreeMap<>();
    Map<String, long[]> seen = new TreeMap<>();
    counts.forEach((command, c) -> {
      long total = c[0] + c[1];
      if (total > 0) {
        share.put(command, (double) c[0] / total);
        seen.put(command, c.clone());
      }
    });
    return new CallSplit(share, Collections.unmodifiableMap(seen));
  }

  /** Whether a calibration stands behind this split. */
  boolean calibrated() {
    return !clientShare.isEmpty();
  }

  /** The share of {@code command}'s calls that clients sent. */
  double clientShare(String command, Set<String> directDataCommands) {
    Double s = clientShare.get(command);
    if (s != null) {
      return s;
    }
    return RedisInfo.isClientOnly(command) || directDataCommands.contains(command) ? 1 : 0;
  }

  /** Client calls among {@code calls} (per command, the harness's own left out). */
  long clientCalls(Map<String, Long> calls, Set<String> directDataCommands) {
    double n = 0;
    for (Map.Entry<String, Long> e : calls.entrySet()) {
      n += e.getValue() * clientShare(e.getKey(), directDataCommands);
    }
    return Math.round(n);
  }

  /** Script commands among {@code calls} (per command, the harness's own left out). */
  long scriptCalls(Map<String, Long> calls, Set<String> directDataCommands) {
    long all = 0;
    for (long c : calls.values()) {
      all += c;
    }
    return all - clientCalls(calls, directDataCommands);
  }

  /** What the calibration saw, per command: "client/script" counts. */
  Map<String, String> describe() {
    Map<String, String> m = new TreeMap<>();
    seen.forEach((k, v) -> m.put(k, v[0] + "/" + v[1]));
    return m;
  }
}

package io.relock.stress;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** What a stress run saw: how often each operation ended each way, and every broken invariant. */
final class StressLog {
  private static final int KEPT = 40;

  private final Map<String, LongAdder> outcomes = new ConcurrentHashMap<>();
  private final List<String> violations = new ArrayList<>();
  private long violationCount;

  /** Counts one operation's outcome, such as {@code "tryLock: true"}. */
  void count(String outcome) {
    outcomes.computeIfAbsent(outcome, k -> new LongAdder()).increment();
  }

  /** Records a broken invariant; the first ones are kept whole for the report. */
  synchronized void violation(String what) {
    violationCount++;
    if (violations.size() < KEPT) {
      violations.add(what);
    }
  }

  synchronized long violationCount() {
    return violationCount;
  }

  synchronized List<String> violations() {
    return List.copyOf(violations);
  }

  long total(String prefix) {
    long n = 0;
    for (Map.Entry<String, LongAdder> e : outcomes.entrySet()) {
      if (e.getKey().startsWith(prefix)) {
        n += e.getValue().sum();
      }
    }
    return n;
  }

  /** One line per outcome, sorted, then the violations. */
  synchronized String report(StressSettings settings) {
    StringBuilder out = new StringBuilder("stress run: ").append(settings).append('\n');
    new TreeMap<>(outcomes).forEach((k, v) -> out.append(String.format("  %-48s %,10d%n", k, v.sum())));
    out.append("violations: ").append(violationCount).append('\n');
    for (String v : violations) {
      out.append("  - ").append(v).append('\n');
    }
    return out.toString();
  }
}

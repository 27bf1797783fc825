package io.relock.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The holder-killed scenario for one implementation: holders killed with SIGKILL while another
 * process waited for each one's lock, and how long after each kill the waiter got it.
 *
 * @param impl the implementation
 * @param deathTimeout how long the system was told to wait before it gives up on a silent holder
 *     (relock's and Redisson's lease, the recipe's expiry, ZooKeeper's session timeout, etcd's
 *     lease time to live, the optimistic recipe's expiry; PostgreSQL's session locks have none)
 * @param millis per kill, the time from the signal to the next holder's acquisition; NaN when the
 *     waiter did not get the lock within the scenario's limit
 * @param limitMillis how long the waiter was given
 */
record TakeoverRow(Implementation impl, java.time.Duration deathTimeout, List<Double> millis, long limitMillis) {

  TakeoverRow {
    millis = List.copyOf(millis);
  }

  Spread spread() {
    return Spread.of(millis.stream().mapToDouble(Double::doubleValue).toArray());
  }

  /** Kills after which the waiter did not get the lock within the limit. */
  long stuck() {
    return millis.stream().filter(m -> m.isNaN()).count();
  }

  Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("scenario", "holder-killed");
    m.put("impl", impl.id());
    m.put("death_timeout_s", deathTimeout.toMillis() / 1000.0);
    m.put("kills", millis.size());
    m.put("next_holder_after_ms", new ArrayList<>(millis));
    Spread s = spread();
    m.put("median_ms", s.median());
    m.put("min_ms", s.min());
    m.put("max_ms", s.max());
    m.put("not_taken_over_within_ms", stuck() > 0 ? limitMillis : null);
    return m;
  }
}

package io.relock.torture;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Claim (e): no acknowledged update of the fenced counter is lost. Every write sets the counter to
 * the value its writer read plus one, so two accepted writes based on the same read leave one
 * increment lost. Walking the store's log of accepted writes back from the final value finds the
 * chain of writes the value reflects; an accepted write off that chain is lost, and so is a write
 * a worker saw accepted that the log does not have.
 *
 * <p>Also reports, for comparison and without judging, how many increments the two control
 * counters lost: write-only fencing and no fencing (see {@code read.lua}).
 */
final class UpdateCheck {

  record Result(long accepted, long acknowledged, int lost, long writeOnlyLost, long unfencedLost,
      List<String> examples) {}

  private UpdateCheck() {}

  static Result check(List<Hold> holds, Map<String, FencedStore.Counters> store) {
    long accepted = 0;
    int lost = 0;
    long writeOnlyLost = 0;
    long unfencedLost = 0;
    List<String> examples = new ArrayList<>();
    Set<String> logged = new HashSet<>();
    for (Map.Entry<String, FencedStore.Counters> e : store.entrySet()) {
      FencedStore.Counters c = e.getValue();
      accepted += c.fencedLog().size();
      long expected = c.fencedValue();
      List<FencedStore.LoggedWrite> log = c.fencedLog();
      for (int i = log.size() - 1; i >= 0; i--) {
        FencedStore.LoggedWrite w = log.get(i);
        logged.add(w.hold());
        if (w.base() + 1 == expected) {
          expected = w.base();
        } else {
          lost++;
          if (examples.size() < Checker.EXAMPLES) {
            examples.add("lost update on " + e.getKey() + ": the write of " + w.hold() + " (token " + w.token()
                + ", read " + w.base() + ") is not reflected in the final value " + c.fencedValue());
          }
        }
      }
      if (expected != 0) {
        lost++;
        examples.add("fenced counter of " + e.getKey() + " reached " + c.fencedValue()
            + " through writes missing from its log");
      }
      writeOnlyLost += c.writeOnlyWrites() - c.writeOnlyValue();
      unfencedLost += c.unfencedWrites() - c.unfencedValue();
    }
    long acknowledged = 0;
    for (Hold h : holds) {
      if (h.write != null && "accepted".equals(h.write.text("fenced"))) {
        acknowledged++;
        if (!logged.contains(h.id)) {
          lost++;
          if (examples.size() < Checker.EXAMPLES) {
            examples.add("lost update on " + h.lock + ": " + h + " saw its write accepted but the store has no record");
          }
        }
      }
    }
    return new Result(accepted, acknowledged, lost, writeOnlyLost, unfencedLost, examples);
  }
}

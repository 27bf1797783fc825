package io.relock.torture;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Reads one run's history and the fenced store's final state and checks claims (a) to (e). */
final class Checker {
  /** How many examples each check keeps for the report. */
  static final int EXAMPLES = 5;

  private Checker() {}

  static RunResult check(String run, Fault fault, List<String> faultsDone, History history,
      Map<String, FencedStore.Counters> store, TortureSettings settings) {
    return check(run, fault, faultsDone, history, store, settings, Topology.SINGLE, 0);
  }

  static RunResult check(String run, Fault fault, List<String> faultsDone, History history,
      Map<String, FencedStore.Counters> store, TortureSettings settings, Topology topology, int replicaAcks) {
    return check(run, fault, faultsDone, history, store, settings, topology, replicaAcks, Workload.EXCLUSIVE);
  }

  /**
   * Checks a run of {@code workload}. A read-write lock's holds go through the exclusive lock's
   * checks, which know that two readers may share it (see {@link Hold#supersededBy}); a semaphore's
   * overlaps and fencing are {@link PermitCheck}'s, and it has no counter whose updates could be
   * lost (its holders work side by side).
   */
  static RunResult check(String run, Fault fault, List<String> faultsDone, History history,
      Map<String, FencedStore.Counters> store, TortureSettings settings, Topology topology, int replicaAcks,
      Workload workload) {
    List<Hold> requests = Hold.requests(history);
    List<Hold> holds = requests.stream().filter(Hold::wasAcquired).toList();
    Timeline timeline = Timeline.of(history);
    int failedAcquisitions = (int) history.events().stream()
        .filter(e -> e.kind().equals(Event.ACQUIRE_FAILED) || e.kind().equals(Event.ACQUIRE_TIMEOUT)).count();
    boolean permits = workload == Workload.SEMAPHORE;
    List<String> problems = new ArrayList<>();
    history.ofKind(Event.UNEXPECTED).limit(EXAMPLES).forEach(e -> problems.add(
        "unexpected exception in " + e.hold() + ": " + e.text("error")));
    history.ofKind(Event.KILLED).filter(e -> "did not stop".equals(e.text("reason"))).forEach(e -> problems.add(
        "worker " + e.text("target") + " did not stop when asked (a thread hung)"));
    history.ofKind(Event.NEMESIS_ERROR).forEach(e -> problems.add("a nemesis step failed: " + e.text("error")));
    return new RunResult(run, fault, faultsDone, holds.size(), failedAcquisitions, history.unreadableLines(), problems,
        permits ? PermitCheck.overlaps(holds, timeline, settings.lease(), Workload.PERMITS)
            : OverlapCheck.check(holds, timeline, settings.lease()),
        permits ? PermitCheck.fencing(holds, timeline, Workload.PERMITS) : FencingCheck.check(holds, store, timeline),
        LossCheck.check(holds, timeline, settings.lease()),
        StuckLockCheck.check(history, requests, timeline, settings.lease(), settings.stuckBound()),
        permits ? UpdateCheck.check(List.of(), Map.of()) : UpdateCheck.check(holds, store), topology, replicaAcks,
        FailoverCheck.check(history, holds, timeline, replicaAcks),
        topology == Topology.REDLOCK ? RedlockCheck.check(history, holds, timeline, settings.lease()) : RedlockCheck.Result.NONE, null,
        workload);
  }
}

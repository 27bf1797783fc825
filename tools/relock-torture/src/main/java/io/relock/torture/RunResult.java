package io.relock.torture;

import java.util.ArrayList;
import java.util.List;

/**
 * What the checker found in one run.
 *
 * @param run the run's name
 * @param fault the fault of the run (NONE, a single fault, or COMBINED)
 * @param faultsDone the faults the nemesis actually injected, in order
 * @param holds acquisitions that were granted
 * @param failedAcquisitions acquisitions that timed out or failed
 * @param unreadableLines history lines that did not parse (a process killed while writing)
 * @param harnessProblems things that make the run's verdict untrustworthy: exceptions no relock
 *     method declares, workers that had to be killed because they did not stop, nemesis steps that failed
 * @param topology the lock Redis of the run
 * @param replicaAcks the workers' replicaAcks replicas (0: off)
 * @param failover what the failovers did (Sentinel runs; all zero but the failed acquisitions otherwise)
 * @param redlock what the faults on masters did (Redlock runs; {@link RedlockCheck.Result#NONE} otherwise)
 * @param ackCost the cost of replicaAcks measured after the run (Sentinel runs), or null
 * @param workload the kind of lock the workers took
 */
record RunResult(String run, Fault fault, List<String> faultsDone, int holds, int failedAcquisitions,
    int unreadableLines, List<String> harnessProblems, OverlapCheck.Result overlaps, FencingCheck.Result fencing, LossCheck.Result losses,
    StuckLockCheck.Result stuck, UpdateCheck.Result updates, Topology topology, int replicaAcks,
    FailoverCheck.Result failover, RedlockCheck.Result redlock, AckCost.Result ackCost, Workload workload) {

  RunResult withAckCost(AckCost.Result cost) {
    return new RunResult(run, fault, faultsDone, holds, failedAcquisitions, unreadableLines, harnessProblems, overlaps,
        fencing, losses, stuck, updates, topology, replicaAcks, failover, redlock, cost, workload);
  }

  /** Overlaps that count against the run: all of them without faults, else those no fault explains. */
  int forbiddenOverlaps() {
    return fault == Fault.NONE ? overlaps.pairs() : overlaps.unexplained();
  }

  /** Reasons this run fails the suite; empty if it passes. */
  List<String> failures() {
    List<String> f = new ArrayList<>();
    if (forbiddenOverlaps() > 0) {
      f.add("(a) " + forbiddenOverlaps() + (workload == Workload.SEMAPHORE ? " grants beyond the permits "
          : " overlapping holds ") + (fault == Fault.NONE ? "without faults"
          : "that no fault explains (a holder lost its lock while nothing kept it from renewing)"));
    }
    if (fencing.violations() > 0) {
      f.add("(b) " + fencing.violations() + " fencing violations");
    }
    if (losses.unreported() > 0) {
      f.add("(c) " + losses.unreported() + " unreported losses");
    }
    if (stuck.stuck() > 0) {
      f.add("(d) " + stuck.stuck() + " stuck locks");
    }
    if (updates.lost() > 0) {
      f.add("(e) " + updates.lost() + " lost updates");
    }
    if (failover.ackViolations(replicaAcks) > 0) {
      f.add("replicaAcks: " + failover.ackViolations(replicaAcks) + " holds granted while replication was cut,"
          + " which no replica can have acknowledged");
    }
    f.addAll(harnessProblems);
    if (holds == 0) {
      f.add("no lock was ever granted: the run tested nothing");
    }
    if (fault != Fault.NONE && faultsDone.isEmpty()) {
      f.add("the nemesis injected no fault: the run tested nothing");
    }
    return f;
  }

  /** Examples of everything found, violations and expected overlaps alike. */
  List<String> examples() {
    List<String> all = new ArrayList<>();
    overlaps.examples().stream().filter(e -> e.startsWith("unexplained")).forEach(all::add);
    all.addAll(fencing.examples());
    all.addAll(losses.examples());
    all.addAll(stuck.examples());
    all.addAll(updates.examples());
    all.addAll(failover.examples());
    all.addAll(redlock.examples());
    overlaps.examples().stream().filter(e -> !e.startsWith("unexplained")).forEach(all::add);
    return all;
  }
}

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
 *     method declares, workers that had to be killed because they did not stop
 */
record RunResult(String run, Fault fault, List<String> faultsDone, int holds, int failedAcquisitions,
    int unreadableLines, List<String> harnessProblems, OverlapCheck.Result overlaps, FencingCheck.Result fencing, LossCheck.Result losses,
    StuckLockCheck.Result stuck, UpdateCheck.Result updates) {

  /** Overlaps count against the run only without faults; under faults they are expected and shown. */
  boolean overlapsForbidden() {
    return fault == Fault.NONE;
  }

  /** Reasons this run fails the suite; empty if it passes. */
  List<String> failures() {
    List<String> f = new ArrayList<>();
    if (overlapsForbidden() && overlaps.pairs() > 0) {
      f.add("(a) " + overlaps.pairs() + " overlapping holds without faults");
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
    all.addAll(fencing.examples());
    all.addAll(losses.examples());
    all.addAll(stuck.examples());
    all.addAll(updates.examples());
    all.addAll(overlaps.examples());
    return all;
  }
}

package io.relock.bench;

import io.relock.bench.BenchTarget.Topology;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One pass of the bench: the topology it runs against and, for Redlock, how many independent
 * masters the bench starts. {@code --topology redlock} is one pass per group size (3 and 5 by
 * default): every acquisition talks to every master, so what it costs depends on the size, and
 * one size alone would hide how it grows.
 *
 * @param topology where the pass runs
 * @param masters the Redlock group's size; 0 for the other topologies, whose size is fixed
 */
record Deployment(Topology topology, int masters) {

  /** The group sizes {@code --topology redlock} runs when {@code --redlock-masters} is not given. */
  static final List<Integer> DEFAULT_REDLOCK_MASTERS = List.of(3, 5);

  Deployment {
    if (topology == Topology.REDLOCK ? masters < 3 || masters % 2 == 0 : masters != 0) {
      throw new IllegalArgumentException(topology == Topology.REDLOCK
          ? "Redlock needs an odd number of masters, at least 3, not " + masters
          : "only Redlock takes a number of masters, not " + topology.id());
    }
  }

  static Deployment of(Topology topology) {
    return new Deployment(topology, 0);
  }

  static Deployment redlock(int masters) {
    return new Deployment(Topology.REDLOCK, masters);
  }

  /**
   * The passes {@code --topology} and {@code --redlock-masters} ask for, in the order they run:
   * {@code all} is single, sentinel, cluster, then Redlock at each size.
   *
   * @param topology the option as given: a topology's name or {@code all}
   * @param redlockMasters the group sizes, or null for {@link #DEFAULT_REDLOCK_MASTERS}
   * @throws IllegalArgumentException for an unknown topology, a size Redlock cannot run on, a size
   *     given twice, or sizes given where no Redlock pass runs
   */
  static List<Deployment> plan(String topology, List<Integer> redlockMasters) {
    List<Topology> topologies = topology.trim().equalsIgnoreCase("all") ? List.of(Topology.values())
        : List.of(Topology.byId(topology));
    if (redlockMasters != null && !topologies.contains(Topology.REDLOCK)) {
      throw new IllegalArgumentException("--redlock-masters applies to --topology redlock or all, not " + topology.trim());
    }
    List<Integer> sizes = redlockMasters != null ? redlockMasters : DEFAULT_REDLOCK_MASTERS;
    if (sizes.isEmpty()) {
      throw new IllegalArgumentException("--redlock-masters names no group size");
    }
    Set<Integer> seen = new HashSet<>();
    List<Deployment> plan = new ArrayList<>();
    for (Topology t : topologies) {
      if (t != Topology.REDLOCK) {
        plan.add(of(t));
        continue;
      }
      for (int n : sizes) {
        if (!seen.add(n)) {
          throw new IllegalArgumentException("--redlock-masters names " + n + " twice");
        }
        plan.add(redlock(n));
      }
    }
    return plan;
  }

  /** Name in logs, file names and the summary line: the topology's, or {@code redlock-3}. */
  String id() {
    return topology == Topology.REDLOCK ? topology.id() + "-" + masters : topology.id();
  }

  /** For table titles: the topology's name, or {@code redlock, 3 masters (calls summed over them)}. */
  String describe() {
    return topology == Topology.REDLOCK ? topology.id() + ", " + masters + " masters (calls summed over them)"
        : topology.id();
  }
}

package io.relock.torture;

import java.util.ArrayList;
import java.util.List;

/**
 * One lock as the lock servers have it at one moment, read node by node by the nemesis: on each,
 * the owner and fencing token of the held lock, or nothing (none, or the node did not answer).
 * One node in the single-server and Sentinel topologies; one per master with Redlock, where a lock
 * is held when a majority of the masters have it for the same owner.
 *
 * @param entries one per node, in the nodes' order; null where the node had no lock or did not answer
 */
record LockView(String lock, List<Entry> entries) {

  /** What one node has: the owner id and the token field ({@code "0"} while a Redlock grant is not fenced yet). */
  record Entry(String owner, String token) {

    /**
     * The entry in a {@code GET} of the lock key: relock stores a held lock as one string of seven
     * fields, its first two the owner id and the token (see relock-core's lockvalue.lua); null for
     * an absent key or anything else.
     */
    static Entry ofValue(Object value) {
      if (!(value instanceof String s)) {
        return null;
      }
      String[] f = s.split(" ");
      return f.length == 7 ? new Entry(f[0], f[1]) : null;
    }

    /**
     * The one hold the nemesis goes by for a read-write lock or a semaphore, from the hold values
     * {@link Cluster#FAMILY_HOLDS} returns (the writer's alone while there is one): the hold with the
     * smallest token, the one at work longest, ties broken by owner so that the choice stays the
     * same while the holds do; null if none.
     */
    static Entry first(Object values) {
      if (!(values instanceof List<?> list)) {
        return null;
      }
      Entry first = null;
      for (Object v : list) {
        Entry e = ofValue(v);
        if (e != null && (first == null || isOlder(e, first))) {
          first = e;
        }
      }
      return first;
    }

    private static boolean isOlder(Entry a, Entry b) {
      long ta = Long.parseLong(a.token());
      long tb = Long.parseLong(b.token());
      return ta < tb || (ta == tb && a.owner().compareTo(b.owner()) < 0);
    }
  }

  int majority() {
    return entries.size() / 2 + 1;
  }

  /** The entry a majority of nodes agree on (the same owner and token), or null if none. */
  Entry holder() {
    for (Entry e : entries) {
      if (e != null && nodesWith(e).size() >= majority()) {
        return e;
      }
    }
    return null;
  }

  /** The indices of the nodes that have {@code entry}. */
  List<Integer> nodesWith(Entry entry) {
    List<Integer> nodes = new ArrayList<>();
    for (int i = 0; i < entries.size(); i++) {
      if (entry.equals(entries.get(i))) {
        nodes.add(i);
      }
    }
    return nodes;
  }

  /**
   * How many nodes hold the lock for {@code owner}, with its token or with a grant whose token is
   * not written there yet ({@code "0"}): a node that granted the lock to the owner keeps everyone
   * else out, fenced or not.
   */
  int nodesHeldBy(String owner) {
    return (int) entries.stream().filter(e -> e != null && e.owner().equals(owner)).count();
  }

  /**
   * What restarting node {@code victim} without its data takes from the holders: the entry it has,
   * if it is fenced and fewer than a majority of the other nodes have it too (so the hold is on
   * fewer than a majority once the victim forgot it); else null. A hold on every node survives the
   * loss of one; a hold on exactly a majority that includes the victim does not.
   */
  Entry erasedByLosing(int victim) {
    Entry e = entries.get(victim);
    if (e == null || "0".equals(e.token())) {
      return null;  // nothing there, or a grant whose token is not written yet: not a hold anyone acts on
    }
    return nodesWith(e).size() - 1 < majority() ? e : null;
  }
}

package io.relock.torture;

import java.util.Arrays;
import java.util.List;

/**
 * What the workers' lock Redis is. {@link #SINGLE}: one redis-server, reached by each worker
 * through a proxy of its own (the nemesis pauses, restarts and cuts it). {@link #SENTINEL}: a
 * primary with one replica watched by three Redis Sentinels ({@code RedisSentinelGroup} of the test
 * kit); the workers find the primary through the sentinels and the nemesis fails it over. {@link
 * #REDLOCK}: three independent masters ({@code RedisMasterGroup}), which each worker reaches with
 * relock's {@code redlock(...)} through a proxy of its own per master, so that the nemesis can cut
 * one master off from every worker, pause it or restart it without its data. {@link #CLUSTER}: a
 * Redis Cluster of three primaries with one replica each ({@code RedisClusterGroup}), which the
 * workers reach with relock's {@code cluster(...)} (the cluster hands out the nodes' own addresses,
 * so no proxies); the nemesis kills primaries and migrates slots. The fenced store is a plain
 * redis-server of its own in all four.
 */
enum Topology {
  SINGLE("single"),
  SENTINEL("sentinel"),
  CLUSTER("cluster"),
  REDLOCK("redlock");

  final String id;

  Topology(String id) {
    this.id = id;
  }

  /** {@code single}, {@code sentinel}, {@code cluster}, {@code redlock} or {@code all}, as {@code --topology} takes them. */
  static List<Topology> parse(String option) {
    if ("all".equals(option)) {
      return List.of(values());
    }
    return List.of(byId(option));
  }

  static Topology byId(String id) {
    return Arrays.stream(values()).filter(t -> t.id.equals(id)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("unknown topology '" + id
            + "'; known: single, sentinel, cluster, redlock, all"));
  }
}

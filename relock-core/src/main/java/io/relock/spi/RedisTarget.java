package io.relock.spi;

import java.util.List;
import java.util.Objects;

/**
 * What a driver connects to: one Redis server, a Sentinel-managed primary, or a Redis Cluster.
 * (A Redlock quorum is not a driver topology: relock-core connects one {@link Kind#SINGLE} driver
 * per master and forms the quorum itself.)
 *
 * @param kind the topology
 * @param nodes {@code redis://} or {@code rediss://} URIs, with optional {@code user:password@};
 *     for {@link Kind#SINGLE} exactly one, the server; for {@link Kind#SENTINEL} the sentinels
 *     (their credentials, TLS and database also apply to the primary they name); for {@link
 *     Kind#CLUSTER} seed nodes, from which the driver discovers the rest
 * @param masterName the name the sentinels know the primary by; null unless {@link Kind#SENTINEL}
 */
public record RedisTarget(Kind kind, List<String> nodes, String masterName) {

  /** The topologies a driver may support. */
  public enum Kind {
    /** One server (a primary without failover, or a managed endpoint that hides one). */
    SINGLE,
    /** A primary discovered through Redis Sentinel, followed across failovers. */
    SENTINEL,
    /** A Redis Cluster: keys and sharded channels are routed to the node of their slot. */
    CLUSTER
  }

  /**
   * Checks that the components fit together, and copies {@code nodes} into an unmodifiable list.
   *
   * @param kind the topology
   * @param nodes the URIs of the server, the sentinels or the seed nodes
   * @param masterName the name the sentinels know the primary by; null unless {@link Kind#SENTINEL}
   * @throws NullPointerException if {@code kind} or {@code nodes} is null
   * @throws IllegalArgumentException if {@code nodes} is empty, a {@link Kind#SINGLE} target has
   *     more than one node, or {@code masterName} is given for any kind but {@link Kind#SENTINEL}
   *     or missing for that one
   */
  public RedisTarget {
    Objects.requireNonNull(kind, "kind");
    nodes = List.copyOf(nodes);
    if (nodes.isEmpty()) {
      throw new IllegalArgumentException("a " + kind + " target needs at least one node");
    }
    if (kind == Kind.SINGLE && nodes.size() != 1) {
      throw new IllegalArgumentException("a SINGLE target has exactly one node, not " + nodes.size());
    }
    if ((kind == Kind.SENTINEL) != (masterName != null)) {
      throw new IllegalArgumentException(kind == Kind.SENTINEL
          ? "a SENTINEL target needs the master name" : "only a SENTINEL target has a master name");
    }
  }

  /**
   * One server.
   *
   * @param uri the server's {@code redis://} or {@code rediss://} URI
   * @return a {@link Kind#SINGLE} target
   */
  public static RedisTarget single(String uri) {
    return new RedisTarget(Kind.SINGLE, List.of(uri), null);
  }

  /**
   * The primary that the sentinels at {@code sentinels} know as {@code masterName}.
   *
   * @param masterName the name the sentinels know the primary by
   * @param sentinels the sentinels' URIs, at least one
   * @return a {@link Kind#SENTINEL} target
   */
  public static RedisTarget sentinel(String masterName, List<String> sentinels) {
    return new RedisTarget(Kind.SENTINEL, sentinels, masterName);
  }

  /**
   * The cluster that {@code seeds} belong to.
   *
   * @param seeds the URIs of one or more nodes of the cluster
   * @return a {@link Kind#CLUSTER} target
   */
  public static RedisTarget cluster(List<String> seeds) {
    return new RedisTarget(Kind.CLUSTER, seeds, null);
  }

  /** For messages: the kind and its nodes, passwords hidden. */
  @Override
  public String toString() {
    StringBuilder s = new StringBuilder(kind.name().toLowerCase(java.util.Locale.ROOT));
    if (masterName != null) {
      s.append(" '").append(masterName).append("'");
    }
    s.append(" ").append(nodes.stream().map(RedisTarget::redact).toList());
    return s.toString();
  }

  private static String redact(String uri) {
    int scheme = uri.indexOf("://");
    int at = uri.lastIndexOf('@');
    if (scheme < 0 || at < scheme) {
      return uri;
    }
    String userInfo = uri.substring(scheme + 3, at);
    int colon = userInfo.indexOf(':');
    return uri.substring(0, scheme + 3) + (colon < 0 ? "***" : userInfo.substring(0, colon) + ":***")
        + uri.substring(at);
  }
}

package io.relock.bench;

import io.relock.spi.RedisUri;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Where the implementations connect, as one string that reaches every worker JVM on its command
 * line: one server ({@code redis://host:port}, as {@code REDIS_URL} gives it), a primary behind
 * Redis Sentinel in Lettuce's form ({@code redis-sentinel://h1:p1,h2:p2,h3:p3#mymaster}), a
 * Redis Cluster by its seed nodes ({@code redis-cluster://h1:p1,h2:p2,h3:p3}, the bench's own
 * form), or independent masters for Redlock ({@code redlock://h1:p1,h2:p2,h3:p3}, the bench's own
 * form too). All but the first carry no credentials: the bench starts those groups itself,
 * without passwords.
 *
 * @param topology which of the four
 * @param spec the string as it travels
 */
record BenchTarget(Topology topology, String spec) {

  /** The topologies the bench can run against. */
  enum Topology {
    SINGLE, SENTINEL, CLUSTER, REDLOCK;

    /** Name in options and results: {@code single}, {@code sentinel}, {@code cluster}, {@code redlock}. */
    String id() {
      return name().toLowerCase(Locale.ROOT);
    }

    static Topology byId(String id) {
      for (Topology t : values()) {
        if (t.id().equals(id.trim().toLowerCase(Locale.ROOT))) {
          return t;
        }
      }
      throw new IllegalArgumentException("unknown topology '" + id + "'; known: single, sentinel, cluster, redlock, all");
    }
  }

  private static final String SENTINEL_SCHEME = "redis-sentinel://";
  private static final String CLUSTER_SCHEME = "redis-cluster://";
  private static final String REDLOCK_SCHEME = "redlock://";

  static BenchTarget single(String redisUri) {
    return new BenchTarget(Topology.SINGLE, redisUri);
  }

  /** {@code sentinelUris} as {@code redis://host:port}. */
  static BenchTarget sentinel(String masterName, List<String> sentinelUris) {
    return new BenchTarget(Topology.SENTINEL, SENTINEL_SCHEME + String.join(",", hostPorts(sentinelUris)) + "#" + masterName);
  }

  /** {@code seedUris} as {@code redis://host:port}. */
  static BenchTarget cluster(List<String> seedUris) {
    return new BenchTarget(Topology.CLUSTER, CLUSTER_SCHEME + String.join(",", hostPorts(seedUris)));
  }

  /** {@code masterUris} as {@code redis://host:port}: the independent masters of a Redlock group. */
  static BenchTarget redlock(List<String> masterUris) {
    return new BenchTarget(Topology.REDLOCK, REDLOCK_SCHEME + String.join(",", hostPorts(masterUris)));
  }

  /** The target a worker was started with. */
  static BenchTarget parse(String spec) {
    if (spec.startsWith(SENTINEL_SCHEME)) {
      return new BenchTarget(Topology.SENTINEL, spec);
    }
    if (spec.startsWith(CLUSTER_SCHEME)) {
      return new BenchTarget(Topology.CLUSTER, spec);
    }
    if (spec.startsWith(REDLOCK_SCHEME)) {
      return new BenchTarget(Topology.REDLOCK, spec);
    }
    return single(spec);
  }

  /** The one server's URI, or Lettuce's {@code redis-sentinel://} URI for Sentinel. */
  String uri() {
    if (topology == Topology.CLUSTER || topology == Topology.REDLOCK) {
      throw new IllegalStateException("a " + topology.id() + " target has no single URI: " + this);
    }
    return spec;
  }

  /** Sentinel: the master name after {@code #}. */
  String masterName() {
    requireTopology(Topology.SENTINEL);
    return spec.substring(spec.indexOf('#') + 1);
  }

  /** Sentinel: the sentinels; Cluster: the seed nodes; Redlock: the masters; each as {@code redis://host:port}. */
  List<String> nodeUris() {
    String scheme = switch (topology) {
      case SINGLE -> null;
      case SENTINEL -> SENTINEL_SCHEME;
      case CLUSTER -> CLUSTER_SCHEME;
      case REDLOCK -> REDLOCK_SCHEME;
    };
    if (scheme == null) {
      return List.of(spec);
    }
    int end = spec.indexOf('#');
    String hosts = spec.substring(scheme.length(), end < 0 ? spec.length() : end);
    return Arrays.stream(hosts.split(",")).map(h -> "redis://" + h.trim()).toList();
  }

  private void requireTopology(Topology wanted) {
    if (topology != wanted) {
      throw new IllegalStateException("not a " + wanted.id() + " target: " + this);
    }
  }

  /** The spec with any password hidden. */
  @Override
  public String toString() {
    return RedisUri.redact(spec);
  }

  private static List<String> hostPorts(List<String> uris) {
    return uris.stream().map(u -> {
      RedisUri uri = RedisUri.parse(u);
      if (uri.password() != null || uri.user() != null) {
        throw new IllegalArgumentException("the bench passes no credentials to Sentinel, Cluster or Redlock nodes: "
            + uri);
      }
      return uri.hostAndPort();
    }).toList();
  }
}

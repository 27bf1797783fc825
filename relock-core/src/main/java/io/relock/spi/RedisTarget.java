package io.relock.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * What a driver connects to: one Redis server, a Sentinel-managed primary, or a Redis Cluster.
 * (A Redlock quorum is not a driver topology: relock-core connects one {@link Kind#SINGLE} driver
 * per master and forms the quorum itself.)
 *
 * @param kind the topology
 * @param nodes {@code redis://} or {@code rediss://} URIs as {@link RedisUri} reads them, with
 *     optional {@code user:password@}; for {@link Kind#SINGLE} exactly one, the server; for {@link
 *     Kind#SENTINEL} the sentinels (each with its own credentials; TLS and database also apply to
 *     the primary they name, and the first one's credentials too unless {@code primaryCredentials}
 *     are given); for {@link Kind#CLUSTER} seed nodes, from which the driver discovers the rest
 * @param masterName the name the sentinels know the primary by; null unless {@link Kind#SENTINEL}
 * @param primaryCredentials for {@link Kind#SENTINEL} only: the user and password of the primary
 *     (and its replicas) when they differ from the sentinels'; null to use the first sentinel
 *     URI's
 */
public record RedisTarget(Kind kind, List<String> nodes, String masterName, Credentials primaryCredentials) {

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
   * A user and password given apart from any URI (raw, not percent-encoded).
   *
   * @param user the ACL user, or null for the default user
   * @param password the password, or null for none
   */
  public record Credentials(String user, String password) {
    /**
     * Empty strings count as absent.
     *
     * @param user the ACL user, or null for the default user
     * @param password the password, or null for none
     */
    public Credentials {
      user = user == null || user.isEmpty() ? null : user;
      password = password == null || password.isEmpty() ? null : password;
    }

    /** For messages: {@code user:***}, the password hidden. */
    @Override
    public String toString() {
      return (user == null ? "" : user) + (password == null ? "" : ":" + RedisUri.HIDDEN);
    }
  }

  /**
   * Checks that the components fit together and that every node is a URI {@link RedisUri} reads,
   * and copies {@code nodes} into an unmodifiable list.
   *
   * @param kind the topology
   * @param nodes the URIs of the server, the sentinels or the seed nodes
   * @param masterName the name the sentinels know the primary by; null unless {@link Kind#SENTINEL}
   * @param primaryCredentials the primary's own credentials; null unless {@link Kind#SENTINEL},
   *     and may be null then
   * @throws NullPointerException if {@code kind} or {@code nodes} is null
   * @throws IllegalArgumentException if {@code nodes} is empty, a node is not a {@code redis://}
   *     or {@code rediss://} URI (the message hides its password), a {@link Kind#SINGLE} target has
   *     more than one node, or {@code masterName} is given for any kind but {@link Kind#SENTINEL}
   *     or missing for that one, or {@code primaryCredentials} are given for another kind
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
    if (primaryCredentials != null && kind != Kind.SENTINEL) {
      throw new IllegalArgumentException("only a SENTINEL target has primary credentials apart from its nodes'");
    }
    nodes.forEach(RedisUri::parse);
  }

  /**
   * A target without primary credentials of its own.
   *
   * @param kind the topology
   * @param nodes the URIs of the server, the sentinels or the seed nodes
   * @param masterName the name the sentinels know the primary by; null unless {@link Kind#SENTINEL}
   */
  public RedisTarget(Kind kind, List<String> nodes, String masterName) {
    this(kind, nodes, masterName, null);
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
   * The primary that the sentinels at {@code sentinels} know as {@code masterName}; the first
   * sentinel URI's credentials apply to the primary too.
   *
   * @param masterName the name the sentinels know the primary by
   * @param sentinels the sentinels' URIs, at least one
   * @return a {@link Kind#SENTINEL} target
   */
  public static RedisTarget sentinel(String masterName, List<String> sentinels) {
    return new RedisTarget(Kind.SENTINEL, sentinels, masterName);
  }

  /**
   * The primary that the sentinels at {@code sentinels} know as {@code masterName}, with
   * credentials of its own.
   *
   * @param masterName the name the sentinels know the primary by
   * @param sentinels the sentinels' URIs, at least one, each with the sentinels' credentials
   * @param primaryCredentials the primary's user and password; null to use the first sentinel's
   * @return a {@link Kind#SENTINEL} target
   */
  public static RedisTarget sentinel(String masterName, List<String> sentinels, Credentials primaryCredentials) {
    return new RedisTarget(Kind.SENTINEL, sentinels, masterName, primaryCredentials);
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

  /**
   * Reads Lettuce's Sentinel URI form, {@code
   * redis-sentinel://[[user:]password@]host1[:port1][,host2[:port2]...][/database][?query]#masterName}
   * ({@code rediss-sentinel://} for TLS; sentinel ports default to 26379; the master name may
   * also come as {@code ?sentinelMasterId=name}). Credentials, database, TLS and query apply to
   * every sentinel and to the primary.
   *
   * @param uri the Sentinel URI
   * @return a {@link Kind#SENTINEL} target, one {@code redis://} node per sentinel
   * @throws IllegalArgumentException if {@code uri} is not such a URI; the message hides its
   *     password
   */
  public static RedisTarget fromSentinelUri(String uri) {
    Objects.requireNonNull(uri, "uri");
    RedisUri.Parts parts = RedisUri.Parts.split(uri);
    String scheme = parts.scheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("redis-sentinel") && !scheme.equals("rediss-sentinel")) {
      throw RedisUri.invalid(uri, "a Sentinel URI starts with redis-sentinel:// or rediss-sentinel://");
    }
    String master = parts.fragment();
    List<String> kept = new ArrayList<>();
    for (String pair : parts.query().split("&")) {
      if (pair.startsWith("sentinelMasterId=")) {
        master = master != null && !master.isEmpty() ? master : pair.substring("sentinelMasterId=".length());
      } else if (!pair.isEmpty()) {
        kept.add(pair);
      }
    }
    if (master == null || master.isBlank()) {
      throw RedisUri.invalid(uri, "it names no master: add #masterName at its end");
    }
    if (parts.hosts().isEmpty()) {
      throw RedisUri.invalid(uri, "it names no sentinel");
    }
    String prefix = (scheme.startsWith("rediss") ? "rediss://" : "redis://")
        + (parts.userInfo() == null ? "" : parts.userInfo() + "@");
    String suffix = parts.path() + (kept.isEmpty() ? "" : "?" + String.join("&", kept));
    List<String> sentinels = new ArrayList<>();
    for (String hostPort : parts.hosts().split(",", -1)) {
      if (hostPort.isEmpty()) {
        throw RedisUri.invalid(uri, "it has an empty sentinel address");
      }
      String[] hp = RedisUri.hostAndPort(uri, hostPort, DEFAULT_SENTINEL_PORT);
      String host = hp[0].indexOf(':') >= 0 ? "[" + hp[0] + "]" : hp[0];
      sentinels.add(prefix + host + ":" + hp[1] + suffix);
    }
    return sentinel(master, sentinels);
  }

  /** The port of a sentinel URI that names none. */
  static final int DEFAULT_SENTINEL_PORT = 26379;

  /**
   * {@code text} with every password of this target hidden: those of URIs in it (see {@link
   * RedisUri#redact(String)}) and this target's own, wherever they appear, raw or percent-encoded
   * (see {@link RedisUri#redact(String, java.util.Collection)}).
   *
   * @param text any text, such as a client library's exception message; null stays null
   * @return the text with the passwords hidden
   */
  public String redact(String text) {
    return RedisUri.redact(text, passwords());
  }

  /** Every password this target holds, for {@link #redact}. */
  List<String> passwords() {
    List<String> passwords = new ArrayList<>();
    for (String node : nodes) {
      passwords.add(RedisUri.parse(node).password());
    }
    if (primaryCredentials != null) {
      passwords.add(primaryCredentials.password());
    }
    return passwords;
  }

  /** For messages: the kind and its nodes, passwords hidden. */
  @Override
  public String toString() {
    StringBuilder s = new StringBuilder(kind.name().toLowerCase(Locale.ROOT));
    if (masterName != null) {
      s.append(" '").append(masterName).append("'");
    }
    s.append(" ").append(nodes.stream().map(n -> RedisUri.parse(n).toString()).toList());
    if (primaryCredentials != null) {
      s.append(primaryCredentials.password() == null ? ", primary without a password"
          : ", primary as " + primaryCredentials);
    }
    return s.toString();
  }
}

package io.relock.internal;

import io.relock.spi.RedisTarget;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Checks the node lists given to {@code Relock.Builder}'s topology setters, and reads Lettuce's
 * {@code redis-sentinel://} URI form. Every mistake is an {@link IllegalArgumentException} that
 * names the value (passwords hidden).
 */
public final class Topologies {
  static final int DEFAULT_PORT = 6379;
  static final int DEFAULT_SENTINEL_PORT = 26379;

  private Topologies() {}

  /** Whether {@code uri} is in the {@code redis-sentinel://} (or {@code rediss-sentinel://}) form. */
  public static boolean isSentinelUri(String uri) {
    return uri.startsWith("redis-sentinel://") || uri.startsWith("rediss-sentinel://");
  }

  /**
   * Reads {@code redis-sentinel://[[user:]password@]host1[:port1][,host2[:port2]...][/database][?query]#masterName}
   * (sentinel ports default to 26379; {@code rediss-sentinel://} for TLS; the master name may also
   * come as {@code ?sentinelMasterId=name}). Credentials, database, TLS and query apply to every
   * sentinel and to the primary.
   */
  public static RedisTarget parseSentinelUri(String uri) {
    Objects.requireNonNull(uri, "redisUri must not be null");
    String shown = Uris.redact(uri);
    boolean tls = uri.startsWith("rediss-sentinel://");
    if (!tls && !uri.startsWith("redis-sentinel://")) {
      throw new IllegalArgumentException("not a redis-sentinel:// URI: '" + shown + "'");
    }
    String rest = uri.substring(uri.indexOf("://") + 3);
    String master = null;
    int hash = rest.indexOf('#');
    if (hash >= 0) {
      master = rest.substring(hash + 1);
      rest = rest.substring(0, hash);
    }
    String query = "";
    int q = rest.indexOf('?');
    if (q >= 0) {
      query = rest.substring(q);
      rest = rest.substring(0, q);
      List<String> kept = new ArrayList<>();
      for (String pair : query.substring(1).split("&")) {
        if (pair.startsWith("sentinelMasterId=")) {
          master = master != null ? master : pair.substring("sentinelMasterId=".length());
        } else if (!pair.isEmpty()) {
          kept.add(pair);
        }
      }
      query = kept.isEmpty() ? "" : "?" + String.join("&", kept);
    }
    String database = "";
    int slash = rest.indexOf('/');
    if (slash >= 0) {
      database = rest.substring(slash);
      rest = rest.substring(0, slash);
    }
    String userInfo = "";
    int at = rest.lastIndexOf('@');
    if (at >= 0) {
      userInfo = rest.substring(0, at + 1);
      rest = rest.substring(at + 1);
    }
    if (master == null || master.isBlank()) {
      throw new IllegalArgumentException("redis-sentinel URI '" + shown
          + "' names no master: add #masterName at its end");
    }
    if (rest.isEmpty()) {
      throw new IllegalArgumentException("redis-sentinel URI '" + shown + "' names no sentinel");
    }
    List<String> sentinels = new ArrayList<>();
    for (String hostPort : rest.split(",", -1)) {
      if (hostPort.isEmpty()) {
        throw new IllegalArgumentException("redis-sentinel URI '" + shown + "' has an empty sentinel address");
      }
      String withPort = hostPort.matches(".*:\\d+$") ? hostPort : hostPort + ":" + DEFAULT_SENTINEL_PORT;
      sentinels.add((tls ? "rediss://" : "redis://") + userInfo + withPort + database + query);
    }
    return RedisTarget.sentinel(master, nodes("sentinel", sentinels.toArray(new String[0]), 1));
  }

  /**
   * Checks a node list: at least {@code min} {@code redis://} or {@code rediss://} URIs, none
   * null, no server twice.
   *
   * @param what the setter, for messages ({@code "cluster"})
   */
  public static List<String> nodes(String what, String[] uris, int min) {
    Objects.requireNonNull(uris, what + " node URIs must not be null");
    if (uris.length < min) {
      throw new IllegalArgumentException(what + "(...) needs at least " + min + " node URI"
          + (min == 1 ? "" : "s") + ", got " + uris.length);
    }
    Map<String, String> seen = new HashMap<>();
    List<String> checked = new ArrayList<>(uris.length);
    for (String uri : uris) {
      Objects.requireNonNull(uri, what + " node URI must not be null");
      if (isSentinelUri(uri)) {
        throw new IllegalArgumentException(what + "(...) takes redis:// or rediss:// node URIs; '"
            + Uris.redact(uri) + "' is a Sentinel URI: pass it to uri(...), or its sentinels to sentinel(...)");
      }
      Checks.redisUri(uri);
      String server = server(uri, "sentinel".equals(what) ? DEFAULT_SENTINEL_PORT : DEFAULT_PORT);
      String earlier = seen.putIfAbsent(server, uri);
      if (earlier != null) {
        throw new IllegalArgumentException(what + "(...) names " + server + " twice: '" + Uris.redact(earlier)
            + "' and '" + Uris.redact(uri) + "'");
      }
      checked.add(uri);
    }
    return List.copyOf(checked);
  }

  /** {@code host:port} of a {@code redis://} URI, host in lower case, the default port filled in. */
  static String server(String uri, int defaultPort) {
    String rest = uri.substring(uri.indexOf("://") + 3);
    int end = rest.length();
    for (char c : new char[] {'/', '?', '#'}) {
      int i = rest.indexOf(c);
      if (i >= 0) {
        end = Math.min(end, i);
      }
    }
    rest = rest.substring(0, end);
    rest = rest.substring(rest.lastIndexOf('@') + 1);
    if (rest.isEmpty()) {
      throw new IllegalArgumentException("node URI '" + Uris.redact(uri) + "' names no host");
    }
    boolean hasPort = rest.startsWith("[") ? rest.contains("]:") : rest.contains(":");
    return (hasPort ? rest : rest + ":" + defaultPort).toLowerCase(Locale.ROOT);
  }

  /** The master name for {@code sentinel(...)}: not blank, no whitespace. */
  public static String masterName(String name) {
    Objects.requireNonNull(name, "masterName must not be null");
    if (name.isBlank() || name.chars().anyMatch(Character::isWhitespace)) {
      throw new IllegalArgumentException("masterName must be non-empty without whitespace, was '" + name + "'");
    }
    return name;
  }

  /** Redlock's masters: an odd number of at least three, distinct. */
  public static List<String> redlockNodes(String[] uris) {
    List<String> nodes = nodes("redlock", uris, 3);
    if (nodes.size() % 2 == 0) {
      throw new IllegalArgumentException("redlock(...) needs an odd number of masters (a majority of an even "
          + "number tolerates no more failures than one node fewer), got " + nodes.size() + ": "
          + nodes.stream().map(Uris::redact).toList());
    }
    return nodes;
  }
  /**
   * The settings of a Redlock client: those given, with the restart delay defaulting to twice the
   * default lease.
   *
   * @throws IllegalArgumentException if the default lease is longer than the restart delay
   */
  public static RelockSettings redlockSettings(RelockSettings given) {
    RelockSettings.Mutable m = given.toMutable();
    if (m.redlockRestartDelay == null) {
      m.redlockRestartDelay = given.defaultLease().multipliedBy(2);
    }
    if (given.defaultLease().compareTo(m.redlockRestartDelay) > 0) {
      throw new IllegalArgumentException("defaultLease " + given.defaultLease() + " is longer than redlockRestartDelay "
          + m.redlockRestartDelay + ": a node that lost its data could rejoin while a lease still runs");
    }
    return m.freeze();
  }

  /** How error messages name a Redlock client's masters (passwords hidden). */
  public static String describeRedlock(List<String> nodes) {
    return "redlock " + Uris.redact(nodes.toString());
  }

  /**
   * Connects one single-node driver per master, each bounded by the per-node timeout (a quarter of
   * the command timeout, so that both steps of an acquisition and a give-back fit in one), and
   * puts the quorum in front of them. A master that cannot be reached now is tried again every
   * second in the background (see {@link LateDriver}); a majority must be reachable now.
   *
   * @throws io.relock.RelockException naming every master that could not be reached, if they are
   *     more than a minority
   */
  public static io.relock.spi.RedisDriver connectRedlock(List<String> nodes, RelockSettings settings) {
    RelockSettings.Mutable perNode = settings.toMutable();
    perNode.commandTimeout = java.time.Duration.ofNanos(Math.max(1_000_000, settings.commandTimeout().toNanos() / 4));
    RelockSettings nodeSettings = perNode.freeze();
    List<RedlockDriver.Node> connected = new ArrayList<>();
    List<String> failed = new ArrayList<>();
    for (String uri : nodes) {
      String name = Uris.redact(uri);
      java.util.function.Supplier<io.relock.spi.RedisDriver> connect =
          () -> DriverLoader.connect(io.relock.spi.RedisTarget.single(uri), nodeSettings);
      io.relock.spi.RedisDriver d;
      try {
        d = connect.get();
      } catch (io.relock.RelockException e) {
        String why = Uris.redact(String.valueOf(e.getMessage()));
        failed.add(name + ": " + why);
        d = new LateDriver(name, connect, why);
      }
      connected.add(new RedlockDriver.Node(name, d, new ScriptRunner(d, nodeSettings.commandTimeout(), name)));
    }
    if (failed.size() > nodes.size() / 2) {
      connected.forEach(n -> n.driver().close());
      throw new io.relock.RelockException("could not connect to a majority of the Redlock masters (" + failed.size()
          + " of " + nodes.size() + " failed): " + String.join("; ", failed));
    }
    return new RedlockDriver(connected, settings, settings.redlockRestartDelay());
  }
}

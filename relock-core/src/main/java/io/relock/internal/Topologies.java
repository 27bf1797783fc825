package io.relock.internal;

import io.relock.spi.RedisTarget;
import io.relock.spi.RedisUri;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Checks the node lists given to {@code Relock.Builder}'s topology setters, and reads Lettuce's
 * {@code redis-sentinel://} URI form. Every mistake is an {@link IllegalArgumentException} that
 * names the value (passwords hidden, see {@link RedisUri}).
 */
public final class Topologies {
  private Topologies() {}

  /** Whether {@code uri} is in the {@code redis-sentinel://} (or {@code rediss-sentinel://}) form. */
  public static boolean isSentinelUri(String uri) {
    return uri.startsWith("redis-sentinel://") || uri.startsWith("rediss-sentinel://");
  }

  /**
   * Reads Lettuce's {@code redis-sentinel://} form (see {@link RedisTarget#fromSentinelUri}), and
   * checks its sentinels as {@link #nodes} does.
   */
  public static RedisTarget parseSentinelUri(String uri) {
    Objects.requireNonNull(uri, "redisUri must not be null");
    RedisTarget parsed = RedisTarget.fromSentinelUri(uri);
    return RedisTarget.sentinel(parsed.masterName(), nodes("sentinel", parsed.nodes().toArray(new String[0]), 1));
  }

  /**
   * Checks a node list: at least {@code min} {@code redis://} or {@code rediss://} URIs that
   * {@link RedisUri} reads, none null, no server twice.
   *
   * @param what the setter, for messages ({@code "cluster"})
   */
  public static List<String> nodes(String what, String[] uris, int min) {
    Objects.requireNonNull(uris, what + " node URIs must not be null");
    if (uris.length < min) {
      throw new IllegalArgumentException(what + "(...) needs at least " + min + " node URI"
          + (min == 1 ? "" : "s") + ", got " + uris.length);
    }
    Map<String, RedisUri> seen = new HashMap<>();
    List<String> checked = new ArrayList<>(uris.length);
    for (String uri : uris) {
      Objects.requireNonNull(uri, what + " node URI must not be null");
      if (isSentinelUri(uri)) {
        throw new IllegalArgumentException(what + "(...) takes redis:// or rediss:// node URIs; '"
            + RedisUri.shown(uri) + "' is a Sentinel URI: pass it to uri(...), or its sentinels to sentinel(...)");
      }
      RedisUri parsed = Checks.redisUri(uri);
      String server = server(parsed);
      RedisUri earlier = seen.putIfAbsent(server, parsed);
      if (earlier != null) {
        throw new IllegalArgumentException(what + "(...) names " + server + " twice: '" + earlier
            + "' and '" + parsed + "'");
      }
      checked.add(uri);
    }
    return List.copyOf(checked);
  }

  /** {@code host:port} of a {@code redis://} URI as the drivers connect to it, host in lower case. */
  static String server(RedisUri uri) {
    return uri.hostAndPort().toLowerCase(Locale.ROOT);
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
          + nodes.stream().map(RedisUri::parse).toList());
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
    return "redlock " + nodes.stream().map(RedisUri::parse).toList();
  }

  /** Every password of a Redlock client's masters, for {@link RedisUri#redact(String, java.util.Collection)}. */
  public static List<String> redlockPasswords(List<String> nodes) {
    return nodes.stream().map(RedisUri::parse).map(RedisUri::password).filter(Objects::nonNull).toList();
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
    List<String> passwords = redlockPasswords(nodes);
    for (String uri : nodes) {
      String name = RedisUri.parse(uri).toString();
      java.util.function.Supplier<io.relock.spi.RedisDriver> connect =
          () -> DriverLoader.connect(io.relock.spi.RedisTarget.single(uri), nodeSettings);
      io.relock.spi.RedisDriver d;
      try {
        d = connect.get();
      } catch (io.relock.RelockException e) {
        String why = RedisUri.redact(String.valueOf(e.getMessage()), passwords);
        failed.add(name + ": " + why);
        d = new LateDriver(name, connect, why);
      }
      connected.add(new RedlockDriver.Node(name, d,
          new ScriptRunner(d, nodeSettings.commandTimeout(), name, text -> RedisUri.redact(text, passwords))));
    }
    if (failed.size() > nodes.size() / 2) {
      connected.forEach(n -> n.driver().close());
      throw new io.relock.RelockException("could not connect to a majority of the Redlock masters (" + failed.size()
          + " of " + nodes.size() + " failed): " + String.join("; ", failed));
    }
    return new RedlockDriver(connected, settings, settings.redlockRestartDelay());
  }
}

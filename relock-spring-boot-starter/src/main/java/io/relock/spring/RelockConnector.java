package io.relock.spring;

import io.relock.Relock;
import io.relock.RelockException;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;
import io.relock.spi.RedisDriverFactory;
import io.relock.spi.RedisTarget;
import io.relock.spi.RedisUri;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.function.Consumer;
import org.springframework.boot.autoconfigure.data.redis.RedisProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Builds the auto-configured {@link Relock} from {@code spring.data.redis.*} and {@code relock.*}.
 * Every mistake it can see fails with {@link InvalidConfigurationPropertyValueException} naming
 * the property (Spring Boot reports it as such at startup); passwords never appear in messages.
 */
final class RelockConnector {

  /** System property relock-core reads to pick a driver; see {@code RedisDriverFactory}. */
  private static final String DRIVER_SYSTEM_PROPERTY = "relock.driver";

  private RelockConnector() {}

  /**
   * Where to connect: a topology, its URIs, and the properties they came from (for messages).
   *
   * @param kind single, sentinel, cluster or redlock
   * @param uris the URIs, passwords included
   * @param masterName the Sentinel master name, or null
   * @param primaryCredentials the Sentinel primary's user and password (spring.data.redis.*), apart
   *     from the sentinels' (spring.data.redis.sentinel.*, in the URIs); null for other topologies
   * @param source the properties they came from
   */
  record Topology(String kind, List<String> uris, String masterName, RedisTarget.Credentials primaryCredentials,
      String source) {

    Topology(String kind, List<String> uris, String source) {
      this(kind, uris, null, null, source);
    }

    void applyTo(Relock.Builder builder) {
      String[] nodes = uris.toArray(String[]::new);
      String property = firstProperty();
      try {
        switch (kind) {
          case "single" -> builder.uri(uris.get(0));
          case "sentinel" -> builder.sentinel(masterName, nodes)
              .sentinelPrimaryCredentials(primaryCredentials.user(), primaryCredentials.password());
          case "cluster" -> builder.cluster(nodes);
          default -> builder.redlock(nodes);
        }
      } catch (IllegalArgumentException e) {
        throw invalid(property, redacted(), e.getMessage());
      }
    }

    RedisTarget target() {
      return switch (kind) {
        case "single" -> RedisTarget.single(uris.get(0));
        case "sentinel" -> RedisTarget.sentinel(masterName, uris, primaryCredentials);
        case "cluster" -> RedisTarget.cluster(uris);
        default -> throw new IllegalStateException("no driver target for " + kind);
      };
    }

    String firstProperty() {
      int comma = source.indexOf(',');
      return comma < 0 ? source : source.substring(0, comma);
    }

    String redacted() {
      return RedisUri.redact(String.join(",", uris));
    }

    /** {@code text} with every password of this topology hidden, raw or percent-encoded. */
    String redact(String text) {
      List<String> passwords = new ArrayList<>();
      uris.forEach(u -> passwords.add(RedisUri.passwordIn(u)));
      if (primaryCredentials != null) {
        passwords.add(primaryCredentials.password());
      }
      return RedisUri.redact(text, passwords);
    }

    @Override
    public String toString() {
      return kind + (masterName == null ? "" : " '" + masterName + "'") + " " + redacted()
          + (primaryCredentials == null ? "" : ", primary as " + primaryCredentials);
    }
  }

  /**
   * Connects.
   *
   * @throws InvalidConfigurationPropertyValueException for a setting that cannot work, naming it
   * @throws RelockException if Redis cannot be reached; the message names the address and the
   *     properties it came from
   */
  static Relock connect(RelockProperties relock, RedisProperties redis) {
    Relock.Builder builder = Relock.builder();
    applySettings(relock, builder);
    Topology topology = topology(relock, redis);
    checkCombinations(relock, topology);
    RedisDriverFactory chosen = chosenDriver(relock, topology);
    if (chosen == null) {
      topology.applyTo(builder);
      return build(builder, topology, null);
    }
    // Checks the URIs as the builder's own setters would, before connecting through the driver.
    topology.applyTo(Relock.builder());
    RedisDriver driver;
    try {
      driver = chosen.connect(topology.target(),
          new DriverSettings(relock.getCommandTimeout(), relock.getConnectTimeout(), "relock"));
    } catch (UnsupportedOperationException e) {
      throw invalid("relock.driver", relock.getDriver(), topology.redact(e.getMessage()));
    } catch (RuntimeException e) {
      throw new RelockException("relock could not connect to " + topology + " (from " + topology.source()
          + ") with the " + chosen.name() + " driver: " + topology.redact(e.getMessage()), e);
    }
    builder.driver(driver);
    return build(builder, topology, driver);
  }

  private static Relock build(Relock.Builder builder, Topology topology, RedisDriver ours) {
    try {
      return builder.build();
    } catch (RelockException e) {
      closeQuietly(ours);
      throw new RelockException("relock could not connect to " + topology + " (from " + topology.source() + "): "
          + topology.redact(e.getMessage()), e);
    } catch (UnsupportedOperationException e) {
      closeQuietly(ours);
      throw invalid("relock.driver", "(" + topology.redact(e.getMessage()) + ")", "the driver cannot connect to "
          + topology);
    } catch (IllegalStateException e) {
      closeQuietly(ours);
      // build() refuses replicaAcks with a driver that cannot WAIT; the other checks ran earlier.
      throw invalid("relock.replica-acks.replicas", "", topology.redact(e.getMessage()));
    } catch (RuntimeException e) {
      closeQuietly(ours);
      throw e;
    }
  }

  private static void closeQuietly(RedisDriver driver) {
    if (driver != null) {
      try {
        driver.close();
      } catch (RuntimeException ignored) {
        // the failure being reported matters more
      }
    }
  }

  private static void applySettings(RelockProperties p, Relock.Builder b) {
    setting("relock.key-prefix", p.getKeyPrefix(), b::keyPrefix);
    setting("relock.default-lease", p.getDefaultLease(), b::defaultLease);
    if (p.getClockDrift() != null) {
      setting("relock.clock-drift", p.getClockDrift(), b::clockDrift);
    }
    setting("relock.command-timeout", p.getCommandTimeout(), b::commandTimeout);
    setting("relock.connect-timeout", p.getConnectTimeout(), b::connectTimeout);
    setting("relock.recheck-interval", p.getRecheckInterval(), b::recheckInterval);
    setting("relock.fence-retention", p.getFenceRetention(), b::fenceRetention);
    if (p.getRedlock().getRestartDelay() != null) {
      setting("relock.redlock.restart-delay", p.getRedlock().getRestartDelay(), b::redlockRestartDelay);
    }
    RelockProperties.ReplicaAcks acks = p.getReplicaAcks();
    if (acks.getReplicas() < 0) {
      throw invalid("relock.replica-acks.replicas", acks.getReplicas(), "must be 0 (off) or more");
    }
    if (acks.getReplicas() > 0) {
      setting("relock.replica-acks.timeout", acks.getTimeout(), t -> b.replicaAcks(acks.getReplicas(), t));
      if (acks.getTimeout().compareTo(p.getCommandTimeout()) >= 0) {
        throw invalid("relock.replica-acks.timeout", acks.getTimeout(), "must be shorter than relock.command-timeout ("
            + p.getCommandTimeout() + "), which bounds the call that waits for the replicas");
      }
    }
  }

  private static <T> void setting(String property, T value, Consumer<T> setter) {
    if (value == null) {
      throw invalid(property, null, "must be set");
    }
    try {
      setter.accept(value);
    } catch (IllegalArgumentException e) {
      throw invalid(property, value, e.getMessage());
    }
  }

  private static void checkCombinations(RelockProperties p, Topology topology) {
    boolean redlock = topology.kind().equals("redlock");
    if (redlock && p.getReplicaAcks().getReplicas() > 0) {
      throw invalid("relock.replica-acks.replicas", p.getReplicaAcks().getReplicas(),
          "applies to a replicated primary (spring.data.redis.*); relock.redlock.nodes are independent masters");
    }
    if (!redlock && p.getRedlock().getRestartDelay() != null) {
      throw invalid("relock.redlock.restart-delay", p.getRedlock().getRestartDelay(),
          "applies only together with relock.redlock.nodes");
    }
  }

  /** The driver named by relock.driver, or null when relock's own choice is the same. */
  private static RedisDriverFactory chosenDriver(RelockProperties p, Topology topology) {
    String wanted = p.getDriver();
    if (wanted == null || wanted.isBlank()) {
      return null;
    }
    List<RedisDriverFactory> found = new ArrayList<>();
    ServiceLoader.load(RedisDriverFactory.class, RelockConnector.class.getClassLoader()).forEach(found::add);
    List<String> names = found.stream().map(RedisDriverFactory::name).toList();
    RedisDriverFactory chosen = found.stream().filter(f -> f.name().equals(wanted.trim())).findFirst()
        .orElseThrow(() -> invalid("relock.driver", wanted, "no such relock driver on the class path; found "
            + names + " (add io.relock:relock-" + wanted.trim() + ")"));
    String relocksOwn = System.getProperty(DRIVER_SYSTEM_PROPERTY, names.get(0));
    if (chosen.name().equals(relocksOwn)) {
      return null;
    }
    if (topology.kind().equals("redlock")) {
      throw invalid("relock.driver", wanted, "relock.redlock.nodes connect through the driver relock picks itself ("
          + relocksOwn + "); start the JVM with -D" + DRIVER_SYSTEM_PROPERTY + "=" + chosen.name() + " instead");
    }
    return chosen;
  }

  static Topology topology(RelockProperties p, RedisProperties redis) {
    List<String> redlock = p.getRedlock().getNodes();
    if (redlock != null && !redlock.isEmpty()) {
      return new Topology("redlock", List.copyOf(redlock), "relock.redlock.nodes");
    }
    RedisProperties.Sentinel sentinel = redis.getSentinel();
    if (sentinel != null) {
      return sentinel(redis, sentinel);
    }
    RedisProperties.Cluster cluster = redis.getCluster();
    if (cluster != null && cluster.getNodes() != null && !cluster.getNodes().isEmpty()) {
      if (redis.getDatabase() != 0) {
        throw invalid("spring.data.redis.database", redis.getDatabase(), "a Redis Cluster has only database 0"
            + " (spring.data.redis.cluster.nodes is set)");
      }
      List<String> uris = new ArrayList<>();
      for (String node : cluster.getNodes()) {
        uris.add(uri(redis, node("spring.data.redis.cluster.nodes", node), null));
      }
      return new Topology("cluster", uris, "spring.data.redis.cluster.nodes");
    }
    if (redis.getUrl() != null && !redis.getUrl().isBlank()) {
      return new Topology("single", List.of(url(redis)), "spring.data.redis.url");
    }
    String host = redis.getHost();
    if (host == null || host.isBlank()) {
      throw invalid("spring.data.redis.host", host, "must name the Redis server (or set spring.data.redis.url)");
    }
    if (redis.getPort() < 1 || redis.getPort() > 65_535) {
      throw invalid("spring.data.redis.port", redis.getPort(), "must be between 1 and 65535");
    }
    return new Topology("single", List.of(uri(redis, hostPort(host.trim(), redis.getPort()), redis.getDatabase())),
        "spring.data.redis.host, spring.data.redis.port");
  }

  private static Topology sentinel(RedisProperties redis, RedisProperties.Sentinel sentinel) {
    if (sentinel.getMaster() == null || sentinel.getMaster().isBlank()) {
      throw invalid("spring.data.redis.sentinel.master", sentinel.getMaster(),
          "must name the primary the sentinels watch (spring.data.redis.sentinel.* is set)");
    }
    if (sentinel.getNodes() == null || sentinel.getNodes().isEmpty()) {
      throw invalid("spring.data.redis.sentinel.nodes", sentinel.getNodes(),
          "must list the sentinels as host:port (spring.data.redis.sentinel.master is set)");
    }
    // As Spring Data Redis: the sentinels' credentials are spring.data.redis.sentinel.*, the
    // primary's spring.data.redis.*; either may be absent.
    String sentinelUser = sentinel.getUsername();
    String sentinelPassword = sentinel.getPassword();
    if (sentinelUser != null && !sentinelUser.isEmpty() && sentinelPassword == null) {
      throw invalid("spring.data.redis.sentinel.username", sentinelUser, "needs spring.data.redis.sentinel.password");
    }
    if (redis.getUsername() != null && !redis.getUsername().isEmpty() && redis.getPassword() == null) {
      throw invalid("spring.data.redis.username", redis.getUsername(), "needs spring.data.redis.password");
    }
    if (redis.getDatabase() < 0) {
      throw invalid("spring.data.redis.database", redis.getDatabase(), "must be 0 or more");
    }
    List<String> uris = new ArrayList<>();
    for (String node : sentinel.getNodes()) {
      uris.add(uri(redis.getSsl().isEnabled(), sentinelUser, sentinelPassword, redis,
          node("spring.data.redis.sentinel.nodes", node), redis.getDatabase()));
    }
    return new Topology("sentinel", uris, sentinel.getMaster().trim(),
        new RedisTarget.Credentials(redis.getUsername(), redis.getPassword()),
        "spring.data.redis.sentinel.nodes, spring.data.redis.sentinel.master");
  }

  private static String url(RedisProperties redis) {
    String url = redis.getUrl().trim();
    String lower = url.toLowerCase(java.util.Locale.ROOT);
    boolean known = lower.startsWith("redis://") || lower.startsWith("rediss://")
        || lower.startsWith("redis-sentinel://") || lower.startsWith("rediss-sentinel://");
    if (!known) {
      throw invalid("spring.data.redis.url", RedisUri.shown(url), "must start with redis:// or rediss://");
    }
    if (redis.getSsl().isEnabled() && !lower.startsWith("rediss")) {
      checkNoBundle(redis);
      return "rediss" + url.substring("redis".length());
    }
    if (redis.getSsl().isEnabled()) {
      checkNoBundle(redis);
    }
    return url;
  }

  /** {@code scheme://[credentials@]hostAndPort[/database]} from the spring.data.redis settings. */
  private static String uri(RedisProperties redis, String hostAndPort, Integer database) {
    String user = redis.getUsername();
    String password = redis.getPassword();
    if (user != null && !user.isEmpty() && password == null) {
      throw invalid("spring.data.redis.username", user, "needs spring.data.redis.password");
    }
    return uri(redis.getSsl().isEnabled(), user, password, redis, hostAndPort, database);
  }

  /**
   * {@code scheme://[user:password@]hostAndPort[/database]}, the user and password (raw, as Spring
   * Boot's properties hold them) percent-encoded.
   */
  private static String uri(boolean tls, String user, String password, RedisProperties redis, String hostAndPort,
      Integer database) {
    StringBuilder s = new StringBuilder(tls ? "rediss://" : "redis://");
    if (tls) {
      checkNoBundle(redis);
    }
    if (password != null) {
      if (user != null && !user.isEmpty()) {
        s.append(RedisUri.encode(user)).append(':');
      }
      s.append(RedisUri.encode(password)).append('@');
    }
    s.append(hostAndPort);
    if (database != null) {
      if (database < 0) {
        throw invalid("spring.data.redis.database", database, "must be 0 or more");
      }
      if (database != 0) {
        s.append('/').append(database);
      }
    }
    return s.toString();
  }

  private static void checkNoBundle(RedisProperties redis) {
    if (redis.getSsl().getBundle() != null) {
      throw invalid("spring.data.redis.ssl.bundle", redis.getSsl().getBundle(), "relock does not read SSL bundles:"
          + " it trusts what the JVM trusts (javax.net.ssl.trustStore); leave the bundle out and set"
          + " spring.data.redis.ssl.enabled=true, or define a Relock bean of your own");
    }
  }

  /** {@code host:port} or {@code [v6]:port}, checked; as Spring Data Redis, the port is required. */
  private static String node(String property, String node) {
    String n = node == null ? "" : node.trim();
    int colon = n.lastIndexOf(':');
    if (colon <= 0 || colon == n.length() - 1) {
      throw invalid(property, node, "each node must be host:port");
    }
    String host = n.substring(0, colon);
    int port;
    try {
      port = Integer.parseInt(n.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw invalid(property, node, "each node must be host:port; '" + n.substring(colon + 1) + "' is not a port");
    }
    if (port < 1 || port > 65_535) {
      throw invalid(property, node, "each node must be host:port with a port between 1 and 65535");
    }
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    return hostPort(host, port);
  }

  private static String hostPort(String host, int port) {
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
  }

  static InvalidConfigurationPropertyValueException invalid(String property, Object value, String reason) {
    Object shown = value instanceof Duration d ? d.toString() : value;
    return new InvalidConfigurationPropertyValueException(property, shown, reason);
  }
}

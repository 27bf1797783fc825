package io.relock.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.relock.spi.RedisUri;
import io.relock.testkit.RedisClusterGroup;
import io.relock.testkit.RedisMasterGroup;
import io.relock.testkit.RedisSentinelGroup;
import io.relock.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * The Redis every implementation runs against: the one {@code REDIS_URL} names, or a
 * redis-server the bench starts on a free loopback port and stops at the end; or, for {@code
 * --topology sentinel}, {@code cluster} and {@code redlock}, a Sentinel group, a Redis Cluster or
 * a group of independent masters the bench starts through relock-testkit. The harness reads its
 * counters through connections of its own, one per data node: calls from the primaries (summed
 * over a cluster's, or over every Redlock master), CPU from every data node (replicas replay each
 * write, so their CPU is part of what a lock costs Redis).
 */
final class BenchRedis implements AutoCloseable {

  private static final String SLOWLOG_SLOWER_THAN = "slowlog-log-slower-than";
  private static final String SLOWLOG_MAX_LEN = "slowlog-max-len";
  /**
   * Sentinel's down-after time and a cluster's node timeout while the bench runs: long enough
   * that four busy worker JVMs on two cores never make a node look down and fail it over mid-run.
   */
  private static final Duration NO_FAILOVER = Duration.ofSeconds(30);
  /** Primaries of the cluster the bench starts. */
  static final int CLUSTER_PRIMARIES = 3;

  /** What the bench started (a RedisServer, RedisSentinelGroup or RedisClusterGroup); null for REDIS_URL. */
  private final AutoCloseable started;
  private final BenchTarget target;
  private final String description;
  private final List<Node> primaries;
  private final List<Node> replicas;
  private final RedisCommands<String, String> admin;

  /** A data node with the harness's own connection to it. */
  private record Node(String uri, RedisClient client, StatefulRedisConnection<String, String> connection) {

    static Node connect(String uri) {
      RedisClient client = RedisClient.create(uri);
      try {
        return new Node(uri, client, client.connect());
      } catch (RuntimeException e) {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        throw e;
      }
    }

    RedisCommands<String, String> admin() {
      return connection.sync();
    }

    void close() {
      connection.close();
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  private BenchRedis(AutoCloseable started, BenchTarget target, String description, List<String> primaryUris,
      List<String> replicaUris) {
    this.started = started;
    this.target = target;
    this.description = description;
    List<Node> opened = new ArrayList<>();
    try {
      for (String uri : primaryUris) {
        opened.add(Node.connect(uri));
      }
      for (String uri : replicaUris) {
        opened.add(Node.connect(uri));
      }
    } catch (RuntimeException e) {
      opened.forEach(Node::close);
      throw e;
    }
    this.primaries = List.copyOf(opened.subList(0, primaryUris.size()));
    this.replicas = List.copyOf(opened.subList(primaryUris.size(), opened.size()));
    this.admin = primaries.get(0).admin();
  }

  /** Connects to {@code redisUrl}, or starts a server when it is null or blank. */
  static BenchRedis open(String redisUrl) {
    if (redisUrl != null && !redisUrl.isBlank()) {
      // relock's parser: java.net.URI's errors quote the whole URI, password included.
      RedisUri uri = RedisUri.parse(redisUrl);
      return new BenchRedis(null, BenchTarget.single(redisUrl), "REDIS_URL " + uri.hostAndPort(),
          List.of(redisUrl), List.of());
    }
    RedisServer server = RedisServer.start();
    return startedBy(server, () -> new BenchRedis(server, BenchTarget.single(server.uri()),
        "redis-server started by the bench, loopback", List.of(server.uri()), List.of()));
  }

  /**
   * Starts a Sentinel group: a primary, one replica (replicating through the test kit's TCP proxy,
   * which runs in the harness's JVM) and three sentinels.
   */
  static BenchRedis startSentinel() {
    RedisSentinelGroup group = RedisSentinelGroup.builder().downAfter(NO_FAILOVER).start();
    return startedBy(group, () -> {
      List<String> replicaUris = group.replicas().stream().map(RedisServer::uri).toList();
      return new BenchRedis(group, BenchTarget.sentinel(group.masterName(), group.sentinelUris()),
          "Sentinel group started by the bench: primary + " + replicaUris.size() + " replica (linked through the"
              + " test kit's TCP proxy) + " + group.sentinels().size() + " sentinels, loopback",
          List.of(group.primary().uri()), replicaUris);
    });
  }

  /** Starts a Redis Cluster of {@value #CLUSTER_PRIMARIES} primaries, each with {@code replicasPerPrimary} replicas. */
  static BenchRedis startCluster(int replicasPerPrimary) {
    RedisClusterGroup group = RedisClusterGroup.builder().primaries(CLUSTER_PRIMARIES)
        .replicasPerPrimary(replicasPerPrimary).nodeTimeout(NO_FAILOVER).start();
    return startedBy(group, () -> {
      List<RedisServer> primaries = group.primaries();
      List<String> replicaUris = group.nodes().stream().filter(n -> !primaries.contains(n)).map(RedisServer::uri).toList();
      return new BenchRedis(group, BenchTarget.cluster(group.seedUris()),
          "Redis Cluster started by the bench: " + primaries.size() + " primaries x " + replicasPerPrimary
              + (replicasPerPrimary == 1 ? " replica" : " replicas") + ", loopback",
          primaries.stream().map(RedisServer::uri).toList(), replicaUris);
    });
  }

  /**
   * Starts {@code masters} independent masters (no replication between them), as Redlock runs on.
   * Clients reach each master directly, not through the test kit's proxies, which would put the
   * harness's JVM on every call's path.
   */
  static BenchRedis startRedlock(int masters) {
    RedisMasterGroup group = RedisMasterGroup.start(masters);
    return startedBy(group, () -> {
      List<String> uris = List.of(group.uris());
      return new BenchRedis(group, BenchTarget.redlock(uris),
          "Redlock group started by the bench: " + masters + " independent masters, loopback", uris, List.of());
    });
  }

  private static BenchRedis startedBy(AutoCloseable started, java.util.function.Supplier<BenchRedis> connect) {
    try {
      return connect.get();
    } catch (RuntimeException e) {
      try {
        started.close();
      } catch (Exception closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
  }

  /** Where the workers' clients connect. */
  BenchTarget target() {
    return target;
  }

  BenchTarget.Topology topology() {
    return target.topology();
  }

  /** The (first) primary's URI, for the harness's own connections. */
  String uri() {
    return primaries.get(0).uri();
  }

  /** The primaries' URIs, where {@code MONITOR} watches the clients' calls. */
  List<String> primaryUris() {
    return primaries.stream().map(Node::uri).toList();
  }

  /** Whether the bench started this server (rather than using {@code REDIS_URL}). */
  boolean started() {
    return started != null;
  }

  /** Where Redis runs, for the machine line: started by the bench (which topology) or {@code REDIS_URL}. */
  String describe() {
    return description;
  }

  /**
   * The counters now: each command's calls summed over the primaries, CPU over every data node.
   * One server: its {@code INFO} as it is.
   */
  RedisInfo info() {
    if (primaries.size() == 1 && replicas.isEmpty()) {
      return RedisInfo.parse(admin.info("all"));
    }
    List<RedisInfo> fromPrimaries = primaries.stream().map(n -> RedisInfo.parse(n.admin().info("all"))).toList();
    List<RedisInfo> fromReplicas = replicas.stream().map(n -> RedisInfo.parse(n.admin().info("cpu"))).toList();
    return RedisInfo.combine(fromPrimaries, fromReplicas);
  }

  String version() {
    return RedisInfo.parse(admin.info("server")).field("redis_version");
  }

  /** Empties every database of every primary (replicas follow), so each run starts from no keys. */
  void flushAll() {
    primaries.forEach(n -> n.admin().flushall());
  }

  /** Redis's {@code used_memory} (of the one server the held-locks scenario runs on). */
  long usedMemory() {
    return Long.parseLong(RedisInfo.parse(admin.info("memory")).field("used_memory"));
  }

  /** Zeroes the primaries' counters ({@code CONFIG RESETSTAT}), so that run times start from nothing. */
  void resetStats() {
    primaries.forEach(n -> n.admin().configResetstat());
  }

  /** Keys in all primaries. */
  long dbSize() {
    return primaries.stream().mapToLong(n -> n.admin().dbsize()).sum();
  }

  /**
   * What the next {@code window} shows with nothing but the held locks at work: the longest single
   * command Redis runs, read from its {@code SLOWLOG} (logging every command over {@link
   * StallSample#THRESHOLD_MICROS}, from an emptied log, then put back as it was); the counters over
   * the window; and the clients' calls per renewal tick, from the counters read every {@link
   * #QUIET_READING} (see {@link RenewalTicks}). The caller must not have {@code MONITOR} attached:
   * Redis feeds every command a script runs to the monitors while the script runs, which makes
   * scripts slower than they are. The stall is not measured (rather than failing the run) when the
   * server refuses {@code CONFIG} or {@code SLOWLOG}, as a managed or locked-down {@code REDIS_URL}
   * may.
   *
   * @param clientCalls the clients' calls among the calls per command since the window began
   */
  QuietWindow quietWindow(Duration window, Duration tick, ToLongFunction<Map<String, Long>> clientCalls) {
    double seconds = window.toMillis() / 1000.0;
    Map<String, String> saved = new LinkedHashMap<>();
    String refused = null;
    try {
      // One parameter per CONFIG GET: Redis 6 takes only one.
      for (String parameter : List.of(SLOWLOG_SLOWER_THAN, SLOWLOG_MAX_LEN)) {
        String value = admin.configGet(parameter).get(parameter);
        if (value == null) {
          refused = "CONFIG GET " + parameter + " returned nothing";
          break;
        }
        saved.put(parameter, value);
      }
    } catch (RedisException e) {
      refused = "CONFIG GET refused: " + String.valueOf(e.getMessage()).strip();
    }
    try {
      if (refused == null) {
        try {
          admin.configSet(SLOWLOG_SLOWER_THAN, String.valueOf(StallSample.THRESHOLD_MICROS));
          admin.configSet(SLOWLOG_MAX_LEN, String.valueOf(StallSample.MAX_ENTRIES));
          admin.slowlogReset();
        } catch (RedisException e) {
          refused = "CONFIG SET or SLOWLOG refused: " + String.valueOf(e.getMessage()).strip();
        }
      }
      RedisInfo first = info();
      long began = System.nanoTime();
      List<Long> at = new ArrayList<>();
      List<Long> calls = new ArrayList<>();
      at.add(began);
      calls.add(0L);
      while (System.nanoTime() - began < window.toNanos()) {
        LoadPhase.sleepUntil(Math.min(began + window.toNanos(), at.get(at.size() - 1) + QUIET_READING.toNanos()));
        RedisInfo now = RedisInfo.parse(admin.info("commandstats"));
        at.add(System.nanoTime());
        calls.add(clientCalls.applyAsLong(now.since(first).withoutHarness()));
      }
      RedisInfo last = info();
      double measured = (System.nanoTime() - began) / 1e9;
      StallSample stall = StallSample.notMeasured(seconds, refused);
      if (refused == null) {
        try {
          stall = StallSample.fromSlowlog(admin.slowlogGet(StallSample.MAX_ENTRIES), measured);
        } catch (RedisException e) {
          stall = StallSample.notMeasured(seconds, "SLOWLOG GET refused: " + String.valueOf(e.getMessage()).strip());
        }
      }
      RenewalTicks ticks = RenewalTicks.of(at.stream().mapToLong(Long::longValue).toArray(),
          calls.stream().mapToLong(Long::longValue).toArray(), tick.toNanos(), QUIET_IDLE_CALLS);
      return new QuietWindow(stall, last.since(first), ticks, measured);
    } finally {
      restore(saved);
    }
  }

  /**
   * How much this machine alone stretches a command: the run times of {@code runs} calls of a
   * script of fixed work (a Lua loop sized to take about {@code micros} here, touching no key), as
   * a {@link StallSample} of those calls alone. A small virtual machine runs such a script several
   * times slower now and then, whatever Redis does; that is the floor under any worst stall
   * measured on it. Null when Redis refuses {@code CONFIG} or {@code SLOWLOG}.
   */
  StallSample fixedWork(long micros, int runs) {
    String loop = "local x = 0 for i = 1, tonumber(ARGV[1]) do x = x + i end return 0";
    Map<String, String> saved = new LinkedHashMap<>();
    try {
      for (String parameter : List.of(SLOWLOG_SLOWER_THAN, SLOWLOG_MAX_LEN)) {
        saved.put(parameter, admin.configGet(parameter).get(parameter));
      }
      admin.configSet(SLOWLOG_SLOWER_THAN, "0");
      admin.configSet(SLOWLOG_MAX_LEN, String.valueOf(StallSample.MAX_ENTRIES));
      long iterations = 100_000;
      for (int sizing = 0; sizing < 3; sizing++) {
        admin.slowlogReset();
        for (int i = 0; i < 5; i++) {
          admin.eval(loop, io.lettuce.core.ScriptOutputType.INTEGER, new String[0], Long.toString(iterations));
        }
        StallSample s = StallSample.fromSlowlog(runsOf(loop, admin.slowlogGet(StallSample.MAX_ENTRIES)), 0);
        if (s.slowCommands() > 0 && s.medianMicros() > 0) {
          // At most ten times longer a round: the loop must never hold Redis for long.
          iterations = Math.max(1000, (long) Math.min(iterations * 10.0, iterations * micros / s.medianMicros()));
        }
      }
      admin.slowlogReset();
      long began = System.nanoTime();
      for (int i = 0; i < runs; i++) {
        admin.eval(loop, io.lettuce.core.ScriptOutputType.INTEGER, new String[0], Long.toString(iterations));
      }
      return StallSample.fromSlowlog(runsOf(loop, admin.slowlogGet(StallSample.MAX_ENTRIES)),
          (System.nanoTime() - began) / 1e9);
    } catch (RedisException e) {
      return null;
    } finally {
      saved.values().removeIf(java.util.Objects::isNull);
      restore(saved);
    }
  }

  /**
   * The slowlog entries of {@code EVAL script} alone: with the threshold at 0 Redis logs every
   * command, those a held-locks worker's renewals run meanwhile included (each script's inner ones
   * too), which are not the fixed work's.
   */
  static List<?> runsOf(String script, List<?> entries) {
    return entries.stream().filter(e -> e instanceof List<?> fields && fields.size() >= 4
        && fields.get(3) instanceof List<?> args && args.size() >= 2
        && "eval".equalsIgnoreCase(String.valueOf(args.get(0))) && script.equals(String.valueOf(args.get(1))))
        .toList();
  }

  /** How often {@link #quietWindow} reads the counters. */
  static final Duration QUIET_READING = Duration.ofMillis(200);
  /** Client calls in one reading's interval that still count as quiet: keep-alive PINGs. */
  static final long QUIET_IDLE_CALLS = 2;

  /**
   * A quiet window (see {@link #quietWindow}).
   *
   * @param redis the counters over it
   * @param seconds how long it lasted
   */
  record QuietWindow(StallSample stall, RedisInfo.Delta redis, RenewalTicks ticks, double seconds) {
  }

  /**
   * Puts the slowlog settings back. A failure here is not swallowed: it would leave a user's
   * server logging far more than it was set to, which they must hear about.
   */
  private void restore(Map<String, String> saved) {
    try {
      saved.forEach(admin::configSet);
    } catch (RedisException e) {
      throw new IllegalStateException("could not restore the server's slowlog settings " + saved
          + " after measuring stalls; set them back by hand", e);
    }
  }

  @Override
  public void close() {
    primaries.forEach(Node::close);
    replicas.forEach(Node::close);
    if (started != null) {
      try {
        started.close();
      } catch (Exception e) {
        throw new IllegalStateException("could not stop " + description, e);
      }
    }
  }
}

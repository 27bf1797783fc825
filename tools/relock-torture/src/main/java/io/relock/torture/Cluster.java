package io.relock.torture;

import io.relock.testkit.JvmProcess;
import io.relock.testkit.RedisClusterGroup;
import io.relock.testkit.RedisMasterGroup;
import io.relock.testkit.RedisSentinelGroup;
import io.relock.testkit.RedisServer;
import io.relock.testkit.TcpProxy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Everything one run needs: the lock Redis (the one under fault), the fenced store's Redis (never
 * faulted), and the worker processes. In the single-server topology each worker reaches the lock
 * Redis through a {@link TcpProxy} of its own, so that one worker can be cut off while the others
 * carry on. In the Sentinel topology the lock Redis is a {@link RedisSentinelGroup} (a primary, one
 * replica, three sentinels) and the workers connect through the sentinels, without proxies (the
 * sentinels hand out the nodes' real addresses). In the Redlock topology the lock Redis is a {@link
 * RedisMasterGroup} of three masters, and each worker reaches each master through a proxy of its
 * own, so that one master can be cut off from every worker at once ({@link #partitionMaster}). In
 * the Cluster topology it is a {@link RedisClusterGroup} of three primaries with a replica each,
 * which the workers reach directly (the cluster hands out the nodes' addresses).
 */
final class Cluster implements AutoCloseable {
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
  /** How many primaries the Cluster topology has, each with one replica. */
  static final int CLUSTER_PRIMARIES = 3;
  /** The Cluster topology's cluster-node-timeout: a killed primary's replica takes over about 2 s later. */
  private static final Duration CLUSTER_NODE_TIMEOUT = Duration.ofSeconds(1);
  /** How many masters the Redlock topology has: the fewest that tolerate one failure. */
  static final int REDLOCK_MASTERS = 3;
  /** How long the nemesis waits for a lock server's answer when it reads the locks. */
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(2);
  private static final List<String> WORKER_JVM_OPTIONS =
      List.of("-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

  /**
   * One worker process and its proxy (null in the Sentinel and Redlock topologies), or its proxies,
   * one per master, in the Redlock topology (empty in the others).
   */
  static final class Worker {
    final String name;
    final TcpProxy proxy;
    final List<TcpProxy> masterProxies;
    final JvmProcess process;
    final Path history;
    volatile String clientId;
    volatile boolean killed;

    Worker(String name, TcpProxy proxy, List<TcpProxy> masterProxies, JvmProcess process, Path history) {
      this.name = name;
      this.proxy = proxy;
      this.masterProxies = masterProxies;
      this.process = process;
      this.history = history;
    }

    @Override
    public String toString() {
      return name + " (pid " + process.pid() + ")";
    }
  }

  final TortureSettings settings;
  final Path runDir;
  /** The lock Redis of the single-server topology; null in the Sentinel topology. */
  final RedisServer lockRedis;
  /** The lock Redis of the Sentinel topology; null in the others. */
  final RedisSentinelGroup sentinel;
  /** The lock Redis of the Redlock topology; null in the others. */
  final RedisMasterGroup masters;
  /** The lock Redis of the Cluster topology; null in the others. */
  final RedisClusterGroup redisCluster;
  /** The Cluster topology's primary of each lock's slot, as last found; forgotten when the cluster changes. */
  private final Map<String, RedisServer> slotOwners = new ConcurrentHashMap<>();
  private final Topology topology;
  final RedisServer storeRedis;
  private final int replicaAcks;
  private final Duration replicaAckTimeout;
  /** The Sentinel topology's primary, as the nemesis last saw it promoted. */
  private volatile RedisServer primary;
  final List<Worker> workers = new CopyOnWriteArrayList<>();
  /** The nemesis's history, which also records the workers killed at the end of a run. */
  final HistoryWriter log;
  private final Path stopFile;
  private final long seed;
  private final int abandonOneIn;
  /** The kind of lock the workers take; the lock family's holds are read from their hold keys. */
  final Workload workload;
  private int started;
  /** When {@link #start} had every server up (its workers were started next), for the run's timing line. */
  volatile long serversUpNanos;

  private Cluster(TortureSettings settings, Path runDir, long seed, int abandonOneIn, Topology topology,
      RedisServer lockRedis, RedisSentinelGroup sentinel, RedisMasterGroup masters, RedisClusterGroup redisCluster,
      RedisServer storeRedis, HistoryWriter log, int replicaAcks, Duration replicaAckTimeout, Workload workload) {
    this.workload = workload;
    this.settings = settings;
    this.topology = topology;
    this.sentinel = sentinel;
    this.masters = masters;
    this.redisCluster = redisCluster;
    this.primary = sentinel == null ? null : sentinel.primary();
    this.replicaAcks = replicaAcks;
    this.replicaAckTimeout = replicaAckTimeout;
    this.abandonOneIn = abandonOneIn;
    this.log = log;
    this.runDir = runDir;
    this.seed = seed;
    this.lockRedis = lockRedis;
    this.storeRedis = storeRedis;
    this.stopFile = runDir.resolve("stop");
  }

  /**
   * Starts the lock Redis of {@code topology}, the store and {@link TortureSettings#processes()}
   * workers; returns once all are ready.
   *
   * @param abandonOneIn see {@link WorkerConfig#abandonOneIn()}
   * @param replicaAcks the workers' relock replicaAcks replicas (0: off), with {@code replicaAckTimeout}
   * @param clockLibrary the {@link ClockShim} library the Redlock masters run with, so that {@link
   *     #stepClock} can step their clocks; null for none
   * @param workload the kind of lock the workers take
   */
  static Cluster start(TortureSettings settings, Path runDir, long seed, int abandonOneIn, HistoryWriter log,
      Topology topology, int replicaAcks, Duration replicaAckTimeout, Path clockLibrary, Workload workload) {
    try {
      Files.createDirectories(runDir);
      Files.deleteIfExists(runDir.resolve("stop"));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare " + runDir, e);
    }
    RedisServer lock = null;
    RedisSentinelGroup group = null;
    RedisMasterGroup masters = null;
    RedisClusterGroup redisCluster = null;
    RedisServer store = null;
    try {
      switch (topology) {
        case SENTINEL -> group = startSentinelGroup();
        case REDLOCK -> masters = clockLibrary == null ? RedisMasterGroup.start(REDLOCK_MASTERS)
            : RedisMasterGroup.start(REDLOCK_MASTERS, withClock(clockLibrary, runDir));
        // Persistence: a killed primary restarts under its old identity and rejoins as a replica.
        case CLUSTER -> redisCluster = RedisClusterGroup.builder().primaries(CLUSTER_PRIMARIES).replicasPerPrimary(1)
            .nodeTimeout(CLUSTER_NODE_TIMEOUT).persistence(true).start();
        default -> lock = RedisServer.start();
      }
      store = RedisServer.start();
      long serversUp = System.nanoTime();
      Cluster c = new Cluster(settings, runDir, seed, abandonOneIn, topology, lock, group, masters, redisCluster,
          store, log, replicaAcks, replicaAckTimeout, workload);
      List<Worker> starting = new ArrayList<>();
      for (int i = 0; i < settings.processes(); i++) {
        starting.add(c.launchWorker());
      }
      for (Worker w : starting) {
        c.awaitReady(w);
      }
      c.serversUpNanos = serversUp;
      return c;
    } catch (RuntimeException e) {
      if (lock != null) {
        lock.close();
      }
      if (group != null) {
        group.close();
      }
      if (masters != null) {
        masters.close();
      }
      if (redisCluster != null) {
        redisCluster.close();
      }
      if (store != null) {
        store.close();
      }
      throw e;
    }
  }

  /**
   * Has each master started run with the clock-step library and an offset file of its own, {@code
   * clock-m0.txt}, {@code clock-m1.txt}, ... in the run's directory, starting at 0.
   */
  private static java.util.function.UnaryOperator<RedisServer.Builder> withClock(Path library, Path runDir) {
    java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
    return b -> {
      Path offsets = clockFile(runDir, next.getAndIncrement());
      ClockShim.reset(offsets);
      return b.environment("LD_PRELOAD", library.toString())
          .environment(ClockShim.OFFSET_FILE_VARIABLE, offsets.toString());
    };
  }

  private static Path clockFile(Path runDir, int master) {
    return runDir.resolve("clock-m" + master + ".txt");
  }

  /**
   * Steps the wall clock of Redlock master {@code i} forward by {@code by} (the masters must have
   * been started with a clock library); the server sees it within 20 ms. Returns the master's
   * offset from the real clock now.
   */
  Duration stepClock(int i, Duration by) {
    return Duration.ofMillis(ClockShim.step(clockFile(runDir, i), by.toMillis()));
  }

  /**
   * A primary, one replica, three sentinels (down-after 1 s). The sentinels refresh what they know
   * of each node every second instead of every ten ({@code SENTINEL DEBUG info-period}, Redis 7), so
   * that a node rejoined as a replica is a candidate for the next promotion within about a second.
   */
  private static RedisSentinelGroup startSentinelGroup() {
    RedisSentinelGroup group = RedisSentinelGroup.start();
    for (RedisServer s : group.sentinels()) {
      try {
        s.execute("SENTINEL", "DEBUG", "info-period", "1000");
      } catch (RedisServer.ErrorReply olderRedis) {
        // Before Redis 7: the default 10 s; rejoined nodes just take longer to be seen.
      }
    }
    return group;
  }

  /**
   * The lock Redis's primary now: the single server, or the Sentinel group's last promoted primary.
   * Not for the Redlock and Cluster topologies, which have no one server: see {@link #lockNodes}.
   */
  RedisServer lockServer() {
    if (masters != null) {
      throw new IllegalStateException("the Redlock topology has " + masters.size() + " masters, not one lock server");
    }
    if (redisCluster != null) {
      throw new IllegalStateException("the Cluster topology has " + CLUSTER_PRIMARIES + " primaries, not one lock server");
    }
    return sentinel == null ? lockRedis : primary;
  }

  /**
   * The servers that hold {@code lock}: the single server, the Sentinel primary, every Redlock
   * master, or the cluster primary of its slot (as last found; see {@link #clusterChanged}).
   */
  List<RedisServer> lockNodes(String lock) {
    if (masters != null) {
      return masters.masters();
    }
    if (redisCluster != null) {
      return List.of(slotOwners.computeIfAbsent(lock, l -> redisCluster.primaryFor(lockKey(l))));
    }
    return List.of(lockServer());
  }

  /** The nemesis tells after a failover or a slot migration in the Cluster topology: slot owners may have moved. */
  void clusterChanged() {
    slotOwners.clear();
  }

  /**
   * How the nemesis names node {@code i} of {@link #lockNodes}: {@code m0}, {@code m1}, ... for
   * Redlock masters, else {@code redis}.
   */
  String nodeName(int i) {
    return masters != null ? "m" + i : "redis";
  }

  /** The nemesis tells after each failover which node the sentinels promoted. */
  void promoted(RedisServer node) {
    primary = node;
  }

  /** The URI clients of the coordinator use for the lock Redis (no proxy); not for the Redlock and Cluster topologies. */
  String lockUri() {
    if (masters != null || redisCluster != null) {
      throw new IllegalStateException("the " + topology.id + " topology has no single lock URI");
    }
    return sentinel == null ? lockRedis.uri() : sentinel.sentinelUri();
  }

  /**
   * Cuts Redlock master {@code i} off from every worker: their proxies to it drop all bytes both
   * ways, so the workers see timeouts, not errors.
   */
  void partitionMaster(int i) {
    alive().forEach(w -> w.masterProxies.get(i).blackhole());
  }

  /**
   * Ends {@link #partitionMaster}. The connections are reset first: bytes dropped from a live
   * stream leave a connection out of step for good (see {@link Fault#BLACKHOLE_RESUME}), and a
   * partition long enough to matter would have killed them anyway.
   */
  void healMaster(int i) {
    for (Worker w : alive()) {
      w.masterProxies.get(i).cut();
      w.masterProxies.get(i).restore();
    }
  }

  /** Resets every worker's connections to Redlock master {@code i} and refuses new ones until {@link #restoreMaster}. */
  void cutMaster(int i) {
    alive().forEach(w -> w.masterProxies.get(i).cut());
  }

  void restoreMaster(int i) {
    alive().forEach(w -> w.masterProxies.get(i).restore());
  }

  /**
   * Waits until every sentinel lists {@code node} as a replica whose link to the primary is up, so
   * that the next failover can promote it.
   */
  void awaitSentinelsSeeReplica(RedisServer node, Duration deadline) {
    long end = System.nanoTime() + deadline.toNanos();
    while (true) {
      boolean all = true;
      for (RedisServer s : sentinel.sentinels()) {
        all &= seesHealthyReplica(s, node.port());
      }
      if (all) {
        return;
      }
      if (System.nanoTime() - end > 0) {
        throw new IllegalStateException("the sentinels did not see " + node + " as a healthy replica within "
            + deadline);
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }
  }

  private boolean seesHealthyReplica(RedisServer s, int port) {
    Object reply;
    try {
      reply = s.execute(Duration.ofSeconds(2), "SENTINEL", "REPLICAS", sentinel.masterName());
    } catch (UncheckedIOException | RedisServer.ErrorReply e) {
      return false;
    }
    if (!(reply instanceof List<?> entries)) {
      return false;
    }
    for (Object entry : entries) {
      if (entry instanceof List<?> kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i + 1 < kv.size(); i += 2) {
          m.put(String.valueOf(kv.get(i)), String.valueOf(kv.get(i + 1)));
        }
        if (String.valueOf(port).equals(m.get("port")) && "slave".equals(m.get("flags"))
            && "ok".equals(m.get("master-link-status"))) {
          return true;
        }
      }
    }
    return false;
  }

  /** Starts one more worker (a replacement for a killed one) and waits until it is ready. */
  Worker addWorker() {
    Worker w = launchWorker();
    awaitReady(w);
    return w;
  }

  private synchronized Worker launchWorker() {
    String name = "w" + (++started);
    TcpProxy proxy = lockRedis != null ? TcpProxy.start(lockRedis.host(), lockRedis.port()) : null;
    List<TcpProxy> masterProxies = new ArrayList<>();
    if (masters != null) {
      for (RedisServer m : masters.masters()) {
        masterProxies.add(TcpProxy.start(m.host(), m.port()));
      }
    }
    String lockUri = proxy != null ? proxy.uri()
        : masters != null ? String.join(",", masterProxies.stream().map(TcpProxy::uri).toList())
        : redisCluster != null ? String.join(",", redisCluster.seedUris())
        : sentinel.sentinelUri();
    Path history = runDir.resolve(name + ".jsonl");
    WorkerConfig config = new WorkerConfig(name, lockUri, storeRedis.uri(), history, stopFile,
        settings.threads(), settings.locks(), settings.lease(), settings.commandTimeout(),
        settings.recheckInterval(), settings.acquireWait(), settings.holdMin(), settings.holdMax(),
        settings.longHoldOneIn(), settings.longHoldMin(), settings.longHoldMax(), abandonOneIn,
        seed * 1009 + started, replicaAcks, replicaAckTimeout,
        masters != null ? settings.redlockRestartDelay() : Duration.ZERO, topology, workload);
    JvmProcess process;
    try {
      process = JvmProcess.start(WORKER_JVM_OPTIONS, WorkerMain.class, config.toArgs().toArray(String[]::new));
    } catch (RuntimeException e) {
      if (proxy != null) {
        proxy.close();
      }
      masterProxies.forEach(TcpProxy::close);
      throw e;
    }
    Worker w = new Worker(name, proxy, List.copyOf(masterProxies), process, history);
    workers.add(w);
    return w;
  }

  private void awaitReady(Worker w) {
    String line = w.process.awaitLine(l -> l.startsWith("ready "), READY_TIMEOUT);
    w.clientId = line.substring("ready ".length()).trim();
  }

  List<Worker> alive() {
    return workers.stream().filter(w -> !w.killed).toList();
  }

  /**
   * Which live worker holds each lock now, read straight from the lock servers (locks that nobody
   * holds, or that a killed worker still holds, are absent). With Redlock, the holder is the owner
   * a majority of the masters name.
   */
  Map<String, Worker> holders() {
    Map<String, Worker> holders = new LinkedHashMap<>();
    for (LockView view : views()) {
      Worker w = holderOf(view);
      if (w != null) {
        holders.put(view.lock(), w);
      }
    }
    return holders;
  }

  /** The live worker whose thread {@code view} shows holding the lock, or null. */
  Worker holderOf(LockView view) {
    LockView.Entry e = view.holder();
    if (e == null) {
      return null;
    }
    for (Worker w : alive()) {
      if (w.clientId != null && e.owner().startsWith(w.clientId + ":")) {
        return w;
      }
    }
    return null;
  }

  /** Every lock as the lock servers have it now, node by node. */
  List<LockView> views() {
    List<LockView> views = new ArrayList<>();
    for (String lock : settings.locks()) {
      List<LockView.Entry> entries = new ArrayList<>();
      for (RedisServer node : lockNodes(lock)) {
        entries.add(read(node, lock));
      }
      views.add(new LockView(lock, java.util.Collections.unmodifiableList(entries)));
    }
    return views;
  }

  /**
   * The owner and token of {@code lock} on {@code node}; null if it has none or does not answer
   * (a paused or restarting Redlock master is only one of three: the others still tell who holds),
   * or, in the Cluster topology, no longer has the lock's slot (it is found again on the next read).
   */
  private LockView.Entry read(RedisServer node, String lock) {
    Object reply;
    try {
      if (workload != Workload.EXCLUSIVE) {
        return LockView.Entry.first(node.execute(READ_TIMEOUT, "EVAL", FAMILY_HOLDS, "1", lockKey(lock), "view"));
      }
      reply = node.execute(READ_TIMEOUT, "GET", lockKey(lock));
    } catch (UncheckedIOException | RedisServer.ErrorReply e) {
      if (redisCluster != null) {
        slotOwners.remove(lock);  // MOVED, or a killed primary
      }
      return null;
    }
    return LockView.Entry.ofValue(reply);
  }

  /**
   * The holds of a read-write lock or a semaphore, as relock-core's holders.lua keeps them: the
   * values of the hold keys its holder indexes name; with ARGV[1] {@code view}, only the writer's
   * while there is one (readers then hold the lock no longer), with {@code all} every hold. Read in
   * one script so that a hold does not move between two reads.
   */
  static final String FAMILY_HOLDS = "local out = {}\n"
      + "for _, set in ipairs({':writers', ':readers', ':held'}) do\n"
      + "  for _, owner in ipairs(redis.call('ZRANGE', KEYS[1] .. set, 0, -1)) do\n"
      + "    local v = redis.call('GET', KEYS[1] .. ':h:' .. owner)\n"
      + "    if v then out[#out + 1] = v end\n"
      + "  end\n"
      + "  if set == ':writers' and #out > 0 and ARGV[1] == 'view' then return out end\n"
      + "end\n"
      + "return out";

  static String lockKey(String lock) {
    return "relock:{" + lock + "}";
  }

  /**
   * Asks every worker to stop after its current critical sections and waits for them to exit;
   * returns the workers that had to be killed because they did not.
   */
  List<Worker> stopWorkers(Duration patience) {
    try {
      Files.createFile(stopFile);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + stopFile, e);
    }
    List<Worker> forced = new ArrayList<>();
    long deadline = System.nanoTime() + patience.toNanos();
    for (Worker w : alive()) {
      long left = Math.max(1, deadline - System.nanoTime());
      try {
        w.process.waitFor(Duration.ofNanos(left));
      } catch (IllegalStateException stillRunning) {
        log.record(Event.KILLED, null, null, 0, HistoryWriter.fields("target", w.name, "reason", "did not stop"));
        w.process.kill9();
        w.killed = true;
        forced.add(w);
      }
    }
    return forced;
  }

  @Override
  public void close() {
    for (Worker w : workers) {
      w.process.close();
      if (w.proxy != null) {
        w.proxy.close();
      }
      w.masterProxies.forEach(TcpProxy::close);
    }
    if (lockRedis != null) {
      lockRedis.close();
    }
    if (sentinel != null) {
      sentinel.close();
    }
    if (masters != null) {
      masters.close();
    }
    if (redisCluster != null) {
      redisCluster.close();
    }
    storeRedis.close();
  }
}

package io.relock.torture;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one worker process does, passed on its command line as {@code --key=value} arguments.
 *
 * @param name the worker's name in the run ({@code w1}, ...)
 * @param lockUri the lock Redis, through this worker's own proxy; or the sentinels' {@code
 *     redis-sentinel://} URI (Sentinel topology); or, comma-separated, the cluster's seed nodes
 *     (Cluster topology); or, comma-separated, one URI per Redlock master, each through a proxy of
 *     this worker's own (Redlock topology)
 * @param storeUri the fenced store's Redis (never faulted)
 * @param history this worker's history file
 * @param stopFile the worker finishes its current critical sections and exits once this file exists
 * @param threads worker threads, each its own lock owner
 * @param locks the lock names the threads pick from at random
 * @param lease the client's default lease; also the fixed lease of one hold in four
 * @param commandTimeout relock's command timeout
 * @param recheckInterval relock's recheck interval
 * @param acquireWait how long one acquisition waits
 * @param holdMin shortest time between a critical section's read and its write
 * @param holdMax longest such time
 * @param longHoldOneIn one watchdog-renewed hold in this many is a long one instead
 * @param longHoldMin a long hold waits between this long and {@code longHoldMax} between its read and
 *     its write, relying on the watchdog (fixed-lease holds are never long: they would outlive their lease)
 * @param longHoldMax longest long hold
 * @param abandonOneIn one hold in this many walks away from its (fixed) lease without closing it,
 *     as a crashed holder would; 0 for never
 * @param seed seeds the threads' choices of lock, lease style and hold time
 * @param replicaAcks relock's replicaAcks replicas (0: off)
 * @param replicaAckTimeout relock's replicaAcks timeout (ignored when off)
 * @param redlockRestartDelay relock's {@code redlockRestartDelay} (Redlock topology; zero otherwise)
 * @param topology how {@code lockUri} is read
 * @param workload which kind of lock the threads take (the semaphore with {@link Workload#PERMITS})
 */
record WorkerConfig(String name, String lockUri, String storeUri, Path history, Path stopFile, int threads,
    List<String> locks, Duration lease, Duration commandTimeout, Duration recheckInterval, Duration acquireWait,
    Duration holdMin, Duration holdMax, int longHoldOneIn, Duration longHoldMin, Duration longHoldMax,
    int abandonOneIn, long seed, int replicaAcks, Duration replicaAckTimeout, Duration redlockRestartDelay,
    Topology topology, Workload workload) {

  /** An exclusive-lock worker, as every worker was before the lock family had workloads. */
  WorkerConfig(String name, String lockUri, String storeUri, Path history, Path stopFile, int threads,
      List<String> locks, Duration lease, Duration commandTimeout, Duration recheckInterval, Duration acquireWait,
      Duration holdMin, Duration holdMax, int longHoldOneIn, Duration longHoldMin, Duration longHoldMax,
      int abandonOneIn, long seed, int replicaAcks, Duration replicaAckTimeout, Duration redlockRestartDelay,
      Topology topology) {
    this(name, lockUri, storeUri, history, stopFile, threads, locks, lease, commandTimeout, recheckInterval,
        acquireWait, holdMin, holdMax, longHoldOneIn, longHoldMin, longHoldMax, abandonOneIn, seed, replicaAcks,
        replicaAckTimeout, redlockRestartDelay, topology, Workload.EXCLUSIVE);
  }

  /** The URIs of {@code lockUri}: the Redlock masters or the cluster's seed nodes. */
  String[] lockUris() {
    return lockUri.split(",");
  }

  List<String> toArgs() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("name", name);
    m.put("lock-uri", lockUri);
    m.put("store-uri", storeUri);
    m.put("history", history.toString());
    m.put("stop-file", stopFile.toString());
    m.put("threads", Integer.toString(threads));
    m.put("locks", String.join(",", locks));
    m.put("lease-ms", Long.toString(lease.toMillis()));
    m.put("command-timeout-ms", Long.toString(commandTimeout.toMillis()));
    m.put("recheck-ms", Long.toString(recheckInterval.toMillis()));
    m.put("wait-ms", Long.toString(acquireWait.toMillis()));
    m.put("hold-min-ms", Long.toString(holdMin.toMillis()));
    m.put("hold-max-ms", Long.toString(holdMax.toMillis()));
    m.put("long-hold-one-in", Integer.toString(longHoldOneIn));
    m.put("long-hold-min-ms", Long.toString(longHoldMin.toMillis()));
    m.put("long-hold-max-ms", Long.toString(longHoldMax.toMillis()));
    m.put("abandon-one-in", Integer.toString(abandonOneIn));
    m.put("seed", Long.toString(seed));
    m.put("replica-acks", Integer.toString(replicaAcks));
    m.put("replica-ack-timeout-ms", Long.toString(replicaAckTimeout.toMillis()));
    m.put("redlock-restart-delay-ms", Long.toString(redlockRestartDelay.toMillis()));
    m.put("topology", topology.id);
    m.put("workload", workload.id);
    List<String> args = new ArrayList<>();
    m.forEach((k, v) -> args.add("--" + k + "=" + v));
    return args;
  }

  static WorkerConfig parse(String... args) {
    Map<String, String> m = new LinkedHashMap<>();
    for (String a : args) {
      int eq = a.indexOf('=');
      if (!a.startsWith("--") || eq < 0) {
        throw new IllegalArgumentException("worker arguments are --key=value: '" + a + "'");
      }
      m.put(a.substring(2, eq), a.substring(eq + 1));
    }
    return new WorkerConfig(req(m, "name"), req(m, "lock-uri"), req(m, "store-uri"), Path.of(req(m, "history")),
        Path.of(req(m, "stop-file")), Integer.parseInt(req(m, "threads")), List.of(req(m, "locks").split(",")),
        millis(m, "lease-ms"), millis(m, "command-timeout-ms"), millis(m, "recheck-ms"), millis(m, "wait-ms"),
        millis(m, "hold-min-ms"), millis(m, "hold-max-ms"), Integer.parseInt(req(m, "long-hold-one-in")),
        millis(m, "long-hold-min-ms"), millis(m, "long-hold-max-ms"), Integer.parseInt(req(m, "abandon-one-in")),
        Long.parseLong(req(m, "seed")), Integer.parseInt(req(m, "replica-acks")), millis(m, "replica-ack-timeout-ms"),
        millis(m, "redlock-restart-delay-ms"), Topology.byId(req(m, "topology")),
        Workload.byId(m.getOrDefault("workload", Workload.EXCLUSIVE.id)));
  }

  private static String req(Map<String, String> m, String key) {
    String v = m.get(key);
    if (v == null) {
      throw new IllegalArgumentException("worker argument --" + key + " is missing");
    }
    return v;
  }

  private static Duration millis(Map<String, String> m, String key) {
    return Duration.ofMillis(Long.parseLong(req(m, key)));
  }
}

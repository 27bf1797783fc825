package io.relock.torture;

import static io.relock.torture.HistoryWriter.fields;

import io.relock.LockLease;
import io.relock.LockTimeoutException;
import io.relock.Relock;
import io.relock.RelockException;
import io.relock.testkit.RedisSentinelGroup;
import io.relock.testkit.RedisServer;
import io.relock.testkit.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Injects a run's faults, one {@link Step} at a time, and records each in the nemesis history.
 * A fault window is recorded from the moment the fault is in force (after SIGSTOP took effect,
 * after the proxy cut) to the moment before it is lifted, so a recorded window never overstates
 * the fault; the checker relies on that when it decides that a hold must have been lost.
 */
final class Nemesis {
  private static final Duration LONG_HOLD_WAIT = Duration.ofSeconds(3);
  private static final Duration LONG_HOLD_AGE = Duration.ofMillis(300);
  /**
   * A hold granted after replication was cut counts as at work once it has lasted this long:
   * longer than the replicaAcks timeout, so that an acquisition still waiting for its replica's
   * acknowledgement (which holds the lock in Redis meanwhile) is not taken for one, and the runs
   * with replicaAcks see acquisitions refused for want of an acknowledgement, not only cut off by
   * the kill.
   */
  private static final Duration HOLE_HOLD_AGE = TortureSettings.REPLICA_ACK_TIMEOUT.plusMillis(200);
  /** Replication stays cut at least this long before the primary is killed (failover-hole). */
  private static final Duration MIN_CUT = Duration.ofMillis(300);
  private static final Duration FAILOVER_DEADLINE = Duration.ofSeconds(30);
  private static final Duration RESYNC_DEADLINE = Duration.ofSeconds(20);

  private final Cluster cluster;
  private final HistoryWriter log;
  private final Relock probe;
  private final List<String> done = new ArrayList<>();

  /**
   * @param probe a relock client straight to the lock Redis (no proxy), with which the nemesis
   *     itself waits for a lock whose holder it killed; null if the run kills no holder
   */
  Nemesis(Cluster cluster, Relock probe) {
    this.cluster = cluster;
    this.log = cluster.log;
    this.probe = probe;
  }

  /** Runs the steps in order until they run out or {@code endNanos} passes; returns what was done. */
  List<String> run(List<Step> steps, long endNanos) {
    for (Step step : steps) {
      sleep(step.gapBefore());
      if (System.nanoTime() - endNanos >= 0) {
        break;
      }
      if (step.fault().isFailover()) {
        try {
          done.add(failover(step));
        } catch (RuntimeException e) {
          // The harness, not relock: the group did not fail over or come back. Stop faulting; the
          // checker reports the error and the workers still stop in order.
          log.record(Event.NEMESIS_ERROR, null, null, 0, fields("error", String.valueOf(e.getMessage())));
          done.add(step.fault().id + " failed: " + e.getMessage());
          break;
        }
        continue;
      }
      done.add(execute(step));
    }
    return done;
  }

  private String execute(Step step) {
    List<TcpProxy> overlaid = List.of();
    if (!step.overlay().isZero()) {
      overlaid = cluster.alive().stream().map(w -> w.proxy).toList();
      overlaid.forEach(p -> p.delay(step.overlay()));
      log.record(Event.FAULT_START, null, null, 0, fields("fault", Fault.DELAY.id, "target", "all",
          "detail", step.overlay().toMillis() + " ms"));
    }
    try {
      return switch (step.fault()) {
        case PAUSE_HOLDER -> pauseHolder(step);
        case KILL_HOLDER -> killHolder(step);
        case RESTART_REDIS -> restartRedis();
        case PAUSE_REDIS -> pauseRedis(step);
        case CUT_HOLDER, BLACKHOLE_HOLDER, BLACKHOLE_RESUME -> isolateHolder(step);
        case DELAY -> delay(step);
        default -> throw new IllegalArgumentException("not a single fault: " + step.fault());
      };
    } finally {
      if (!overlaid.isEmpty()) {
        overlaid.forEach(TcpProxy::restore);
        log.record(Event.FAULT_END, null, null, 0, fields("fault", Fault.DELAY.id, "target", "all"));
      }
    }
  }

  private String pauseHolder(Step step) {
    Cluster.Worker w = pickHolder(step);
    w.process.pause();
    log.record(Event.FAULT_START, null, null, 0, fields("fault", step.fault().id, "target", w.name,
        "detail", step.length().toMillis() + " ms"));
    sleep(step.length());
    log.record(Event.FAULT_END, null, null, 0, fields("fault", step.fault().id, "target", w.name));
    w.process.resume();
    return step.fault().id + " " + w.name + " " + Step.seconds(step.length());
  }

  private String killHolder(Step step) {
    Cluster.Worker w = pickHolder(step);
    List<String> held = cluster.holders().entrySet().stream().filter(e -> e.getValue() == w)
        .map(Map.Entry::getKey).toList();
    long at = System.nanoTime();
    if (held.isEmpty()) {
      log.record(at, Event.KILLED, null, null, 0, fields("target", w.name, "reason", "nemesis"));
    }
    for (String lock : held) {
      log.record(at, Event.KILLED, lock, null, 0, fields("target", w.name, "reason", "nemesis"));
    }
    w.killed = true;
    w.process.kill9();
    w.proxy.close();
    List<CompletableFuture<Void>> probes = new ArrayList<>();
    for (String lock : held) {
      probes.add(CompletableFuture.runAsync(() -> probeLock(lock)));
    }
    probes.forEach(CompletableFuture::join);
    Cluster.Worker replacement = cluster.addWorker();
    return "kill-holder " + w.name + " holding " + held + ", replaced by " + replacement.name;
  }

  /** Waits for {@code lock} as one more contender would; the checker measures how long it stayed taken. */
  private void probeLock(String lock) {
    TortureSettings s = cluster.settings;
    Duration wait = s.lease().plus(s.stuckBound()).plusSeconds(3);
    try (LockLease lease = probe.lock(lock).acquire(wait)) {
      log.record(Event.PROBE, lock, null, lease.fencingToken(), fields("result", "acquired"));
    } catch (LockTimeoutException e) {
      log.record(Event.PROBE, lock, null, 0, fields("result", "timeout"));
    } catch (RelockException | IllegalMonitorStateException e) {
      log.record(Event.PROBE, lock, null, 0, fields("result", "error", "error", e.getMessage()));
    }
  }

  private String restartRedis() {
    log.record(Event.FAULT_START, null, null, 0, fields("fault", Fault.RESTART_REDIS.id, "target", "redis"));
    cluster.lockRedis.restart();
    log.record(Event.FAULT_END, null, null, 0, fields("fault", Fault.RESTART_REDIS.id, "target", "redis"));
    return "restart-redis";
  }

  private String pauseRedis(Step step) {
    Cluster.Worker atWork = awaitLongHolder();
    cluster.lockRedis.pause();
    log.record(Event.FAULT_START, null, null, 0, fields("fault", step.fault().id, "target", "redis",
        "detail", step.length().toMillis() + " ms"));
    sleep(step.length());
    log.record(Event.FAULT_END, null, null, 0, fields("fault", step.fault().id, "target", "redis"));
    cluster.lockRedis.resume();
    return "pause-redis " + Step.seconds(step.length()) + (atWork == null ? "" : " during a long hold of " + atWork.name);
  }

  private String isolateHolder(Step step) {
    Cluster.Worker atWork = awaitLongHolder();
    Cluster.Worker w = atWork != null ? atWork : pickHolder(step);
    if (step.fault() == Fault.CUT_HOLDER) {
      w.proxy.cut();
    } else {
      w.proxy.blackhole();
    }
    log.record(Event.FAULT_START, null, null, 0, fields("fault", step.fault().id, "target", w.name,
        "detail", step.length().toMillis() + " ms"));
    sleep(step.length());
    log.record(Event.FAULT_END, null, null, 0, fields("fault", step.fault().id, "target", w.name));
    if (step.fault() == Fault.BLACKHOLE_HOLDER) {
      w.proxy.cut();  // a partition that outlived the connections; see Fault.BLACKHOLE_RESUME
    }
    w.proxy.restore();
    return step.fault().id + " " + w.name + " " + Step.seconds(step.length())
        + (atWork == null ? "" : " during a long hold");
  }

  private String delay(Step step) {
    List<Cluster.Worker> alive = cluster.alive();
    List<Cluster.Worker> targets = step.allWorkers() ? alive : List.of(alive.get(step.pick() % alive.size()));
    String target = step.allWorkers() ? "all" : targets.get(0).name;
    targets.forEach(w -> w.proxy.delay(step.latency()));
    log.record(Event.FAULT_START, null, null, 0, fields("fault", Fault.DELAY.id, "target", target,
        "detail", step.latency().toMillis() + " ms"));
    sleep(step.length());
    log.record(Event.FAULT_END, null, null, 0, fields("fault", Fault.DELAY.id, "target", target));
    targets.forEach(w -> w.proxy.restore());
    return "delay " + step.latency().toMillis() + " ms on " + target + " for " + Step.seconds(step.length());
  }

  /**
   * Waits (up to {@link #LONG_HOLD_WAIT}) until some worker has held a lock for {@link
   * #LONG_HOLD_AGE}, longer than any short critical section, and returns it; null if none did.
   * A network fault or a Redis pause then hits a holder still at work, the case that matters;
   * one that hits between critical sections tests little. Read from the lock Redis: the same
   * fencing token for that long means the same hold.
   */
  private Cluster.Worker awaitLongHolder() {
    return awaitLongHolder(LONG_HOLD_WAIT, LONG_HOLD_AGE, Map.of());
  }

  /**
   * Like {@link #awaitLongHolder()}, waiting up to {@code wait} for a hold of at least {@code age}
   * whose token is none of {@code excluded} (lock to token): a hold granted after those were read.
   */
  private Cluster.Worker awaitLongHolder(Duration wait, Duration age, Map<String, String> excluded) {
    Map<String, String> tokens = new java.util.HashMap<>();
    Map<String, Long> since = new java.util.HashMap<>();
    long deadline = System.nanoTime() + wait.toNanos();
    while (System.nanoTime() - deadline < 0) {
      Map<String, Cluster.Worker> holders = cluster.holders();
      long now = System.nanoTime();
      for (String lock : cluster.settings.locks()) {
        Object token = cluster.lockServer().execute("HGET", "relock:{" + lock + "}", "t");
        String t = token instanceof String s ? s : null;
        if (t == null || !t.equals(tokens.get(lock))) {
          tokens.put(lock, t);
          since.put(lock, now);
        } else if (now - since.get(lock) >= age.toNanos() && holders.containsKey(lock)
            && !t.equals(excluded.get(lock))) {
          return holders.get(lock);
        }
      }
      sleep(Duration.ofMillis(25));
    }
    return null;
  }

  /** The fencing token each lock has now on the lock Redis (absent if it never had one). */
  private Map<String, String> tokens() {
    Map<String, String> tokens = new java.util.HashMap<>();
    for (String lock : cluster.settings.locks()) {
      if (cluster.lockServer().execute("HGET", "relock:{" + lock + "}", "t") instanceof String t) {
        tokens.put(lock, t);
      }
    }
    return tokens;
  }

  /**
   * One failover of the Sentinel group. {@code failover}: waits for a long hold, kills the primary
   * (SIGKILL), waits until the sentinels agree on the promoted replica, restarts the killed node
   * (it comes back as a replica of the promoted one) and waits until that is in sync and the
   * sentinels see it (so that the next failover has a replica to promote). {@code failover-hole}:
   * cuts replication first, waits until a hold granted since the cut has been at work for {@link
   * #HOLE_HOLD_AGE} (up to the step's length, at least {@link #MIN_CUT}), then the same;
   * replication is restored once the new primary is in place. The fault window runs from the kill
   * (failover) or the cut (failover-hole) to the promotion.
   */
  private String failover(Step step) {
    RedisSentinelGroup group = cluster.sentinel;
    boolean hole = step.fault() == Fault.FAILOVER_HOLE;
    String id = step.fault().id;
    Cluster.Worker atWork;
    long cut = -1;
    long cutNanos = 0;
    if (hole) {
      Map<String, String> before = tokens();
      group.cutReplication();
      cut = log.record(Event.FAULT_START, null, null, 0, fields("fault", id, "target", "redis",
          "detail", "replication cut")).monoNanos();
      sleep(MIN_CUT);
      atWork = awaitLongHolder(step.length().minus(MIN_CUT), HOLE_HOLD_AGE, before);
      cutNanos = System.nanoTime() - cut;
    } else {
      atWork = awaitLongHolder();
    }
    RedisServer old = group.killPrimary();
    long killed = log.record(Event.PRIMARY_KILLED, null, null, 0, fields("port", old.port(),
        "cut", hole ? cut : null)).monoNanos();
    if (!hole) {
      log.record(killed, Event.FAULT_START, null, null, 0, fields("fault", id, "target", "redis",
          "detail", "primary killed"));
    }
    RedisServer promoted;
    try {
      promoted = group.awaitFailover(FAILOVER_DEADLINE);
    } finally {
      if (hole) {
        group.restoreReplication();
      }
    }
    long at = log.record(Event.PROMOTED, null, null, 0, fields("port", promoted.port(),
        "ms", (System.nanoTime() - killed) / 1_000_000)).monoNanos();
    log.record(at, Event.FAULT_END, null, null, 0, fields("fault", id, "target", "redis"));
    cluster.promoted(promoted);
    long rejoin = System.nanoTime();
    // Comes back empty, as a replica of the promoted node: awaitFailover linked it in its configuration.
    old.restart();
    group.awaitReplicated(RESYNC_DEADLINE);
    cluster.awaitSentinelsSeeReplica(old, RESYNC_DEADLINE);
    long synced = System.nanoTime();
    log.record(Event.REJOINED, null, null, 0, fields("port", old.port(), "ms", (synced - rejoin) / 1_000_000));
    return id + (hole ? ": replication cut " + Step.seconds(Duration.ofNanos(cutNanos)) + " before the kill," : ":")
        + " killed primary :" + old.port() + (atWork == null ? "" : " during a long hold of " + atWork.name)
        + ", :" + promoted.port() + " promoted after " + Step.seconds(Duration.ofNanos(at - killed))
        + ", :" + old.port() + " rejoined and in sync after " + Step.seconds(Duration.ofNanos(synced - rejoin));
  }

  /** A worker that holds a lock now (chosen by the step), or any live worker if none does. */
  private Cluster.Worker pickHolder(Step step) {
    List<Cluster.Worker> holders = cluster.holders().values().stream().distinct().toList();
    List<Cluster.Worker> candidates = holders.isEmpty() ? cluster.alive() : holders;
    return candidates.get(step.pick() % candidates.size());
  }

  private static void sleep(Duration d) {
    try {
      TimeUnit.NANOSECONDS.sleep(d.toNanos());  // the schedule's own timing, not a wait for a condition
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("nemesis interrupted", e);
    }
  }
}

package io.relock.torture;

import static io.relock.torture.HistoryWriter.fields;

import io.relock.LockLease;
import io.relock.LockTimeoutException;
import io.relock.Relock;
import io.relock.RelockException;
import io.relock.testkit.RedisClusterGroup;
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
 * the fault; the checker relies on that when it decides that a hold must have been lost. For the
 * same reason a hold a Redlock master's restart erased is recorded only once the master is back.
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
  /**
   * restart-master: the third master stays cut off at least this long before the wait for a hold
   * the other two granted alone (a hold asked for before the cut may still complete on them).
   */
  private static final Duration MIN_MASTER_CUT = Duration.ofMillis(300);
  /** How long after writing a master's clock offset the nemesis counts on the master having read it (it rereads every 20 ms). */
  private static final Duration CLOCK_STEP_SEEN = Duration.ofMillis(100);
  private static final Duration FAILOVER_DEADLINE = Duration.ofSeconds(30);
  private static final Duration RESYNC_DEADLINE = Duration.ofSeconds(20);
  /** relock's Redlock node marker and fence (default key prefix), and its script that writes them. */
  private static final String MARKER_KEY = "relock:redlock:node";
  private static final String FENCE_KEY = "relock:redlock:fence";
  private static final String MARK_SCRIPT = relockScript("redlock_node.lua");

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
      if (step.fault().isRedlock() || step.fault().isCluster()) {
        try {
          done.add(step.fault().isRedlock() ? redlock(step) : clusterStep(step));
        } catch (RuntimeException e) {
          // The harness, not relock: a node did not come back. Stop faulting, as after a failed failover.
          log.record(Event.NEMESIS_ERROR, null, null, 0, fields("error", String.valueOf(e.getMessage())));
          done.add(step.fault().id + " failed: " + e.getMessage());
          break;
        }
        continue;
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

  /**
   * Waits for {@code lock} as one more contender would; the checker measures how long it stayed
   * taken. A read-write lock is waited for as a writer, who gets it only once every hold is gone,
   * the killed one's too; a semaphore for one permit, which only shows that it still grants (the
   * killed holder's permit is among several; the leftover check sees whether its hold key expired).
   */
  private void probeLock(String lock) {
    TortureSettings s = cluster.settings;
    Duration wait = s.lease().plus(s.stuckBound()).plusSeconds(3);
    try (LockLease lease = switch (cluster.workload) {
      case EXCLUSIVE -> probe.lock(lock).acquire(wait);
      case READ_WRITE -> probe.readWriteLock(lock).writeLock().acquire(wait);
      case SEMAPHORE -> probe.semaphore(lock, Workload.PERMITS).acquire(wait);
    }) {
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
    Cluster.Worker atWork = worker(awaitLongHolder());
    cluster.lockRedis.pause();
    log.record(Event.FAULT_START, null, null, 0, fields("fault", step.fault().id, "target", "redis",
        "detail", step.length().toMillis() + " ms"));
    sleep(step.length());
    log.record(Event.FAULT_END, null, null, 0, fields("fault", step.fault().id, "target", "redis"));
    cluster.lockRedis.resume();
    return "pause-redis " + Step.seconds(step.length()) + (atWork == null ? "" : " during a long hold of " + atWork.name);
  }

  private String isolateHolder(Step step) {
    Cluster.Worker atWork = worker(awaitLongHolder());
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

  /** A hold at work: its lock as the lock servers had it when it qualified, and its worker. */
  private record AtWork(LockView view, Cluster.Worker worker) {}

  private static Cluster.Worker worker(AtWork atWork) {
    return atWork == null ? null : atWork.worker();
  }

  /**
   * Waits (up to {@link #LONG_HOLD_WAIT}) until some worker has held a lock for {@link
   * #LONG_HOLD_AGE}, longer than any short critical section, and returns it; null if none did.
   * A network fault or a Redis pause then hits a holder still at work, the case that matters;
   * one that hits between critical sections tests little. Read from the lock servers: the same
   * holder with the same fencing token for that long means the same hold.
   */
  private AtWork awaitLongHolder() {
    return awaitLongHolder(LONG_HOLD_WAIT, LONG_HOLD_AGE, Map.of(), v -> true);
  }

  /**
   * Like {@link #awaitLongHolder()}, waiting up to {@code wait} for a hold of at least {@code age}
   * whose token is none of {@code excluded} (lock to token: a hold granted after those were read)
   * and whose view passes {@code where}.
   */
  private AtWork awaitLongHolder(Duration wait, Duration age, Map<String, String> excluded,
      java.util.function.Predicate<LockView> where) {
    Map<String, LockView.Entry> seen = new java.util.HashMap<>();
    Map<String, Long> since = new java.util.HashMap<>();
    long deadline = System.nanoTime() + wait.toNanos();
    while (System.nanoTime() - deadline < 0) {
      for (LockView view : cluster.views()) {
        long now = System.nanoTime();
        String lock = view.lock();
        LockView.Entry held = view.holder();
        if (held == null || !held.equals(seen.get(lock))) {
          seen.put(lock, held);
          since.put(lock, now);
          continue;
        }
        Cluster.Worker w = cluster.holderOf(view);
        if (now - since.get(lock) >= age.toNanos() && w != null && !held.token().equals(excluded.get(lock))
            && where.test(view)) {
          return new AtWork(view, w);
        }
      }
      sleep(Duration.ofMillis(25));
    }
    return null;
  }

  /** The fencing token of each lock's holder now (absent if nobody holds it). */
  private Map<String, String> tokens() {
    Map<String, String> tokens = new java.util.HashMap<>();
    for (LockView view : cluster.views()) {
      if (view.holder() != null) {
        tokens.put(view.lock(), view.holder().token());
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
      atWork = worker(awaitLongHolder(step.length().minus(MIN_CUT), HOLE_HOLD_AGE, before, v -> true));
      cutNanos = System.nanoTime() - cut;
    } else {
      atWork = worker(awaitLongHolder());
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

  // ---- Cluster: a primary killed, a slot migrated ------------------------------------------------

  private String clusterStep(Step step) {
    try {
      return switch (step.fault()) {
        case KILL_PRIMARY -> killPrimary(step);
        case MIGRATE_SLOT -> migrateSlot(step);
        default -> throw new IllegalArgumentException("not a Cluster fault: " + step.fault());
      };
    } finally {
      cluster.clusterChanged();
    }
  }

  /** The lock a Cluster fault aims at: the long hold's, or one the step picks if no hold was at work. */
  private String lockOf(Step step, AtWork atWork) {
    List<String> locks = cluster.settings.locks();
    return atWork != null ? atWork.view().lock() : locks.get(step.pick() % locks.size());
  }

  /**
   * Kills (SIGKILL) the primary that has a long hold's lock, waits until its replica owns its
   * slots, restarts the killed node (with its identity kept, it rejoins as the new primary's
   * replica) and waits until the cluster is healthy, so that the next kill finds a replica to
   * promote. The fault window runs from the kill to the promotion, and its target lists the locks
   * whose slots the killed primary had: a kill explains overlaps on those locks only.
   */
  private String killPrimary(Step step) {
    RedisClusterGroup group = cluster.redisCluster;
    AtWork atWork = awaitLongHolder();
    String lock = lockOf(step, atWork);
    RedisServer old = group.primaryFor(Cluster.lockKey(lock));
    List<String> itsLocks = cluster.settings.locks().stream()
        .filter(l -> group.primaryFor(Cluster.lockKey(l)) == old).toList();
    group.killPrimary(old);
    long killed = log.record(Event.PRIMARY_KILLED, null, null, 0, fields("port", old.port())).monoNanos();
    log.record(killed, Event.FAULT_START, null, null, 0, fields("fault", step.fault().id,
        "target", String.join(",", itsLocks), "detail", "primary :" + old.port() + " killed"));
    RedisServer promoted = group.awaitPromotion(old, FAILOVER_DEADLINE);
    long at = log.record(Event.PROMOTED, null, null, 0, fields("port", promoted.port(),
        "ms", (System.nanoTime() - killed) / 1_000_000)).monoNanos();
    log.record(at, Event.FAULT_END, null, null, 0, fields("fault", step.fault().id,
        "target", String.join(",", itsLocks)));
    long rejoin = System.nanoTime();
    old.restart();
    group.awaitHealthy(RESYNC_DEADLINE);
    long healthy = System.nanoTime();
    log.record(Event.REJOINED, null, null, 0, fields("port", old.port(), "ms", (healthy - rejoin) / 1_000_000));
    return step.fault().id + ": killed primary :" + old.port() + " (locks " + itsLocks + ")" + duringHoldOf(atWork)
        + ", replica :" + promoted.port() + " took over after " + Step.seconds(Duration.ofNanos(at - killed))
        + ", :" + old.port() + " rejoined as its replica after " + Step.seconds(Duration.ofNanos(healthy - rejoin));
  }

  /**
   * Moves the slot of a long hold's lock to another primary (chosen by the step) while the workers
   * use it: holder, waiters, fence and queue move with it, and nothing may be lost, so the window
   * explains no overlap.
   */
  private String migrateSlot(Step step) {
    RedisClusterGroup group = cluster.redisCluster;
    AtWork atWork = awaitLongHolder();
    String lock = lockOf(step, atWork);
    int slot = RedisClusterGroup.slotOf(Cluster.lockKey(lock));
    RedisServer from = group.primaryForSlot(slot);
    List<RedisServer> others = group.primaries().stream().filter(p -> p != from).toList();
    RedisServer to = others.get(step.pick() % others.size());
    long began = log.record(Event.FAULT_START, null, null, 0, fields("fault", step.fault().id, "target", lock,
        "detail", "slot " + slot + " :" + from.port() + " -> :" + to.port())).monoNanos();
    group.migrateSlot(slot, to);
    long end = log.record(Event.FAULT_END, null, null, 0, fields("fault", step.fault().id, "target", lock)).monoNanos();
    return step.fault().id + " " + slot + " (" + lock + ") :" + from.port() + " -> :" + to.port() + " in "
        + Step.seconds(Duration.ofNanos(end - began)) + duringHoldOf(atWork);
  }

  // ---- Redlock: faults on one master of three ---------------------------------------------------

  private String redlock(Step step) {
    return switch (step.fault()) {
      case PARTITION_MASTER -> partitionMaster(step);
      case PAUSE_MASTER -> pauseMaster(step);
      case RESTART_MASTER, RESTART_MASTER_NODELAY -> restartMaster(step);
      case CLOCK_STEP_MASTER -> clockStepMaster(step);
      default -> throw new IllegalArgumentException("not a Redlock fault: " + step.fault());
    };
  }

  /**
   * The master a fault on one master hits: one of those the hold at work is on (chosen by the
   * step), so that the fault takes away part of a live majority; any master if no hold was at work.
   */
  private int pickMaster(Step step, AtWork atWork) {
    if (atWork == null) {
      return step.pick() % cluster.masters.size();
    }
    List<Integer> on = atWork.view().nodesWith(atWork.view().holder());
    return on.get(step.pick() % on.size());
  }

  private String partitionMaster(Step step) {
    AtWork atWork = awaitLongHolder();
    int m = pickMaster(step, atWork);
    String target = cluster.nodeName(m);
    cluster.partitionMaster(m);
    log.record(Event.FAULT_START, null, null, 0, fields("fault", step.fault().id, "target", target,
        "detail", step.length().toMillis() + " ms"));
    sleep(step.length());
    log.record(Event.FAULT_END, null, null, 0, fields("fault", step.fault().id, "target", target));
    cluster.healMaster(m);
    return step.fault().id + " " + target + " " + Step.seconds(step.length()) + duringHoldOf(atWork);
  }

  private String pauseMaster(Step step) {
    AtWork atWork = awaitLongHolder();
    int m = pickMaster(step, atWork);
    String target = cluster.nodeName(m);
    RedisServer master = cluster.masters.master(m);
    master.pause();
    log.record(Event.FAULT_START, null, null, 0, fields("fault", step.fault().id, "target", target,
        "detail", step.length().toMillis() + " ms"));
    sleep(step.length());
    log.record(Event.FAULT_END, null, null, 0, fields("fault", step.fault().id, "target", target));
    master.resume();
    return step.fault().id + " " + target + " " + Step.seconds(step.length()) + duringHoldOf(atWork);
  }

  /**
   * restart-master and its control. A hold on all three masters survives the loss of one, so the
   * step first makes a hold that is on exactly two: it cuts master z off from every worker, waits
   * (at least {@link #MIN_MASTER_CUT}, at most the step's length) until a hold granted since, by
   * the other two alone, has been at work for {@link #LONG_HOLD_AGE}, heals z, and restarts x, one
   * of the other two, without its data. Just before the restart it reads every lock on every
   * master: an entry of x that fewer than a majority of the others share is a hold the restart
   * erases, recorded as {@link Event#ERASED} once x is back (never before the loss). The fault
   * window runs from the cut to the restart's end. In the control, the workers' connections to x
   * stay cut during the restart, and x is marked usable at once with relock's own marking script
   * (delay 0, fence floor from the others) before any worker reaches it again.
   */
  private String restartMaster(Step step) {
    boolean control = step.fault() == Fault.RESTART_MASTER_NODELAY;
    String id = step.fault().id;
    OnTwo on = holdOnTwo(step);
    int x = on.x();
    String target = cluster.nodeName(x);
    AtWork atWork = on.atWork();
    List<LockView> views = cluster.views();
    RedisServer victim = cluster.masters.master(x);
    if (control) {
      cluster.cutMaster(x);
    }
    try {
      victim.restartWithoutData();
      if (control) {
        markAtOnce(x);
      }
    } finally {
      if (control) {
        cluster.restoreMaster(x);
      }
    }
    List<String> erased = recordErasures(views, x, id, target, System.nanoTime());
    log.record(Event.FAULT_END, null, null, 0, fields("fault", id, "target", target));
    return id + ": " + on.describe() + ", then " + target + " restarted without its data"
        + (control ? " and marked usable at once" : "") + ", erasing " + (erased.isEmpty() ? "no hold" : String.join(", ", erased));
  }

  /**
   * Masters {@code z} (cut off) and {@code x}, and the hold at work on {@code x} and not {@code
   * z} (null if none came), with how long {@code z} was cut off.
   */
  private record OnTwo(int z, int x, AtWork atWork, long cutNanos, String zName) {
    String describe() {
      return zName + " cut off " + Step.seconds(Duration.ofNanos(cutNanos)) + duringHoldOf(atWork);
    }
  }

  /**
   * The first half of restart-master and clock-step-master. A hold on all three masters survives
   * the loss of one, so this makes a hold that is on exactly two: it cuts master z off from every
   * worker, waits (at least {@link #MIN_MASTER_CUT}, at most the step's length) until a hold
   * granted since, by the other two alone, has been at work for {@link #LONG_HOLD_AGE}, and heals
   * z. The fault window starts at the cut, with x, one of the other two, as its target.
   */
  private OnTwo holdOnTwo(Step step) {
    int n = cluster.masters.size();
    int z = step.pick() % n;
    int x = (z + 1 + (step.pick() / n) % (n - 1)) % n;
    Map<String, String> before = tokens();
    cluster.partitionMaster(z);
    long cut = log.record(Event.FAULT_START, null, null, 0, fields("fault", step.fault().id, "target",
        cluster.nodeName(x), "detail", cluster.nodeName(z) + " cut off first")).monoNanos();
    AtWork atWork;
    try {
      sleep(MIN_MASTER_CUT);
      atWork = awaitLongHolder(step.length().minus(MIN_MASTER_CUT), LONG_HOLD_AGE, before, v -> {
        List<Integer> on = v.nodesWith(v.holder());
        return on.contains(x) && !on.contains(z);
      });
    } finally {
      cluster.healMaster(z);
    }
    return new OnTwo(z, x, atWork, System.nanoTime() - cut, cluster.nodeName(z));
  }

  /**
   * clock-step-master: a hold on exactly two masters ({@link #holdOnTwo}), then the wall clock of
   * x, one of them, steps forward by twice the lease, so that every key x has expires at once. Just
   * before, it reads every lock on every master: an entry of x that fewer than a majority of the
   * others share is a hold the step erases, recorded as {@link Event#ERASED} once x's clock has
   * moved. The fault window runs from the cut to the step. The clock stays ahead afterwards, as
   * after a real step: later keys on x expire on its new time, which no longer matters.
   */
  private String clockStepMaster(Step step) {
    OnTwo on = holdOnTwo(step);
    String target = cluster.nodeName(on.x());
    List<LockView> views = cluster.views();
    Duration by = cluster.settings.lease().multipliedBy(2);
    Duration offset = cluster.stepClock(on.x(), by);
    sleep(CLOCK_STEP_SEEN);
    List<String> erased = recordErasures(views, on.x(), step.fault().id, target, System.nanoTime());
    log.record(Event.FAULT_END, null, null, 0, fields("fault", step.fault().id, "target", target));
    return step.fault().id + ": " + on.describe() + ", then the clock of " + target + " stepped " + by.toMillis()
        + " ms ahead (" + offset.toMillis() + " ms in all), erasing " + (erased.isEmpty() ? "no hold"
        : String.join(", ", erased));
  }

  /**
   * Records as {@link Event#ERASED} at {@code at} (once master {@code x} has lost its copies) each
   * hold that {@code before}, read just before the fault, shows on {@code x} and on fewer than a
   * majority of the others, and that the masters, read again now, do not hold for its owner on a
   * majority: a third master that had granted the hold but not yet taken its token when {@code
   * before} was read (the client reconnecting to it) keeps the hold on a majority, and there is
   * no erasure. Returns the holds, for the nemesis's account.
   */
  private List<String> recordErasures(List<LockView> before, int x, String fault, String target, long at) {
    Map<String, LockView> after = new java.util.HashMap<>();
    for (LockView v : cluster.views()) {
      after.put(v.lock(), v);
    }
    List<String> erased = new ArrayList<>();
    for (LockView view : before) {
      LockView.Entry e = view.erasedByLosing(x);
      LockView now = after.get(view.lock());
      if (e != null && now.nodesHeldBy(e.owner()) < now.majority()) {
        log.record(at, Event.ERASED, view.lock(), null, Long.parseLong(e.token()), fields("fault", fault,
            "master", target, "owner", e.owner()));
        erased.add(view.lock() + " (token " + e.token() + ")");
      }
    }
    return erased;
  }

  /**
   * What relock does on finding that master {@code x} lost its data, with a delay of 0: its fence
   * starts above the highest fence of the other masters, and it takes part at once.
   */
  private void markAtOnce(int x) {
    long floor = 0;
    for (int i = 0; i < cluster.masters.size(); i++) {
      if (i != x && cluster.masters.master(i).execute("GET", FENCE_KEY) instanceof String f) {
        floor = Math.max(floor, Long.parseLong(f));
      }
    }
    cluster.masters.master(x).execute("EVAL", MARK_SCRIPT, "2", MARKER_KEY, FENCE_KEY, "recover", Long.toString(floor),
        "0");
  }

  private static String duringHoldOf(AtWork atWork) {
    return atWork == null ? "" : " during a long hold of " + atWork.worker().name + " on " + atWork.view().lock();
  }

  /** A worker that holds a lock now (chosen by the step), or any live worker if none does. */
  private Cluster.Worker pickHolder(Step step) {
    List<Cluster.Worker> holders = cluster.holders().values().stream().distinct().toList();
    List<Cluster.Worker> candidates = holders.isEmpty() ? cluster.alive() : holders;
    return candidates.get(step.pick() % candidates.size());
  }

  private static String relockScript(String name) {
    try (java.io.InputStream in = io.relock.Relock.class.getResourceAsStream("/io/relock/scripts/" + name)) {
      if (in == null) {
        throw new IllegalStateException("relock-core has no script " + name);
      }
      return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("cannot read relock's " + name, e);
    }
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

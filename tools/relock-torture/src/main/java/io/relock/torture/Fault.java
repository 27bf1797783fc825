package io.relock.torture;

import java.util.Arrays;
import java.util.List;

/** The faults the nemesis injects. Each run injects one of them, or a mix ({@link #COMBINED} runs). */
enum Fault {
  NONE("none", "no fault: the baseline, where no two holders may ever overlap"),
  ABANDON_HOLDER("abandon-holder", "now and then a holder walks away from its fixed lease without releasing,"
      + " as a crashed process would (a cheap, frequent kind of kill-holder; the workers do it themselves)"),
  PAUSE_HOLDER("pause-holder", "SIGSTOP a worker that holds a lock for longer than the lease, then SIGCONT"),
  KILL_HOLDER("kill-holder", "SIGKILL a worker that holds a lock; a new worker takes its place"),
  RESTART_REDIS("restart-redis", "restart the lock Redis without persistence: every lock, fence and queue is gone"),
  PAUSE_REDIS("pause-redis", "SIGSTOP the lock Redis for about a lease, then SIGCONT"),
  CUT_HOLDER("cut-holder", "reset a lock holder's connections to Redis and refuse new ones for a while"),
  BLACKHOLE_HOLDER("blackhole-holder", "silently drop a lock holder's traffic to and from Redis for a while;"
      + " the partition ends by resetting its connections, as one long enough to kill them would"),
  /**
   * Not in the default suite: the testkit's blackhole lifted as is. Bytes dropped from a live TCP
   * stream leave a Lettuce connection answering each command with an earlier command's reply for
   * good, which no real network does (TCP retransmits or the connection dies). Kept to reproduce
   * what relock does with such a connection.
   */
  BLACKHOLE_RESUME("blackhole-resume", "like blackhole-holder, but the connections resume without a reset"
      + " (their byte streams are then out of step; not in the default suite)"),
  DELAY("delay", "add latency to one worker's (or every worker's) traffic to Redis for a while"),
  COMBINED("combined", "the nemesis faults above (all but abandon-holder), drawn at random, some steps with latency on every worker as well"),
  /** Sentinel topology only. */
  FAILOVER("failover", "Sentinel topology: SIGKILL the primary (during a long hold), wait for the sentinels to promote"
      + " the replica, bring the killed node back as a replica and wait until it is in sync; again and again"),
  /** Sentinel topology only: the "Sentinel hole". */
  FAILOVER_HOLE("failover-hole", "Sentinel topology: like failover, but replication is cut for up to 2.5 s"
      + " before the primary is killed (until a hold granted since is at work), so the acquisitions of that"
      + " time never reach the replica that is promoted (the Sentinel hole); replication is restored after"
      + " the failover"),
  /** Cluster topology only. */
  KILL_PRIMARY("kill-primary", "Cluster topology: SIGKILL the primary that holds a long hold's lock, wait for"
      + " its replica to take over its slots, restart the killed node (it rejoins as the new primary's"
      + " replica) and wait until the cluster is healthy; again and again"),
  /** Cluster topology only: a migration must lose nothing, so it explains no overlap. */
  MIGRATE_SLOT("migrate-slot", "Cluster topology: move the slot of a long hold's lock, with its keys (the"
      + " hold, the queue, the fence), to another primary while the workers keep using it, the way"
      + " redis-cli --cluster reshard does (IMPORTING/MIGRATING, MIGRATE, SETSLOT NODE)"),
  /** Redlock topology only. */
  PARTITION_MASTER("partition-master", "Redlock topology: during a long hold, silently drop every worker's traffic"
      + " to and from one of the masters that hold it (blackhole its proxies) for 1 to 3 s, then heal the"
      + " partition by resetting those connections"),
  /** Redlock topology only. */
  PAUSE_MASTER("pause-master", "Redlock topology: during a long hold, SIGSTOP one of the masters that hold it"
      + " for 0.5 to 3 s, well past the per-node timeout (a quarter of the command timeout, 250 ms), then SIGCONT"),
  /** Redlock topology only. */
  RESTART_MASTER("restart-master", "Redlock topology: cut one master off until a hold granted by the other two"
      + " alone has been at work for a moment (up to 3 s), heal it, then restart one of those two without its"
      + " data, which erases that hold (its lock is left on one master of three); relock's delayed restart"
      + " keeps the restarted master out of every majority for 3 s after a client notices, so nobody may be"
      + " granted the lock before its erased holder is told"),
  /**
   * Redlock topology only: the clock of one master of a hold's two jumps ahead, as an NTP step or
   * an operator's date command would, and its keys expire early there. relock cannot notice that
   * (the master keeps its data and marker), so overlaps are expected: the run shows what fencing
   * does about them.
   */
  CLOCK_STEP_MASTER("clock-step-master", "Redlock topology: cut one master off until a hold granted by the other"
      + " two alone has been at work for a moment (up to 3 s), heal it, then step the wall clock of one of those"
      + " two forward by twice the lease (a preload library built for the run fakes that server's gettimeofday),"
      + " so its copy of the hold expires at once; nothing tells relock, and the next holder can be granted the"
      + " lock before the erased holder's renewal finds out"),
  /**
   * Redlock topology only: the control of {@link #RESTART_MASTER}. What relock does when it finds a
   * master that lost its data, with a delay of 0 (the nemesis runs relock's own marking script
   * before any client can reach the restarted master), as a Redlock without a delayed restart
   * would behave. Its overlaps are the point of the run, not a failure.
   */
  RESTART_MASTER_NODELAY("restart-master-nodelay", "Redlock topology, control: like restart-master, but the"
      + " restarted master takes part again at once (the nemesis marks it as relock would, fence floor"
      + " included, with a delay of 0, before any worker reaches it), as a Redlock without the delayed"
      + " restart would: the next holder can be granted the lock while the erased holder still believes"
      + " it holds it. Its overlaps show what the delay prevents and are expected");

  /** The faults a combined run draws from. */
  static final List<Fault> SINGLE = List.of(PAUSE_HOLDER, KILL_HOLDER, RESTART_REDIS, PAUSE_REDIS, CUT_HOLDER,
      BLACKHOLE_HOLDER, DELAY);

  final String id;
  final String description;

  Fault(String id, String description) {
    this.id = id;
    this.description = description;
  }

  static Fault byId(String id) {
    return Arrays.stream(values()).filter(f -> f.id.equals(id)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("unknown run '" + id + "'; known: "
            + Arrays.stream(values()).map(f -> f.id).toList()));
  }

  /** The faults of the Sentinel topology's runs (the others need the single-server topology). */
  static final List<Fault> SENTINEL = List.of(FAILOVER, FAILOVER_HOLE);

  /** The faults of the Cluster topology's runs. */
  static final List<Fault> CLUSTER = List.of(KILL_PRIMARY, MIGRATE_SLOT);

  /** The faults of the Redlock topology's runs, the control last. */
  static final List<Fault> REDLOCK = List.of(PARTITION_MASTER, PAUSE_MASTER, RESTART_MASTER, CLOCK_STEP_MASTER,
      RESTART_MASTER_NODELAY);

  boolean isRedlock() {
    return REDLOCK.contains(this);
  }

  boolean isCluster() {
    return CLUSTER.contains(this);
  }

  boolean isFailover() {
    return this == FAILOVER || this == FAILOVER_HOLE;
  }

  /** Whether the fault hits one worker process (chosen among the current lock holders). */
  boolean targetsHolder() {
    return this == PAUSE_HOLDER || this == KILL_HOLDER || this == CUT_HOLDER || this == BLACKHOLE_HOLDER
        || this == BLACKHOLE_RESUME;
  }
}

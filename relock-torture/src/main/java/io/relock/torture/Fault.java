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
      + " the failover");

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

  boolean isFailover() {
    return this == FAILOVER || this == FAILOVER_HOLE;
  }

  /** Whether the fault hits one worker process (chosen among the current lock holders). */
  boolean targetsHolder() {
    return this == PAUSE_HOLDER || this == KILL_HOLDER || this == CUT_HOLDER || this == BLACKHOLE_HOLDER
        || this == BLACKHOLE_RESUME;
  }
}

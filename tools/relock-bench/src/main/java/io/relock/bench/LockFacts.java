package io.relock.bench;

import java.time.Duration;

/**
 * What each implementation gives besides speed, as its documentation and code say (the holder-killed
 * scenario measures the part about a holder's death): a token to fence stale holders with, or an
 * order; what frees the lock of a holder that died; how a waiter learns the lock is free; and
 * whether a grant is on disk before the caller hears of it.
 *
 * @param fencing a token that grows with every grant, usable to refuse a stale holder's writes
 * @param onDeath what frees the lock when its holder dies or hangs
 * @param waiting how a waiter learns that the lock is free, and in which order waiters get it
 * @param durable whether the server has the grant on disk before it answers, and what a restart does to it
 * @param sessionBound whether a dead holder's lock goes with its connection, with no timeout to wait for
 */
record LockFacts(String fencing, String onDeath, String waiting, String durable, boolean sessionBound) {

  static LockFacts of(Implementation impl) {
    return switch (impl) {
      case RELOCK, RELOCK_ACKS -> new LockFacts("fencing token with every grant, growing across Redis restarts",
          "lease runs out (30 s by default; the watchdog renews it while the holder lives)",
          "pub/sub message when freed, then first come first served (queue)",
          "no: Redis memory (with replicaAcks, on a replica too before it is granted)", false);
      case REDISSON, REDISSON_REDLOCK -> new LockFacts("none (RLock; Redisson's RFencedLock has one)",
          "lease runs out (lockWatchdogTimeout, 30 s; the watchdog renews it)",
          "pub/sub message when unlocked; an expiry wakes waiters at their timer; not fair",
          "no: Redis memory", false);
      case SPRING_SPIN, SPRING_PUBSUB -> new LockFacts("none", "expiry (expireAfter, 60 s by default; no renewal)",
          impl == Implementation.SPRING_SPIN ? "polls every 100 ms" : "pub/sub message when unlocked",
          "no: Redis memory", false);
      case RECIPE -> new LockFacts("none", "expiry (PX)", "polls every 10 ms; whoever retries first wins",
          "no: Redis memory", false);
      case LIMIT -> new LockFacts("-", "-", "cannot wait", "-", false);
      case ZOOKEEPER -> new LockFacts("the lock node's sequence number and zxid, both growing",
          "session expires (session timeout after the server last heard from the client; a clean close at once)",
          "watch on the node just before its own: woken once, in order (fair)",
          "yes: transaction log forced to disk (and a quorum in an ensemble)", false);
      case ETCD -> new LockFacts("the lock key's revision, growing across the cluster",
          "lease expires (time to live after the last keep-alive)",
          "the server waits on a watch of earlier keys: in order (fair)",
          "yes: Raft log forced to disk (and a quorum in a cluster)", false);
      case POSTGRES_ADVISORY -> new LockFacts("none",
          "the session ends (at once when the holder's process dies; a hung but connected holder keeps it)",
          "waits in the server's lock queue", "no: server memory; a restart frees every lock, ending its session", true);
      case POSTGRES_FOR_UPDATE -> new LockFacts("none",
          "the transaction ends with its session (at once when the holder's process dies; a hung holder keeps it,"
              + " and an open transaction)",
          "waits in the row's lock queue",
          "no: the row's lock is logged but flushed only at commit; a crash rolls the holder's transaction back", true);
      case POSTGRES_OPTIMISTIC -> new LockFacts("the version column, growing with every grant",
          "expires_at passes (the recipe's lease; without one, never)",
          "polls every 10 ms; retries at once when another client won the compare-and-set",
          "yes: each grant is a committed UPDATE, kept across a restart until it expires", false);
    };
  }

  /** How long {@code impl} waited, in the holder-killed scenario, before it gave up on a silent holder. */
  String deathTimeoutText(Duration timeout) {
    return sessionBound ? "none: the session's end" : timeout.toSeconds() + " s";
  }
}

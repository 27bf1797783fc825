package io.relock.internal;

import io.relock.spi.RedisDriver;
import java.util.List;

/**
 * A driver that holds each lock on a majority of several independent masters, asking all of them
 * on every call and counting their answers (relock's Redlock: {@link RedlockDriver}). The engine
 * asks a driver for this capability, not for its class. What it changes there: each lock is a
 * quorum of its own, so a multi-lock takes its locks one by one (no script sees two locks); only
 * exclusive locks are offered (a semaphore's holders or a read-write lock's readers would need a
 * quorum protocol of their own); and a read that must see what each master holds (inspection,
 * see {@link LockInspector}) asks the {@link #nodes} one by one and counts a {@link #majority}.
 */
interface QuorumDriver extends RedisDriver {

  /** One master: its URI (passwords hidden) for messages, its driver, and a runner bounded by the node timeout. */
  record Node(String name, RedisDriver driver, ScriptRunner scripts) {}

  /** The masters, for reads that must see each one's answer. */
  List<Node> nodes();

  /** How many masters make a majority. */
  int majority();

  /** Each master's fence key (see redlock_acquire.lua). */
  String fenceKey();
}

package io.relock.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * What one kind of lock does differently: its scripts, the key each hold is renewed under, and
 * whether a client queues its own waiters locally. Everything else is the engine's and the same for
 * every kind: the acquisition and release state machines, waiting and hand-over, the watchdog, loss
 * detection and fencing tokens. A kind's acquire and release scripts take acquire.lua's and
 * release.lua's arguments (plus their own at the end) and answer with the same replies, so {@link
 * Acquisition} and {@link Release} drive them all.
 *
 * <p>To add a kind: write its acquire and release scripts on the shared includes (lockvalue.lua,
 * fence.lua, queue.lua, and holders.lua if several owners may hold it at once), give it a subclass
 * here, and a thin public shell in the API package.
 */
abstract class LockKind {

  /** One owner at a time; the lock key holds the hold itself. */
  static final LockKind EXCLUSIVE = new Exclusive();
  /** A read-write lock's readers. */
  static final LockKind READ = new ReadWrite('r');
  /** A read-write lock's writer. */
  static final LockKind WRITE = new ReadWrite('w');

  static LockKind semaphore(int permits) {
    return new Semaphore(permits);
  }

  /** The key of a client's local state of the lock, and of its grant notifications. */
  abstract String stateKey(LockKeys keys);

  /** The key the hold of {@code owner} lives under, which the watchdog renews. */
  abstract String holdKey(LockKeys keys, String owner);

  abstract LuaScript acquireScript();

  /** What a {@link io.relock.LockObserver} is told this kind is. */
  abstract io.relock.LockObserver.Kind observedKind();

  abstract LuaScript releaseScript();

  /**
   * Whether a client's waiters queue locally, only the first of them waiting for the lock: in
   * Redis, or while the client holds the lock, following that hold, whose release hands it the lock
   * in the same call (see Acquisition#follow). Only where one owner holds the lock at a time: a
   * semaphore or readers grant several waiters at once (a semaphore whose waiters queued in the
   * client made about 40% fewer acquisitions per second on the lock family bench: when permits
   * free up, one waiter per client in Redis is too few to take them).
   */
  abstract boolean queuesLocally();

  /**
   * Whether a release may pass what it frees straight to a waiter of the same client, which its
   * reply then completes (no notification, no claim time to confirm): an exclusive lock's next
   * waiter, or one of a semaphore's. Not a read-write lock's lanes, where a release may free the
   * lock for several readers or for a writer of the other lane.
   */
  boolean passesWithin() {
    return queuesLocally();
  }

  /** Whether a thread holding this kind may take it again (the {@code lock()} style). */
  boolean reentrant() {
    return true;
  }

  /**
   * The acquire script's arguments.
   *
   * @param companion for a reader, the owner id of the same thread's write hold, or null
   */
  List<String> acquireArgs(String owner, long leaseMillis, AcquireMode mode, String retentionMillis, long entryMillis,
      long claimMillis, boolean acked, String channel, String companion) {
    return ScriptCalls.acquire(owner, leaseMillis, mode.wire(), retentionMillis, entryMillis, claimMillis, acked,
        channel);
  }

  /**
   * The release script's arguments.
   *
   * @param careful whether the release may well find another owner's hold (see {@link
   *     ScriptCalls#release}); only an exclusive lock's release tells
   * @param follower for a successor that follows the hold (named "=<owner>"), what its queue
   *     entry needs (see {@link ScriptCalls#release}); else null
   */
  List<String> releaseArgs(String owner, boolean all, boolean careful, String retentionMillis, String successor,
      boolean ahead, String follower) {
    return ScriptCalls.release(owner, all, careful, retentionMillis, successor, ahead, follower);
  }

  /** The kind whose local state has key {@code stateKey} (as a grant notification names it). */
  static LockKind ofStateKey(String stateKey) {
    String suffix = stateKey.substring(lockKeyOf(stateKey).length());
    if (suffix.equals(ReadWrite.SUFFIX + 'r')) {
      return READ;
    }
    if (suffix.equals(ReadWrite.SUFFIX + 'w')) {
      return WRITE;
    }
    if (suffix.startsWith(Semaphore.SUFFIX)) {
      try {
        return new Semaphore(Integer.parseInt(suffix.substring(Semaphore.SUFFIX.length())));
      } catch (NumberFormatException e) {
        return new Semaphore(0);
      }
    }
    return EXCLUSIVE;
  }

  /** The lock key of the local state {@code stateKey} names. */
  static String lockKeyOf(String stateKey) {
    int hash = stateKey.lastIndexOf('#');
    return hash > stateKey.lastIndexOf('}') ? stateKey.substring(0, hash) : stateKey;
  }

  private static List<String> plus(List<String> args, String... more) {
    List<String> all = new ArrayList<>(args.size() + more.length);
    all.addAll(args);
    all.addAll(List.of(more));
    return all;
  }

  private static final class Exclusive extends LockKind {
    @Override
    io.relock.LockObserver.Kind observedKind() {
      return io.relock.LockObserver.Kind.LOCK;
    }

    @Override
    String stateKey(LockKeys keys) {
      return keys.lock();
    }

    @Override
    String holdKey(LockKeys keys, String owner) {
      return keys.lock();
    }

    @Override
    LuaScript acquireScript() {
      return Scripts.ACQUIRE;
    }

    @Override
    LuaScript releaseScript() {
      return Scripts.RELEASE;
    }

    @Override
    boolean queuesLocally() {
      return true;
    }

    @Override
    public String toString() {
      return "exclusive lock";
    }
  }

  /** Shared holds: each owner's hold is a key of its own (see holders.lua). */
  private abstract static class Shared extends LockKind {
    @Override
    String holdKey(LockKeys keys, String owner) {
      return keys.lock() + ":h:" + owner;
    }

    /** A shared hold is a key of its owner's: its release never takes another owner's. */
    @Override
    List<String> releaseArgs(String owner, boolean all, boolean careful, String retentionMillis, String successor,
        boolean ahead, String follower) {
      return super.releaseArgs(owner, all, false, retentionMillis, successor, ahead, follower);
    }

    @Override
    boolean queuesLocally() {
      return false;
    }
  }

  private static final class Semaphore extends Shared {
    @Override
    io.relock.LockObserver.Kind observedKind() {
      return io.relock.LockObserver.Kind.SEMAPHORE;
    }

    static final String SUFFIX = "#s";
    private final int permits;

    Semaphore(int permits) {
      this.permits = permits;
    }

    /** With the permits: two semaphores a client declares with other counts are two states. */
    @Override
    String stateKey(LockKeys keys) {
      return keys.lock() + SUFFIX + permits;
    }

    @Override
    LuaScript acquireScript() {
      return Scripts.SEMAPHORE_ACQUIRE;
    }

    @Override
    LuaScript releaseScript() {
      return Scripts.SEMAPHORE_RELEASE;
    }

    @Override
    boolean reentrant() {
      return false;
    }

    @Override
    boolean passesWithin() {
      return true;
    }

    @Override
    List<String> acquireArgs(String owner, long leaseMillis, AcquireMode mode, String retentionMillis,
        long entryMillis, long claimMillis, boolean acked, String channel, String companion) {
      // A withdrawal does not check the declared permits: an orphan's kind is known, not its count.
      boolean withdrawal = mode == AcquireMode.GIVEUP || mode == AcquireMode.ABANDON;
      return plus(super.acquireArgs(owner, leaseMillis, mode, retentionMillis, entryMillis, claimMillis, acked, channel,
          companion), withdrawal ? "0" : Integer.toString(permits));
    }

    @Override
    public String toString() {
      return "semaphore of " + permits + " permits";
    }
  }

  private static final class ReadWrite extends Shared {
    @Override
    io.relock.LockObserver.Kind observedKind() {
      return lane == 'w' ? io.relock.LockObserver.Kind.WRITE : io.relock.LockObserver.Kind.READ;
    }

    static final String SUFFIX = "#";
    private final char lane;

    ReadWrite(char lane) {
      this.lane = lane;
    }

    @Override
    String stateKey(LockKeys keys) {
      return keys.lock() + SUFFIX + lane;
    }

    @Override
    LuaScript acquireScript() {
      return Scripts.READWRITE_ACQUIRE;
    }

    @Override
    LuaScript releaseScript() {
      return Scripts.READWRITE_RELEASE;
    }

    @Override
    List<String> acquireArgs(String owner, long leaseMillis, AcquireMode mode, String retentionMillis,
        long entryMillis, long claimMillis, boolean acked, String channel, String companion) {
      return plus(super.acquireArgs(owner, leaseMillis, mode, retentionMillis, entryMillis, claimMillis, acked, channel,
          companion), String.valueOf(lane), companion == null ? "" : companion);
    }

    @Override
    List<String> releaseArgs(String owner, boolean all, boolean careful, String retentionMillis, String successor,
        boolean ahead, String follower) {
      return plus(super.releaseArgs(owner, all, false, retentionMillis, null, false, null), String.valueOf(lane));
    }

    @Override
    public String toString() {
      return lane == 'r' ? "read lock" : "write lock";
    }
  }
}

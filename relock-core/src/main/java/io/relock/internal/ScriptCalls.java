package io.relock.internal;

import java.util.List;

/**
 * The keys and arguments of {@code acquire.lua} and {@code release.lua}, written here once: the
 * engine builds them, the Redlock driver reads them back, and the bench's Redis-bound limit sends
 * them itself. Each argument costs Redis time on every call, so what only a queueing call reads
 * travels packed in one argument; see the scripts' headers for the layout.
 */
public final class ScriptCalls {
  private ScriptCalls() {}

  /** The one key every lock script is given: the lock; the scripts name its other keys after it. */
  public static List<String> keys(LockKeys keys) {
    return List.of(keys.lock());
  }

  /**
   * {@code acquire.lua}'s arguments.
   *
   * @param channel the client's channel, or {@link LockEngine#SHARDED_CHANNEL}
   */
  public static List<String> acquire(String owner, long leaseMillis, String mode, String retentionMillis,
      long entryMillis, long claimMillis, boolean acked, String channel) {
    return List.of(owner, Long.toString(leaseMillis), mode, retentionMillis,
        entryMillis + " " + claimMillis + " " + (acked ? '1' : '0') + " " + channel);
  }

  /** {@code acquire.lua}'s arguments, read back. */
  record Acquire(String owner, long leaseMillis, String mode, long entryMillis, String channel) {
    static Acquire of(List<String> args) {
      String[] queue = args.get(4).split(" ", 4);
      return new Acquire(args.get(0), Long.parseLong(args.get(1)), args.get(2), Long.parseLong(queue[0]), queue[3]);
    }
  }

  /**
   * {@code release.lua}'s arguments.
   *
   * @param successor a queued owner of this client to pass the lock to, or null
   */
  public static List<String> release(String owner, boolean all, String retentionMillis, String successor,
      boolean ahead) {
    return List.of(owner, all ? "1" : "0", retentionMillis, successor == null ? "" : successor + (ahead ? " 1" : " 0"));
  }

  /** {@code release.lua}'s arguments, read back: the owner and whether every hold goes. */
  record Release(String owner, boolean all) {
    static Release of(List<String> args) {
      return new Release(args.get(0), "1".equals(args.get(1)));
    }
  }
}

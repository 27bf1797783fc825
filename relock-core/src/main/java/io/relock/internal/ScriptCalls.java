package io.relock.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * The keys and arguments of {@code acquire.lua}, {@code release.lua} and {@code renew.lua}, written
 * here once: the engine builds them, the Redlock driver reads them back, and the bench's Redis-bound
 * limit sends them itself. Each argument costs Redis time on every call, so what only a queueing call reads
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
   * @param channel the client's channel, or {@link LockCalls#SHARDED_CHANNEL}
   */
  public static List<String> acquire(String owner, long leaseMillis, String mode, String retentionMillis,
      long entryMillis, long claimMillis, boolean acked, String channel) {
    return List.of(owner, Long.toString(leaseMillis), mode, retentionMillis,
        entryMillis + " " + claimMillis + " " + (acked ? '1' : '0') + " " + channel);
  }

  /** {@code acquire.lua}'s arguments, read back. */
  record Acquire(String owner, long leaseMillis, AcquireMode mode, long entryMillis, String channel) {
    static Acquire of(List<String> args) {
      String[] queue = args.get(4).split(" ", 4);
      return new Acquire(args.get(0), Long.parseLong(args.get(1)), AcquireMode.ofWire(args.get(2)),
          Long.parseLong(queue[0]), queue[3]);
    }
  }

  /**
   * {@code release.lua}'s arguments.
   *
   * @param careful for a release of every hold that may well find another owner's hold: read
   *     first rather than taken (see release.lua's '2')
   * @param successor a queued owner of this client to pass the lock to, or null
   */
  public static List<String> release(String owner, boolean all, boolean careful, String retentionMillis,
      String successor, boolean ahead) {
    return release(owner, all, careful, retentionMillis, successor, ahead, null);
  }

  /**
   * {@code release.lua}'s arguments, where the successor may be a follower: "=<owner>", with {@code
   * follower} its queue entry " <entry ttl ms> <lease ms> <claim ms> <channel>" (see release.lua's
   * ARGV[4]); null for a queued successor.
   */
  static List<String> release(String owner, boolean all, boolean careful, String retentionMillis,
      String successor, boolean ahead, String follower) {
    return List.of(owner, !all ? "0" : careful ? "2" : "1", retentionMillis,
        successor == null ? "" : successor + (ahead ? " 1" : " 0") + (follower == null ? "" : follower));
  }

  /** {@code release.lua}'s arguments, read back: the owner and whether every hold goes. */
  record Release(String owner, boolean all) {
    static Release of(List<String> args) {
      return new Release(args.get(0), !"0".equals(args.get(1)));
    }
  }

  /** {@code renew.lua}'s arguments (its keys are the holds): the lease, the time budget, the owners. */
  static List<String> renewArgs(long leaseMillis, long budgetMicros, List<String> owners) {
    List<String> args = new ArrayList<>(owners.size() + 2);
    args.add(Long.toString(leaseMillis));
    args.add(Long.toString(budgetMicros));
    args.addAll(owners);
    return args;
  }

  /**
   * {@code renew.lua}'s reply: how long the call ran, and whether each of the first holds it
   * names was renewed (all of them, unless the time budget ran out first).
   */
  record Renewed(long elapsedMicros, boolean[] held) {
    static Renewed of(List<Object> reply) {
      boolean[] held = new boolean[reply.size() - 1];
      for (int i = 0; i < held.length; i++) {
        held[i] = (Long) reply.get(i + 1) == 1L;
      }
      return new Renewed((Long) reply.get(0), held);
    }

    /** The reply as renew.lua gives it. */
    List<Object> toReply() {
      List<Object> reply = new ArrayList<>(held.length + 1);
      reply.add(elapsedMicros);
      for (boolean h : held) {
        reply.add(h ? 1L : 0L);
      }
      return reply;
    }
  }
}

package io.relock.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lock scripts as one client calls them: each call's keys and arguments, built from the lock's
 * {@link LockKind}, the acquisition or the hold and the client's settings, and its reply shaped as
 * the engine reads it. Acquisitions ({@code acquire.lua} and its kinds', the joint first attempt
 * of a multi-lock), releases, the withdrawal of an owner id nobody serves any more, and the
 * engine's reads and forced unlocks. The calls that keep a hold alive or change its lease are the
 * {@link LeaseKeeper}'s; this class asks it only for the claim time a queued waiter is granted.
 */
final class LockCalls {
  /** The engine's logger (see {@link LeaseKeeper}). */
  private static final Logger log = LoggerFactory.getLogger(LockEngine.class);

  /** Tells handoff.lua to publish on the lock's own channel ({@code <lock key>:n}) with SPUBLISH. */
  static final String SHARDED_CHANNEL = "!";

  private final ScriptRunner scripts;
  private final RelockSettings settings;
  private final LeaseKeeper keeper;
  private final ClientTimer timer;
  /** The fence retention in milliseconds, as the scripts take it. */
  private final String fenceRetention;
  /**
   * The channel grant notifications for this client go to, as the scripts name it in a queue
   * entry (acquire.lua's, or a follower's that release.lua writes): the client's, or {@link
   * #SHARDED_CHANNEL}.
   */
  private final String grantChannel;

  /**
   * @param clientChannel the client's notification channel
   * @param sharded whether grants are published per lock with SPUBLISH (a Redis 7+ Cluster)
   */
  LockCalls(ScriptRunner scripts, RelockSettings settings, LeaseKeeper keeper, ClientTimer timer, String clientChannel,
      boolean sharded) {
    this.scripts = scripts;
    this.settings = settings;
    this.keeper = keeper;
    this.timer = timer;
    this.fenceRetention = Long.toString(settings.fenceRetention().toMillis());
    this.grantChannel = sharded ? SHARDED_CHANNEL : clientChannel;
  }

  // ---- acquiring ----------------------------------------------------------------------------

  /**
   * Runs {@code acquire.lua}. With replica acknowledgements on, every mode that may find the
   * caller holding the lock is followed by {@code WAIT}, and the reply carries the number of
   * replicas that acknowledged as its fifth element ({@link #ACKS_INDEX}). A withdrawal
   * ({@code abandon}) then goes the same way, with {@code WAIT 0} (which returns at once), so that
   * it reaches Redis after every earlier call of its acquisition: those travel on the driver's
   * connection for acknowledged calls, where one that timed out on the client may still be
   * queued behind other calls' WAITs, and a withdrawal sent on another connection could overtake
   * it and leave the lock it then takes held for nobody.
   */
  CompletableFuture<List<Object>> runAcquire(Acquisition a, String owner, AcquireMode mode, long entryMillis) {
    boolean reentry = mode == AcquireMode.REENTER;
    boolean acked = settings.replicaAcks() > 0 && !reentry && mode != AcquireMode.ABANDON;
    LockKind kind = a.state.kind;
    List<String> args = kind.acquireArgs(owner, a.leaseMillis, mode, fenceRetention, entryMillis, keeper.claimMillis(),
        acked, grantChannel, a.companion);
    if (settings.replicaAcks() == 0 || reentry) {
      return scripts.run(kind.acquireScript(), a.state.scriptKeys, args, a.state.keys.name());
    }
    return scripts.runReplicated(kind.acquireScript(), a.state.scriptKeys, args, a.state.keys.name(),
        acked ? settings.replicaAcks() : 0, settings.replicaAckTimeout()).thenApply(r -> {
          List<Object> reply = new ArrayList<>(r.reply());
          while (reply.size() < ACKS_INDEX) {
            reply.add(0L);
          }
          reply.add(r.acknowledged());
          return reply;
        });
  }

  /**
   * Runs {@code multilock_acquire.lua} for the first attempts of {@code members} (see {@link
   * JointAttempt}), followed by {@code WAIT} when replica acknowledgements are on. Completes with
   * each member's part of the reply, shaped as {@link #runAcquire} shapes a reply to {@code try}.
   */
  CompletableFuture<List<List<Object>>> runJointly(List<Acquisition> members) {
    List<String> keys = new ArrayList<>(members.size());
    List<String> args = new ArrayList<>(members.size() + 2);
    args.add(Long.toString(members.get(0).leaseMillis));
    args.add(fenceRetention);
    for (Acquisition a : members) {
      keys.add(a.state.keys.lock());
      args.add(a.owner);
    }
    String what = String.join(",", members.stream().map(a -> a.state.keys.name()).toList());
    CompletableFuture<List<Object>> call;
    if (settings.replicaAcks() == 0) {
      call = scripts.run(Scripts.MULTILOCK_ACQUIRE, keys, args, what);
    } else {
      call = scripts.runReplicated(Scripts.MULTILOCK_ACQUIRE, keys, args, what, settings.replicaAcks(),
          settings.replicaAckTimeout()).thenApply(r -> {
            List<Object> reply = new ArrayList<>(r.reply());
            reply.add(r.acknowledged());
            return reply;
          });
    }
    return call.thenApply(reply -> {
      if (reply.size() < 3 * members.size()) {
        throw new ScriptRunner.UnexpectedReplyException("unexpected reply " + reply + " from multilock_acquire.lua for"
            + " locks '" + what + "'", null);
      }
      List<List<Object>> parts = new ArrayList<>(members.size());
      for (int i = 0; i < members.size(); i++) {
        List<Object> part = new ArrayList<>(reply.subList(3 * i, 3 * i + 3));
        if (settings.replicaAcks() > 0) {
          while (part.size() < ACKS_INDEX) {
            part.add(0L);
          }
          part.add(reply.get(reply.size() - 1));
        }
        parts.add(part);
      }
      return parts;
    });
  }

  /** Where {@link #runAcquire} puts the replicas' acknowledgements in a reply. */
  static final int ACKS_INDEX = 4;

  /** Whether acquisitions wait for replicas to acknowledge them. */
  boolean waitsForReplicas() {
    return settings.replicaAcks() > 0;
  }

  /**
   * Withdraws an owner id this client no longer serves: releases the lock if it was granted or
   * passed to it, else drops its queue entry ({@code abandon}). Safe whenever in doubt: owner ids
   * are unique, so this never touches anyone else's hold. Tried again while Redis is unreachable,
   * for up to a lease.
   */
  void withdrawOrphan(LockKind kind, LockKeys keys, String owner) {
    long giveUpAt = System.nanoTime() + settings.defaultLease().toNanos();
    withdrawOrphan(kind, keys, owner, giveUpAt, 0);
  }

  private void withdrawOrphan(LockKind kind, LockKeys keys, String owner, long giveUpAt, int attempt) {
    if (log.isTraceEnabled()) {
      log.trace("{} withdraw orphan of {}", owner, keys.name());
    }
    // Lease, entry lifetime and claim are not read by 'abandon'.
    List<String> args = kind.acquireArgs(owner, 1, AcquireMode.ABANDON, fenceRetention, 1, 1, false, grantChannel,
        null);
    scripts.run(kind.acquireScript(), ScriptCalls.keys(keys), args, keys.name())
        .whenComplete((r, e) -> {
          if (e == null) {
            return;
          }
          if (ScriptRunner.isTransient(e) && !timer.isStopped() && System.nanoTime() - giveUpAt < 0) {
            timer.schedule(Retry.backoffNanos(attempt), () -> withdrawOrphan(kind, keys, owner, giveUpAt, attempt + 1));
          } else {
            log.warn("could not withdraw orphaned owner of lock '{}': {}", keys.name(), e.getMessage());
          }
        });
  }

  // ---- releasing ----------------------------------------------------------------------------

  /**
   * Runs the release script of {@code h}'s kind.
   *
   * @param careful whether it may well find another owner's hold (see {@link ScriptCalls#release})
   * @param follows whether {@code successor} is a follower, which has not asked Redis (see
   *     release.lua), rather than a waiter queued there
   */
  CompletableFuture<List<Object>> runRelease(HeldLease h, boolean all, boolean careful, Acquisition successor,
      boolean ahead, boolean follows) {
    LockKind kind = h.state.kind;
    String to = successor == null ? null : follows ? "=" + successor.owner : successor.owner;
    List<String> args = kind.releaseArgs(h.owner, all, careful, fenceRetention, to, ahead,
        follows ? followerArgument(successor) : null);
    return scripts.run(kind.releaseScript(), h.state.scriptKeys, args, h.lockName());
  }

  /** What a release names a follower with: " <entry ttl ms> <lease ms> <claim ms> <channel>" (see release.lua). */
  private String followerArgument(Acquisition a) {
    return " " + a.entryLifetimeMillis() + " " + a.leaseMillis + " " + keeper.claimMillis() + " " + grantChannel;
  }

  // ---- reading and forcing -------------------------------------------------------------------

  /** What every client's notification channel starts with: force_unlock.lua adds a client id. */
  private String clientChannelPrefix() {
    return settings.keyPrefix() + "client:";
  }

  /** Whether any owner holds lock {@code name} of {@code kind} (for a read lock: any reader). */
  boolean isLocked(LockKind kind, String name) {
    List<String> k = ScriptCalls.keys(keys(name));
    if (kind == LockKind.EXCLUSIVE) {
      return !"".equals(Waiting.await(scripts.run(Scripts.INSPECT, k, List.of(), name)).get(0));
    }
    return (Long) Waiting.await(scripts.run(Scripts.READWRITE_STATE, k, List.of("inspect", lane(kind), fenceRetention),
        name)).get(0) > 0;
  }

  /** Ends every hold of lock {@code name} of {@code kind}; whether there was one. */
  boolean forceUnlock(LockKind kind, String name) {
    List<String> k = ScriptCalls.keys(keys(name));
    if (kind == LockKind.EXCLUSIVE) {
      return (Long) Waiting.await(scripts.run(Scripts.FORCE_UNLOCK, k, List.of(fenceRetention, clientChannelPrefix()),
          name)).get(0) == 1L;
    }
    return (Long) Waiting.await(scripts.run(Scripts.READWRITE_STATE, k,
        List.of("force", lane(kind), fenceRetention, clientChannelPrefix()), name)).get(0) > 0;
  }

  private static String lane(LockKind kind) {
    if (kind != LockKind.READ && kind != LockKind.WRITE) {
      throw new IllegalArgumentException("not a read-write lock's lane: " + kind);
    }
    return kind == LockKind.READ ? "r" : "w";
  }

  /** Free permits of semaphore {@code name}, declared with {@code permits}, as Redis counts them now. */
  int availablePermits(String name, int permits) {
    List<Object> reply = Waiting.await(scripts.run(Scripts.SEMAPHORE_PERMITS, ScriptCalls.keys(keys(name)),
        List.of(Integer.toString(permits)), name));
    return ((Long) reply.get(0)).intValue();
  }

  private LockKeys keys(String name) {
    return LockKeys.of(settings.keyPrefix(), name);
  }
}

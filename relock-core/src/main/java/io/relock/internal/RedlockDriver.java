package io.relock.internal;

import static io.relock.internal.RedlockNodes.all;
import static io.relock.internal.RedlockNodes.answer;
import static io.relock.internal.RedlockNodes.errors;
import static io.relock.internal.RedlockNodes.message;

import io.relock.internal.RedlockNodes.Answer;
import io.relock.internal.RedlockNodes.RedlockUnavailableException;
import io.relock.internal.RedlockNodes.RefusedException;
import io.relock.internal.RedlockNodes.ReleasedOn;
import io.relock.spi.RedisDriver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * The Redlock quorum behind the one engine: a {@link RedisDriver} over N independent masters that
 * answers the engine's scripts ({@code acquire.lua}, {@code release.lua}, {@code renew.lua},
 * {@code extend.lua}, {@code inspect.lua}, {@code force_unlock.lua}) with the answers a single Redis would give, by
 * running the {@code redlock_*.lua} scripts on every node and counting a majority. The engine's
 * waiting, re-entrancy, watchdog, loss reports and close stay exactly as on one Redis.
 *
 * <p>An acquisition:
 * <ol>
 *   <li>asks every node at once ({@code redlock_acquire.lua}, each call bounded by the node
 *       timeout) to take the lock for the owner, reading each node's fence on the way;
 *   <li>with a majority granting, picks the fencing token: one above the highest fence read, and
 *       writes it to every granting node that still has the lock for the owner ({@code
 *       redlock_fence.lua}). Each node's fence only grows, and it is written while the owner holds
 *       the lock there, so the next owner's granting majority, which overlaps this one, reads it:
 *       tokens are ordered across holders without any clock (a max-register over quorums);
 *   <li>counts only if a majority took the token and the lease left, lease − elapsed − drift, is
 *       positive; otherwise releases the lock on every node that may have it, and answers "held":
 *       the engine then waits.
 * </ol>
 *
 * <p>Waiting does not poll. A refused {@code wait} leaves the client's channel on each refusing
 * node; a node that frees the lock tells every channel left there ({@code free <lock key>}), and
 * the client's waiter tries again after a random pause of a few milliseconds, so that two clients
 * woken together rarely split the nodes between them (a split costs both a retry, never safety).
 * There is no hand-over queue across nodes: with N queues, two waiters could each be granted a
 * minority and hold up everyone until the claims ran out.
 *
 * <p>A node that lost its data (restarted without persistence) is found by its missing marker key
 * ({@code <prefix>redlock:node}). It is then kept out of every majority for the delayed restart
 * (longer than any lease, so every hold it forgot has ended or has been reported lost to its
 * holder), and its fence is first raised to the highest fence of enough of the other nodes that
 * every token written to a majority before the loss is covered. A node set that is empty
 * everywhere (first use) is marked at once.
 *
 * <p>Errors: a node that fails or does not answer in time counts as not granting; when fewer than a
 * majority can be used, the call fails (and the engine retries within the caller's wait) with a
 * message naming each node and why.
 *
 * <p>This class is the table of the engine's scripts and, for each, how the masters' answers
 * combine; asking the masters one by one (the node scripts' calls, the releases tried again in
 * the background, the node markers, the failures' wording) is {@link RedlockNodes}'. The engine
 * knows this driver only as a {@link QuorumDriver}.
 */
final class RedlockDriver implements QuorumDriver {
  private static final LuaScript NODE_FENCE = Scripts.REDLOCK_FENCE;

  private final List<Node> nodes;
  private final int majority;
  private final RelockSettings settings;
  /** The masters, and every call on one of them (see {@link RedlockNodes}). */
  private final RedlockNodes masters;
  private final Map<String, BiFunction<List<String>, List<String>, CompletableFuture<List<Object>>>> byScript;
  /**
   * Numbers every attempt of every acquisition: a hold remembers the attempt that took it, so that
   * a give-back of an earlier attempt of the same owner, tried again late, cannot free it.
   */
  private final java.util.concurrent.atomic.AtomicLong attempts = new java.util.concurrent.atomic.AtomicLong();

  /**
   * @param nodes the masters, an odd number of at least three
   * @param restartDelay how long a node that lost its data stays out of every majority
   */
  RedlockDriver(List<Node> nodes, RelockSettings settings, Duration restartDelay) {
    this.masters = new RedlockNodes(nodes, settings, restartDelay);
    this.nodes = masters.nodes();
    this.majority = masters.majority();
    this.settings = settings;
    this.byScript = Map.of(
        Scripts.ACQUIRE.sha1(), this::acquire,
        Scripts.RELEASE.sha1(), this::release,
        Scripts.RENEW.sha1(), this::renew,
        Scripts.EXTEND.sha1(), this::extend,
        Scripts.INSPECT.sha1(), (keys, args) -> inspect(keys),
        Scripts.FORCE_UNLOCK.sha1(), this::forceUnlock,
        Scripts.SERVER_INFO.sha1(), (keys, args) -> serverInfo(keys, args));
  }

  @Override
  public int majority() {
    return majority;
  }

  @Override
  public List<Node> nodes() {
    return nodes;
  }

  @Override
  public String fenceKey() {
    return masters.fenceKey();
  }

  // ---- the RedisDriver the engine sees ------------------------------------------------------

  @Override
  public CompletableFuture<List<Object>> evalSha(String sha1, List<String> keys, List<String> args) {
    BiFunction<List<String>, List<String>, CompletableFuture<List<Object>>> script = byScript.get(sha1);
    if (script == null) {
      return CompletableFuture.failedFuture(new IllegalArgumentException("no Redlock form of script " + sha1));
    }
    return script.apply(keys, args);
  }

  /** Every node runner loads its own scripts; the engine's never reach Redis as they are. */
  @Override
  public CompletableFuture<String> scriptLoad(String script) {
    return CompletableFuture.completedFuture(LuaScript.sha1Hex(script));
  }

  /**
   * Subscribes on every node. Succeeds once a majority confirmed: a node that is down now
   * subscribes when its driver reconnects, and until then its frees are not heard (waiters then
   * try again when a majority's leases would have run out, or at their recheck interval).
   */
  @Override
  public CompletableFuture<Void> subscribe(String channel, Consumer<String> listener) {
    List<CompletableFuture<Void>> each = new ArrayList<>();
    for (Node n : nodes) {
      each.add(n.driver().subscribe(channel, listener));
    }
    CompletableFuture<Void> enough = new CompletableFuture<>();
    int[] ok = new int[1];
    int[] failed = new int[1];
    for (CompletableFuture<Void> f : each) {
      f.whenComplete((v, e) -> {
        synchronized (ok) {
          if (e == null && ++ok[0] == majority) {
            enough.complete(null);
          } else if (e != null && ++failed[0] == nodes.size() - majority + 1) {
            enough.completeExceptionally(e);
          }
        }
      });
    }
    return enough;
  }

  @Override
  public void onReconnect(Runnable listener) {
    for (Node n : nodes) {
      n.driver().onReconnect(listener);
    }
  }

  /** Closes the masters' drivers after the releases still tried on slow ones: see {@link RedlockNodes#close}. */
  @Override
  public void close() {
    masters.close();
  }

  // ---- acquire.lua ----------------------------------------------------------------------------

  /** See acquire.lua for the arguments and the replies the engine expects. */
  private CompletableFuture<List<Object>> acquire(List<String> keys, List<String> args) {
    ScriptCalls.Acquire call = ScriptCalls.Acquire.of(args);
    String owner = call.owner();
    long lease = call.leaseMillis();
    AcquireMode mode = call.mode();
    return switch (mode) {
      case REENTER -> reenter(keys, owner, Long.toString(lease));
      case ABANDON -> releaseEverywhere(keys, owner).thenApply(v -> List.<Object>of(-1L, 0L, 0L));
      case TRY, GIVEUP -> attempt(keys, owner, lease, "take", call, mode, true);
      case WAIT, RECHECK -> attempt(keys, owner, lease, "wait", call, mode, true);
    };
  }

  private CompletableFuture<List<Object>> reenter(List<String> keys, String owner, String lease) {
    return masters.onEveryNode(n -> masters.runAcquire(n, keys, owner, lease, "reenter", "1", "", ""), keys)
        .thenApply(answers -> {
      long count = 0;
      int ok = 0;
      int unknown = 0;
      for (Answer a : answers) {
        if (a.code() == 2) {
          ok++;
          count = Math.max(count, a.n(1));
        } else if (a.error() != null) {
          unknown++;
        }
      }
      if (ok >= majority) {
        return List.<Object>of(2L, 0L, count);
      }
      if (ok + unknown >= majority) {
        // The hold may still be on a majority (a master that has it did not answer): not a loss.
        throw masters.withoutMajority("to re-enter " + keys.get(0), answers, errors(answers));
      }
      masters.requireMajorityAnswered(answers, keys, ok);
      return List.<Object>of(-2L, 0L, 0L);
    });
  }

  private CompletableFuture<List<Object>> attempt(List<String> keys, String owner, long lease, String nodeMode,
      ScriptCalls.Acquire call, AcquireMode mode, boolean mayMark) {
    long started = System.nanoTime();
    String leaseArg = Long.toString(lease);
    String attempt = Long.toString(attempts.incrementAndGet());
    return masters.onEveryNode(n -> masters.runAcquire(n, keys, owner, leaseArg, nodeMode,
        Long.toString(call.entryMillis()), call.channel(), attempt), keys)
        .thenCompose(answers -> {
          List<Answer> unmarked = answers.stream().filter(a -> a.code() == -9).toList();
          if (!unmarked.isEmpty() && mayMark) {
            return masters.mark(unmarked, answers).thenCompose(marked -> marked
                ? attempt(keys, owner, lease, nodeMode, call, mode, false)
                : decide(keys, owner, attempt, lease, mode, started, answers));
          }
          return decide(keys, owner, attempt, lease, mode, started, answers);
        });
  }

  private CompletableFuture<List<Object>> decide(List<String> keys, String owner, String attempt, long lease,
      AcquireMode mode, long started, List<Answer> answers) {
    List<Node> granted = new ArrayList<>();
    long highestFence = 0;
    for (Answer a : answers) {
      long code = a.code();
      if (code == 1 || code == 3) {
        granted.add(a.node());
      }
      if (code == 1 || code == 3 || code == 0) {
        highestFence = Math.max(highestFence, a.n(1));
      }
    }
    if (granted.size() < majority) {
      return giveBack(keys, owner, attempt, answers, granted).thenApply(v -> refused(mode, answers, granted.size(), keys));
    }
    long chosen = highestFence + 1;
    String token = Long.toString(chosen);
    List<CompletableFuture<Answer>> writes = new ArrayList<>();
    for (Node n : granted) {
      writes.add(answer(n, n.scripts().run(NODE_FENCE, List.of(keys.get(0), masters.fenceKey()), List.of(owner, token),
          keys.get(0))));
    }
    return all(writes).thenCompose(written -> {
      long fenced = written.stream().filter(a -> a.reply() != null && a.n(0) == 1).count();
      long elapsed = System.nanoTime() - started;
      long drift = settings.driftNanosForMillis(lease);
      long left = Duration.ofMillis(lease).toNanos() - elapsed - drift;
      if (fenced >= majority && left > 0) {
        return CompletableFuture.completedFuture(List.<Object>of(1L, chosen, 1L));
      }
      return giveBack(keys, owner, attempt, answers, granted).thenApply(v -> refused(mode, answers, (int) fenced, keys));
    });
  }

  /** The engine's answer for an attempt that did not get a majority (see acquire.lua). */
  private List<Object> refused(AcquireMode mode, List<Answer> answers, int granted, List<String> keys) {
    masters.requireMajorityAnswered(answers, keys, granted);
    if (mode == AcquireMode.GIVEUP) {
      return List.of(-1L, 0L, 0L);
    }
    long pttl = majorityFreeInMillis(answers);
    return mode == AcquireMode.TRY ? List.of(0L, 0L, pttl) : List.of(0L, 0L, pttl, 0L);
  }

  /**
   * When a majority could next be free, as far as the answers tell: the majority-th soonest of the
   * nodes' remaining holds (a node that granted, or is free, counts as free now). A split vote
   * (free everywhere, yet no majority) comes back as a few random milliseconds.
   */
  private long majorityFreeInMillis(List<Answer> answers) {
    List<Long> freeIn = new ArrayList<>();
    for (Answer a : answers) {
      long code = a.code();
      if (code == 0) {
        long pttl = a.n(2);
        freeIn.add(pttl < 0 ? Long.MAX_VALUE : pttl);
      } else if (code == 1 || code == 3) {
        freeIn.add(0L);
      } else {
        freeIn.add(Long.MAX_VALUE);
      }
    }
    Collections.sort(freeIn);
    long at = freeIn.get(majority - 1);
    if (at == Long.MAX_VALUE) {
      return -1; // unknown: the engine re-checks at its interval, or when a node frees the lock
    }
    return at == 0 ? 1 + ThreadLocalRandom.current().nextInt(4) : at;
  }

  /** Releases the lock for {@code owner} on every node that may have it: granted, or unknown. */
  private CompletableFuture<Void> giveBack(List<String> keys, String owner, String attempt, List<Answer> answers,
      List<Node> granted) {
    List<CompletableFuture<Answer>> releases = new ArrayList<>();
    for (Answer a : answers) {
      if (granted.contains(a.node()) || a.error() != null) {
        releases.add(masters.releaseOn(a.node(), keys, owner, attempt, null));
      }
    }
    return all(releases).thenApply(v -> null);
  }

  private CompletableFuture<Void> releaseEverywhere(List<String> keys, String owner) {
    return masters.onEveryNode(n -> masters.releaseOn(n, keys, owner, "", null), keys).thenApply(answers -> {
      long gotThrough = answers.stream().filter(a -> a.error() == null).count();
      if (gotThrough < majority) {
        // The owner may still hold a majority: let the engine try again. (A minority not reached
        // may keep a grant to the withdrawn owner until its lease ends: it holds nobody up, since
        // the majority that answered is free of it.)
        RuntimeException failure = masters.withoutMajority("to withdraw " + keys.get(0), answers, errors(answers));
        throw failure instanceof RefusedException ? failure : new RedlockUnavailableException(
            "could not reach a majority of Redlock nodes to withdraw " + keys.get(0) + ": "
                + String.join("; ", errors(answers)));
      }
      return null;
    });
  }

  // ---- release.lua, renew.lua, inspect.lua, force_unlock.lua --------------------------------

  /**
   * See release.lua (its successor is ignored: no hand-over here). Every hold at once: {@link
   * #releaseAll}; here, one of several holds is dropped on every node.
   */
  private CompletableFuture<List<Object>> release(List<String> keys, List<String> args) {
    ScriptCalls.Release call = ScriptCalls.Release.of(args);
    String owner = call.owner();
    if (call.all()) {
      return releaseAll(keys, owner);
    }
    return masters.onEveryNode(n -> masters.runRelease(n, keys, owner, "0", "0", "", ""), keys)
        .thenApply(answers -> {
      int released = 0;
      int unknown = 0;
      boolean other = false;
      long count = 0;
      for (Answer a : answers) {
        if (a.error() != null) {
          unknown++;
        } else if (a.code() == 1 || a.code() == 2) {
          released++;
          count = Math.max(count, a.code() == 1 ? a.n(1) : 0);
        } else if (a.code() == 0) {
          other = true;
        }
      }
      if (released >= majority) {
        return List.<Object>of(1L, Math.max(1, count));
      }
      if (released + unknown >= majority) {
        throw masters.withoutMajority("to release " + keys.get(0), answers, errors(answers));
      }
      return List.<Object>of(other ? 0L : -1L, 0L); // lost on a majority
    });
  }

  /**
   * Releases every hold of {@code owner}: freed when a majority of nodes have released it, counting
   * the nodes an earlier attempt of this release or a background retry released (a release that
   * failed on some nodes is tried again by the engine, and the nodes it did free then answer "not
   * held"). When too few nodes answered to tell, the failure says whether this release may still
   * have freed a majority. It may not if every node that failed never received the call (the
   * driver's {@link io.relock.spi.CommandNotSentException}): the failure is then one too, so that
   * the engine does not take a later "not held" for the lost reply of a release that freed the
   * lock. Otherwise a hold left on a minority (one of its two nodes restarted without its data)
   * was reported released, not lost, when its holder closed it while the other nodes reconnected
   * (found by the torture suite's Redlock runs).
   */
  private CompletableFuture<List<Object>> releaseAll(List<String> keys, String owner) {
    String id = keys.get(0) + " " + owner;
    return masters.onEveryNode(n -> masters.releaseOn(n, keys, owner, "", id), keys).thenApply(answers -> {
      java.util.Set<String> released = new java.util.HashSet<>();
      boolean other = false;
      for (Answer a : answers) {
        if (a.reply() != null && (a.code() == 1 || a.code() == 2)) {
          released.add(a.node().name());
        } else if (a.reply() != null && a.code() == 0) {
          other = true;
        }
      }
      ReleasedOn before = masters.releasedSoFar.get(id);
      if (before != null) {
        released.addAll(before.nodes());
      }
      int mayHaveRun = 0;
      int unsent = 0;
      for (Answer a : answers) {
        if (a.error() != null && !released.contains(a.node().name())) {
          if (ScriptRunner.mayHaveRun(a.error())) {
            mayHaveRun++;
          } else {
            unsent++;
          }
        }
      }
      if (released.size() >= majority) {
        masters.releasedSoFar.remove(id);
        return List.<Object>of(2L, 0L);
      }
      RuntimeException refusal = masters.withoutMajority("to release " + keys.get(0), answers, List.of());
      if (refusal instanceof RefusedException) {
        throw refusal;
      }
      if (released.size() + mayHaveRun + unsent >= majority) {
        masters.remember(id, released);
        String why = "could not release " + keys.get(0) + " on a majority of Redlock nodes: " + String.join("; ",
            answers.stream().filter(a -> a.error() != null).map(a -> a.node().name() + ": " + message(a.error())).toList());
        if (released.size() + mayHaveRun >= majority) {
          throw new RedlockUnavailableException(why);
        }
        throw new io.relock.spi.CommandNotSentException(why + " (never sent to them)", null);
      }
      masters.releasedSoFar.remove(id);
      return List.<Object>of(other ? 0L : -1L, 0L); // lost on a majority
    });
  }

  /**
   * See renew.lua: a lock counts as renewed when a majority renewed it. Each node may stop at its
   * time budget after a different number of holds; the reply covers those every answering node
   * looked at, and the watchdog sends the rest again.
   */
  private CompletableFuture<List<Object>> renew(List<String> keys, List<String> args) {
    int holds = keys.size();
    return masters.onEveryNode(n -> answer(n, n.scripts().run(Scripts.RENEW, keys, args, holds + " locks")), keys)
        .thenApply(answers -> {
          List<ScriptCalls.Renewed> replies = new ArrayList<>();
          for (Answer a : answers) {
            if (a.error() == null) {
              replies.add(ScriptCalls.Renewed.of(a.reply()));
            }
          }
          int looked = holds;
          long elapsed = 0;
          for (ScriptCalls.Renewed r : replies) {
            looked = Math.min(looked, r.held().length);
            elapsed = Math.max(elapsed, r.elapsedMicros());
          }
          int unknown = nodes.size() - replies.size();
          boolean[] merged = new boolean[looked];
          for (int i = 0; i < looked; i++) {
            int renewed = 0;
            for (ScriptCalls.Renewed r : replies) {
              renewed += r.held()[i] ? 1 : 0;
            }
            if (renewed < majority && renewed + unknown >= majority) {
              throw new RedlockUnavailableException("could not renew " + keys.get(i) + " on a majority of Redlock nodes");
            }
            merged[i] = renewed >= majority;
          }
          return new ScriptCalls.Renewed(elapsed, merged).toReply();
        });
  }

  /**
   * See extend.lua: the hold's time to live is set on every master; it counts when a majority set
   * it. When too few answered to tell, the call fails (the hold may still be the owner's on a
   * majority): not a loss.
   */
  private CompletableFuture<List<Object>> extend(List<String> keys, List<String> args) {
    return masters.onEveryNode(n -> answer(n, n.scripts().run(Scripts.EXTEND, keys, args, keys.get(0))), keys)
        .thenApply(answers -> {
          int set = 0;
          int unknown = 0;
          for (Answer a : answers) {
            if (a.error() != null) {
              unknown++;
            } else if (a.code() == 1) {
              set++;
            }
          }
          if (set >= majority) {
            return List.<Object>of(1L);
          }
          if (set + unknown >= majority) {
            throw new RedlockUnavailableException("could not set the expiry of " + keys.get(0)
                + " on a majority of Redlock nodes: " + String.join("; ", answers.stream().filter(a -> a.error() != null)
                    .map(a -> a.node().name() + ": " + message(a.error())).toList()));
          }
          return List.<Object>of(0L);
        });
  }

  /** See inspect.lua; the owner is the one a majority names, else none (no queue, no per-name fence here). */
  private CompletableFuture<List<Object>> inspect(List<String> keys) {
    return masters.onEveryNode(n -> answer(n, n.scripts().run(Scripts.REDLOCK_INSPECT, List.of(keys.get(0)), List.of(),
        keys.get(0))), keys).thenApply(answers -> {
          int answered = 0;
          for (Answer a : answers) {
            if (a.reply() == null) {
              continue;
            }
            answered++;
            Object owner = a.reply().get(0);
            if ("".equals(owner)) {
              continue;
            }
            long same = answers.stream().filter(b -> b.reply() != null && owner.equals(b.reply().get(0))).count();
            if (same >= majority) {
              List<Object> r = a.reply();
              return List.<Object>of(owner, r.get(1), r.get(2), r.get(3), 0L, 0L);
            }
          }
          if (answered < majority) {
            RuntimeException failure = masters.withoutMajority("to inspect " + keys.get(0), answers, errors(answers));
            throw failure instanceof RefusedException ? failure : new RedlockUnavailableException("only " + answered
                + " of " + nodes.size() + " Redlock nodes answered for " + keys.get(0) + ": "
                + String.join("; ", errors(answers)));
          }
          return List.<Object>of("", 0L, 0L, -2L, 0L, 0L);
        });
  }

  /** See force_unlock.lua: frees the lock on every node, telling its waiters and its holder. */
  private CompletableFuture<List<Object>> forceUnlock(List<String> keys, List<String> args) {
    return masters.onEveryNode(n -> masters.runRelease(n, keys, "", "1", "1", "", args.get(1)), keys)
        .thenApply(answers -> {
      masters.requireMajorityAnswered(answers, keys, 0);
      long held = answers.stream().filter(a -> a.reply() != null && a.n(1) == 1).count();
      return List.<Object>of(held > 0 ? 1L : 0L, 0L);
    });
  }

  /**
   * See server_info.lua: for each figure the worst any master reported: an eviction policy that
   * could delete a lock if one has it, and the oldest version.
   */
  private CompletableFuture<List<Object>> serverInfo(List<String> keys, List<String> args) {
    return masters.onEveryNode(n -> answer(n, n.scripts().run(Scripts.SERVER_INFO, keys, args, "(server check)")), keys)
        .thenApply(answers -> {
          String policy = null;
          String version = null;
          for (Answer a : answers) {
            if (a.reply() == null) {
              continue;
            }
            String p = String.valueOf(a.reply().get(0));
            String v = a.reply().size() > 1 ? String.valueOf(a.reply().get(1)) : "";
            if (policy == null || ServerCheck.evicts(p)) {
              policy = p;
            }
            if (version == null || ServerCheck.tooOld(v)) {
              version = v;
            }
          }
          if (policy == null) {
            throw new RedlockUnavailableException("no Redlock master answered the server check");
          }
          return List.<Object>of(policy, version);
        });
  }

}

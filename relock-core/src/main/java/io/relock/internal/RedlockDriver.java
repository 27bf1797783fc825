package io.relock.internal;

import io.relock.RelockException;
import io.relock.spi.RedisDriver;
import io.relock.spi.RedisUri;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 */
final class RedlockDriver implements RedisDriver {
  private static final Logger log = LoggerFactory.getLogger(RedlockDriver.class);

  private static final LuaScript NODE_ACQUIRE = Scripts.REDLOCK_ACQUIRE;
  private static final LuaScript NODE_FENCE = Scripts.REDLOCK_FENCE;
  private static final LuaScript NODE_RELEASE = Scripts.REDLOCK_RELEASE;
  private static final LuaScript NODE_MARK = Scripts.REDLOCK_NODE;

  /** One master: its URI (passwords hidden) for messages, its driver, and a runner bounded by the node timeout. */
  record Node(String name, RedisDriver driver, ScriptRunner scripts) {}

  /** What one node answered to one call: a reply, or why not. */
  private record Answer(Node node, List<Object> reply, Throwable error) {
    long code() {
      return reply == null ? Long.MIN_VALUE : (Long) reply.get(0);
    }

    long n(int i) {
      return (Long) reply.get(i);
    }
  }

  private final List<Node> nodes;
  private final int majority;
  private final RelockSettings settings;
  private final String markerKey;
  private final String fenceKey;
  private final long restartDelayMillis;
  private final Map<String, BiFunction<List<String>, List<String>, CompletableFuture<List<Object>>>> byScript;
  /** Background retries of releases on nodes that did not answer (see {@link #releaseOn}). */
  private final java.util.concurrent.ScheduledThreadPoolExecutor retries;
  private final java.util.Set<CompletableFuture<Void>> pendingReleases = java.util.concurrent.ConcurrentHashMap.newKeySet();
  /**
   * Full releases in doubt, by lock key and owner: the nodes that have released the lock so far,
   * by an earlier attempt or a background retry, and since when. A later attempt of the same
   * release counts them with its own (see {@link #releaseAll}).
   */
  private final Map<String, ReleasedOn> releasedSoFar = new java.util.concurrent.ConcurrentHashMap<>();
  /**
   * The latest call of each full release to each node, by release id and node name, until it is
   * answered: the next call of that release to that node waits for it (see {@link #sendRelease}).
   */
  private final Map<String, CompletableFuture<Answer>> releasesOut = new java.util.concurrent.ConcurrentHashMap<>();
  private volatile boolean closing;

  private record ReleasedOn(java.util.Set<String> nodes, long sinceNanos) {
    ReleasedOn with(java.util.Set<String> more) {
      java.util.Set<String> all = new java.util.HashSet<>(nodes);
      all.addAll(more);
      return new ReleasedOn(java.util.Set.copyOf(all), sinceNanos);
    }
  }
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
    this.nodes = List.copyOf(nodes);
    this.majority = nodes.size() / 2 + 1;
    this.settings = settings;
    this.markerKey = settings.keyPrefix() + "redlock:node";
    this.fenceKey = settings.keyPrefix() + "redlock:fence";
    this.restartDelayMillis = restartDelay.toMillis();
    this.retries = new java.util.concurrent.ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "relock-redlock-retry");
      t.setDaemon(true);
      return t;
    });
    this.retries.setRemoveOnCancelPolicy(true);
    this.byScript = Map.of(
        Scripts.ACQUIRE.sha1(), this::acquire,
        Scripts.RELEASE.sha1(), this::release,
        Scripts.RENEW.sha1(), this::renew,
        Scripts.EXTEND.sha1(), this::extend,
        Scripts.INSPECT.sha1(), (keys, args) -> inspect(keys),
        Scripts.FORCE_UNLOCK.sha1(), this::forceUnlock,
        Scripts.SERVER_INFO.sha1(), (keys, args) -> serverInfo(keys, args));
  }

  int majority() {
    return majority;
  }

  /** The masters, for reads that must see each one's answer ({@link LockInspector}). */
  List<Node> nodes() {
    return nodes;
  }

  /** Each master's fence key (see redlock_acquire.lua). */
  String fenceKey() {
    return fenceKey;
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

  /**
   * Waits (at most twice the command timeout) for the releases still being tried again on slow
   * nodes, so that a client closing right after a release leaves nothing on them; then closes
   * every node's driver. Releases still under way then (a master paused or unreachable past that
   * wait) go on in the background, each until its node answers or it gives up (see {@link
   * #releaseOn}), and the node drivers are closed after them: closing them now would leave each
   * such hold on its master for a whole lease, for a client that is gone (the Redlock stress
   * suite's lock left on one master after its client closed, seed 20261125).
   */
  @Override
  public void close() {
    long deadline = System.nanoTime() + settings.commandTimeout().multipliedBy(2).toNanos();
    while (!pendingReleases.isEmpty() && System.nanoTime() - deadline < 0) {
      java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
    if (!pendingReleases.isEmpty()) {
      log.debug("closing: {} release(s) still tried on slow Redlock nodes; the nodes close after them",
          pendingReleases.size());
      closeOnceReleased();
      return;
    }
    closeNow();
  }

  /** Checks on the retry thread until no release is pending, then closes. */
  private void closeOnceReleased() {
    try {
      retries.schedule(() -> {
        if (pendingReleases.isEmpty()) {
          closeNow();
        } else {
          closeOnceReleased();
        }
      }, 50, TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException closed) {
      closeNow();
    }
  }

  private void closeNow() {
    closing = true;
    retries.shutdownNow();
    for (Node n : nodes) {
      try {
        n.driver().close();
      } catch (RuntimeException e) {
        log.debug("closing Redlock node {} failed", n.name(), e);
      }
    }
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
    return onEveryNode(n -> runAcquire(n, keys, owner, lease, "reenter", "1", "", ""), keys).thenApply(answers -> {
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
        throw withoutMajority("to re-enter " + keys.get(0), answers, errors(answers));
      }
      requireMajorityAnswered(answers, keys, ok);
      return List.<Object>of(-2L, 0L, 0L);
    });
  }

  private CompletableFuture<List<Object>> attempt(List<String> keys, String owner, long lease, String nodeMode,
      ScriptCalls.Acquire call, AcquireMode mode, boolean mayMark) {
    long started = System.nanoTime();
    String leaseArg = Long.toString(lease);
    String attempt = Long.toString(attempts.incrementAndGet());
    return onEveryNode(n -> runAcquire(n, keys, owner, leaseArg, nodeMode, Long.toString(call.entryMillis()),
        call.channel(), attempt), keys)
        .thenCompose(answers -> {
          List<Answer> unmarked = answers.stream().filter(a -> a.code() == -9).toList();
          if (!unmarked.isEmpty() && mayMark) {
            return mark(unmarked, answers).thenCompose(marked -> marked
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
      writes.add(answer(n, n.scripts().run(NODE_FENCE, List.of(keys.get(0), fenceKey), List.of(owner, token),
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
    requireMajorityAnswered(answers, keys, granted);
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

  /**
   * Fails (so that the engine tries again within the caller's wait) when fewer than a majority of
   * nodes could take part: the message names every node that could not, and why.
   */
  private void requireMajorityAnswered(List<Answer> answers, List<String> keys, int granted) {
    int usable = 0;
    List<String> why = new ArrayList<>();
    for (Answer a : answers) {
      long code = a.code();
      if (a.error() != null) {
        why.add(a.node().name() + ": " + message(a.error()));
      } else if (code == -8) {
        why.add(a.node().name() + ": in its delayed restart for " + a.n(2) + " ms more (it lost its data)");
      } else if (code == -9) {
        why.add(a.node().name() + ": no relock marker (never used, or lost its data); kept out until enough"
            + " other nodes answer to mark it");
      } else {
        usable++;
      }
    }
    if (usable < majority) {
      RuntimeException failure = withoutMajority("for " + keys.get(0), answers, why);
      if (failure instanceof RefusedException) {
        throw failure;
      }
      throw new RedlockUnavailableException("only " + usable + " of " + nodes.size() + " Redlock nodes could take part"
          + " (a majority is " + majority + ") for " + keys.get(0) + ": " + String.join("; ", why));
    }
  }

  /**
   * What went wrong on one node: an error reply as the node's runner explained it (with the
   * permission the node's script lacks, for an ACL refusal), else what went wrong at the bottom
   * (the node runner's message already names the node and lock). Passwords are hidden: the
   * runner's redaction already ran over a refusal, and this one runs over the rest.
   */
  private static String message(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof ScriptRunner.Rejected r) {
        return r.detail();
      }
    }
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return RedisUri.redact(t instanceof java.util.concurrent.TimeoutException ? "no answer in time"
        : String.valueOf(t.getMessage()));
  }

  /**
   * Why fewer than a majority of nodes could take part in a call about {@code key}, as the
   * exception to fail it with: {@link RefusedException} when the nodes that answered with an
   * error reply (an ACL refusal, a script error) are so many that no majority is possible without
   * them, so that the caller is told Redis refused rather than asked to try again; else {@link
   * RedlockUnavailableException}, which passes.
   */
  private RuntimeException withoutMajority(String what, List<Answer> answers, List<String> why) {
    List<String> refusals = answers.stream().filter(a -> refused(a.error()))
        .map(a -> a.node().name() + ": " + message(a.error())).toList();
    int refused = refusals.size();
    if (nodes.size() - refused < majority) {
      return new RefusedException(refused + " of " + nodes.size() + " Redlock masters refused the call (a majority is "
          + majority + ") " + what + ": " + String.join("; ", refusals));
    }
    return new RedlockUnavailableException("could not reach a majority of Redlock nodes " + what
        + (why.isEmpty() ? "" : ": " + String.join("; ", why)));
  }

  /** Releases the lock for {@code owner} on every node that may have it: granted, or unknown. */
  private CompletableFuture<Void> giveBack(List<String> keys, String owner, String attempt, List<Answer> answers,
      List<Node> granted) {
    List<CompletableFuture<Answer>> releases = new ArrayList<>();
    for (Answer a : answers) {
      if (granted.contains(a.node()) || a.error() != null) {
        releases.add(releaseOn(a.node(), keys, owner, attempt, null));
      }
    }
    return all(releases).thenApply(v -> null);
  }

  private CompletableFuture<Void> releaseEverywhere(List<String> keys, String owner) {
    return onEveryNode(n -> releaseOn(n, keys, owner, "", null), keys).thenApply(answers -> {
      long gotThrough = answers.stream().filter(a -> a.error() == null).count();
      if (gotThrough < majority) {
        // The owner may still hold a majority: let the engine try again. (A minority not reached
        // may keep a grant to the withdrawn owner until its lease ends: it holds nobody up, since
        // the majority that answered is free of it.)
        RuntimeException failure = withoutMajority("to withdraw " + keys.get(0), answers, errors(answers));
        throw failure instanceof RefusedException ? failure : new RedlockUnavailableException(
            "could not reach a majority of Redlock nodes to withdraw " + keys.get(0) + ": "
                + String.join("; ", errors(answers)));
      }
      return null;
    });
  }

  // ---- node markers: first use, and nodes that lost their data ------------------------------

  /**
   * Marks nodes that have no marker. If every node answered without one, this is a first use:
   * all are marked at once. Otherwise the unmarked nodes lost their data: each gets the delayed
   * restart and a fence floor, provided enough marked nodes answered to cover every token
   * written to a majority before (more than N − majority of them). Completes with whether a node
   * became usable at once (so the attempt is worth repeating).
   */
  private CompletableFuture<Boolean> mark(List<Answer> unmarked, List<Answer> answers) {
    if (unmarked.size() == nodes.size()) {
      List<CompletableFuture<Answer>> inits = new ArrayList<>();
      for (Answer a : unmarked) {
        inits.add(answer(a.node(), a.node().scripts().run(NODE_MARK, List.of(markerKey, fenceKey),
            List.of("init", "0", "0"), "(Redlock node marker)")));
      }
      return all(inits).thenApply(done -> true);
    }
    long marked = answers.stream().filter(a -> a.reply() != null && a.code() != -9).count();
    if (marked < nodes.size() - majority + 1) {
      return CompletableFuture.completedFuture(false); // cannot cover its fence yet: keep it out
    }
    List<CompletableFuture<Answer>> reads = new ArrayList<>();
    for (Answer a : answers) {
      if (a.reply() != null && a.code() != -9) {
        reads.add(answer(a.node(), a.node().scripts().run(NODE_MARK, List.of(markerKey, fenceKey),
            List.of("read", "0", "0"), "(Redlock fence)")));
      }
    }
    return all(reads).thenCompose(fences -> {
      long floor = 0;
      long read = 0;
      for (Answer f : fences) {
        if (f.reply() != null) {
          read++;
          floor = Math.max(floor, f.n(0));
        }
      }
      if (read < nodes.size() - majority + 1) {
        return CompletableFuture.completedFuture(false);
      }
      List<CompletableFuture<Answer>> recoveries = new ArrayList<>();
      for (Answer a : unmarked) {
        log.warn("Redlock node {} lost its data: it takes part again in {} ms (delayed restart), fence floor {}",
            a.node().name(), restartDelayMillis, floor);
        recoveries.add(answer(a.node(), a.node().scripts().run(NODE_MARK, List.of(markerKey, fenceKey),
            List.of("recover", Long.toString(floor), Long.toString(restartDelayMillis)), "(Redlock node marker)")));
      }
      return all(recoveries).thenApply(done -> restartDelayMillis == 0);
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
    return onEveryNode(n -> runRelease(n, keys, owner, "0", "0", "", ""), keys)
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
        throw withoutMajority("to release " + keys.get(0), answers, errors(answers));
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
    return onEveryNode(n -> releaseOn(n, keys, owner, "", id), keys).thenApply(answers -> {
      java.util.Set<String> released = new java.util.HashSet<>();
      boolean other = false;
      for (Answer a : answers) {
        if (a.reply() != null && (a.code() == 1 || a.code() == 2)) {
          released.add(a.node().name());
        } else if (a.reply() != null && a.code() == 0) {
          other = true;
        }
      }
      ReleasedOn before = releasedSoFar.get(id);
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
        releasedSoFar.remove(id);
        return List.<Object>of(2L, 0L);
      }
      RuntimeException refusal = withoutMajority("to release " + keys.get(0), answers, List.of());
      if (refusal instanceof RefusedException) {
        throw refusal;
      }
      if (released.size() + mayHaveRun + unsent >= majority) {
        remember(id, released);
        String why = "could not release " + keys.get(0) + " on a majority of Redlock nodes: " + String.join("; ",
            answers.stream().filter(a -> a.error() != null).map(a -> a.node().name() + ": " + message(a.error())).toList());
        if (released.size() + mayHaveRun >= majority) {
          throw new RedlockUnavailableException(why);
        }
        throw new io.relock.spi.CommandNotSentException(why + " (never sent to them)", null);
      }
      releasedSoFar.remove(id);
      return List.<Object>of(other ? 0L : -1L, 0L); // lost on a majority
    });
  }

  /**
   * Adds {@code nodes} to what release {@code id} freed so far, and forgets releases older than
   * any retry of theirs (the engine and the background retries give up within the longest lease).
   */
  private void remember(String id, java.util.Set<String> nodes) {
    long now = System.nanoTime();
    long stale = (restartDelayMillis + 2 * settings.commandTimeout().toMillis()) * 1_000_000L;
    releasedSoFar.values().removeIf(r -> now - r.sinceNanos() > stale);
    releasedSoFar.merge(id, new ReleasedOn(java.util.Set.copyOf(nodes), now), (old, more) -> old.with(more.nodes()));
  }

  /**
   * See renew.lua: a lock counts as renewed when a majority renewed it. Each node may stop at its
   * time budget after a different number of holds; the reply covers those every answering node
   * looked at, and the watchdog sends the rest again.
   */
  private CompletableFuture<List<Object>> renew(List<String> keys, List<String> args) {
    int holds = keys.size();
    return onEveryNode(n -> answer(n, n.scripts().run(Scripts.RENEW, keys, args, holds + " locks")), keys)
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
    return onEveryNode(n -> answer(n, n.scripts().run(Scripts.EXTEND, keys, args, keys.get(0))), keys)
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
    return onEveryNode(n -> answer(n, n.scripts().run(Scripts.REDLOCK_INSPECT, List.of(keys.get(0)), List.of(),
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
            RuntimeException failure = withoutMajority("to inspect " + keys.get(0), answers, errors(answers));
            throw failure instanceof RefusedException ? failure : new RedlockUnavailableException("only " + answered
                + " of " + nodes.size() + " Redlock nodes answered for " + keys.get(0) + ": "
                + String.join("; ", errors(answers)));
          }
          return List.<Object>of("", 0L, 0L, -2L, 0L, 0L);
        });
  }

  /** See force_unlock.lua: frees the lock on every node, telling its waiters and its holder. */
  private CompletableFuture<List<Object>> forceUnlock(List<String> keys, List<String> args) {
    return onEveryNode(n -> runRelease(n, keys, "", "1", "1", "", args.get(1)), keys).thenApply(answers -> {
      requireMajorityAnswered(answers, keys, 0);
      long held = answers.stream().filter(a -> a.reply() != null && a.n(1) == 1).count();
      return List.<Object>of(held > 0 ? 1L : 0L, 0L);
    });
  }

  /**
   * See server_info.lua: for each figure the worst any master reported: an eviction policy that
   * could delete a lock if one has it, and the oldest version.
   */
  private CompletableFuture<List<Object>> serverInfo(List<String> keys, List<String> args) {
    return onEveryNode(n -> answer(n, n.scripts().run(Scripts.SERVER_INFO, keys, args, "(server check)")), keys)
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

  // ---- plumbing -------------------------------------------------------------------------------

  private CompletableFuture<Answer> runAcquire(Node n, List<String> keys, String owner, String lease, String mode,
      String entryMillis, String channel, String attempt) {
    return answer(n, n.scripts().run(NODE_ACQUIRE, List.of(keys.get(0), freedChannelsKey(keys), markerKey, fenceKey),
        List.of(owner, lease, mode, entryMillis, channel, attempt), keys.get(0)));
  }

  /**
   * Releases every hold of {@code owner} on node {@code n}. The first answer is what the caller
   * counts; if it is a failure that may pass (the node paused, a connection lost), the release is
   * tried again in the background until the node answers or the longest lease has passed, so that
   * a node that was slow during a release or a give-back keeps no stray hold for a whole lease.
   */
  private CompletableFuture<Answer> releaseOn(Node n, List<String> keys, String owner, String attempt, String trackId) {
    // Pending from the first call on, so that close() cannot miss a release whose retry is not
    // scheduled yet when the first answer reaches the caller.
    CompletableFuture<Void> done = new CompletableFuture<>();
    pendingReleases.add(done);
    done.whenComplete((v, e) -> pendingReleases.remove(done));
    CompletableFuture<Answer> first = sendRelease(n, keys, owner, attempt, trackId);
    first.whenComplete((a, e) -> {
      if (a != null && a.error() != null && ScriptRunner.isTransient(a.error())) {
        retryRelease(n, keys, owner, attempt, trackId, System.nanoTime() + restartDelayMillis * 1_000_000L, 0, done);
      } else {
        done.complete(null);
      }
    });
    return first;
  }

  /** Tries a release again after a backoff; completes {@code done} when it is over, however. */
  private void retryRelease(Node n, List<String> keys, String owner, String ownAttempt, String trackId, long giveUpAt,
      int attempt, CompletableFuture<Void> done) {
    if (closing || System.nanoTime() - giveUpAt > 0) {
      done.complete(null);
      return;
    }
    try {
      retries.schedule(() -> sendRelease(n, keys, owner, ownAttempt, trackId).whenComplete((a, e) -> {
        if (a != null && a.error() != null && ScriptRunner.isTransient(a.error())) {
          retryRelease(n, keys, owner, ownAttempt, trackId, giveUpAt, attempt + 1, done);
          return;
        }
        done.complete(null);
      }), Retry.backoffNanos(attempt), TimeUnit.NANOSECONDS);
    } catch (java.util.concurrent.RejectedExecutionException closed) {
      done.complete(null);
    }
  }

  /**
   * Sends one call of a full release to node {@code n}. For a release that {@link #releaseAll}
   * counts ({@code trackId} not null), calls to the same node go one at a time: a call waits until
   * the previous one of the same release there has been answered, and one that freed the lock is
   * remembered before its answer is passed on. Otherwise a retry that freed the node on one
   * connection could be answered after a later attempt's call on another connection found the node
   * free and was counted first: a release that freed a majority was then reported as a loss to
   * another owner (the Redlock stress run on Jedis, whose calls travel on several connections).
   */
  private CompletableFuture<Answer> sendRelease(Node n, List<String> keys, String owner, String attempt,
      String trackId) {
    if (trackId == null) {
      return runRelease(n, keys, owner, "1", "0", attempt, "");
    }
    String slot = trackId + " " + n.name();
    CompletableFuture<Answer> mine = new CompletableFuture<>();
    CompletableFuture<Answer> before = releasesOut.put(slot, mine);
    Runnable send = () -> {
      CompletableFuture<Answer> call;
      try {
        call = runRelease(n, keys, owner, "1", "0", attempt, "");
      } catch (RuntimeException e) {
        call = CompletableFuture.completedFuture(new Answer(n, null, e));
      }
      call.whenComplete((a, e) -> {
        if (a != null && a.reply() != null && a.code() == 2) {
          remember(trackId, java.util.Set.of(n.name()));
        }
        releasesOut.remove(slot, mine);
        mine.complete(a != null ? a : new Answer(n, null, e));
      });
    };
    if (before == null) {
      send.run();
    } else {
      before.whenComplete((a, e) -> send.run());
    }
    return mine;
  }

  private CompletableFuture<Answer> runRelease(Node n, List<String> keys, String owner, String all, String force,
      String attempt, String holderChannels) {
    return answer(n, n.scripts().run(NODE_RELEASE, List.of(keys.get(0), freedChannelsKey(keys)),
        List.of(owner, all, force, attempt, holderChannels), keys.get(0)));
  }

  /**
   * Where a master keeps the channels to tell when it frees the lock (see redlock_acquire.lua): the
   * key a single Redis keeps the lock's queue under, unused by Redlock otherwise.
   */
  private static String freedChannelsKey(List<String> keys) {
    return keys.get(0) + ":q";
  }

  private static CompletableFuture<Answer> answer(Node n, CompletableFuture<List<Object>> call) {
    return call.handle((reply, error) -> new Answer(n, error == null ? reply : null, error));
  }

  private CompletableFuture<List<Answer>> onEveryNode(java.util.function.Function<Node, CompletableFuture<Answer>> call,
      List<String> keys) {
    List<CompletableFuture<Answer>> each = new ArrayList<>(nodes.size());
    for (Node n : nodes) {
      try {
        each.add(call.apply(n));
      } catch (RuntimeException e) {
        each.add(CompletableFuture.completedFuture(new Answer(n, null, e)));
      }
    }
    return all(each);
  }

  private static CompletableFuture<List<Answer>> all(List<CompletableFuture<Answer>> each) {
    return CompletableFuture.allOf(each.toArray(new CompletableFuture<?>[0]))
        .thenApply(v -> each.stream().map(CompletableFuture::join).toList());
  }

  /** Whether {@code error} is an error reply that trying again would not change (not LOADING, BUSY, ...). */
  private static boolean refused(Throwable error) {
    if (error == null || ScriptRunner.isTransient(error)) {
      return false;
    }
    for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof io.relock.spi.RedisReplyException) {
        return true;
      }
    }
    return false;
  }

  /** Each node that failed, and why: {@code <node>: <why>}. */
  private static List<String> errors(List<Answer> answers) {
    return answers.stream().filter(a -> a.error() != null).map(a -> a.node().name() + ": " + message(a.error())).toList();
  }

  /**
   * So many nodes answered a call with an error reply (an ACL refusal, say) that no majority is
   * possible: not transient, and the engine reports it as Redis's refusal, node by node.
   */
  static final class RefusedException extends io.relock.spi.RedisReplyException {
    private static final long serialVersionUID = 1L;

    RefusedException(String message) {
      super(message);
    }
  }

  /** Fewer than a majority of nodes could take part; transient: the engine tries again within its wait. */
  static final class RedlockUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RedlockUnavailableException(String message) {
      super(message);
    }
  }
}

package io.relock.internal;

import io.relock.internal.QuorumDriver.Node;
import io.relock.spi.RedisUri;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The masters of a Redlock client, and each call on them one master at a time: what a master is
 * asked (the {@code redlock_*.lua} node scripts, each call bounded by the node timeout) and how
 * its answer comes back (an {@link Answer}: a reply, or why not); the releases tried again in the
 * background on masters that did not answer, and what each full release has freed so far; the
 * node markers (a master's first use, a master that lost its data); and how a call that fewer
 * than a majority could take part in fails, naming each master and why. {@link RedlockDriver}
 * asks the masters through this class and combines their answers into the one a single Redis
 * would give; nothing here calls it.
 */
final class RedlockNodes {
  /** The driver's logger: Redlock's log lines keep the name they are configured under. */
  private static final Logger log = LoggerFactory.getLogger(RedlockDriver.class);

  private static final LuaScript NODE_ACQUIRE = Scripts.REDLOCK_ACQUIRE;
  private static final LuaScript NODE_RELEASE = Scripts.REDLOCK_RELEASE;
  private static final LuaScript NODE_MARK = Scripts.REDLOCK_NODE;

  /** What one node answered to one call: a reply, or why not. */
  record Answer(Node node, List<Object> reply, Throwable error) {
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
  /** Background retries of releases on nodes that did not answer (see {@link #releaseOn}). */
  private final java.util.concurrent.ScheduledThreadPoolExecutor retries;
  private final java.util.Set<CompletableFuture<Void>> pendingReleases = java.util.concurrent.ConcurrentHashMap.newKeySet();
  /**
   * Full releases in doubt, by lock key and owner: the nodes that have released the lock so far,
   * by an earlier attempt or a background retry, and since when. A later attempt of the same
   * release counts them with its own (see RedlockDriver#releaseAll).
   */
  final Map<String, ReleasedOn> releasedSoFar = new java.util.concurrent.ConcurrentHashMap<>();
  /**
   * The latest call of each full release to each node, by release id and node name, until it is
   * answered: the next call of that release to that node waits for it (see {@link #sendRelease}).
   */
  private final Map<String, CompletableFuture<Answer>> releasesOut = new java.util.concurrent.ConcurrentHashMap<>();
  private volatile boolean closing;

  record ReleasedOn(java.util.Set<String> nodes, long sinceNanos) {
    ReleasedOn with(java.util.Set<String> more) {
      java.util.Set<String> all = new java.util.HashSet<>(nodes);
      all.addAll(more);
      return new ReleasedOn(java.util.Set.copyOf(all), sinceNanos);
    }
  }

  /**
   * @param nodes the masters, an odd number of at least three
   * @param restartDelay how long a node that lost its data stays out of every majority
   */
  RedlockNodes(List<Node> nodes, RelockSettings settings, Duration restartDelay) {
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
  }

  int majority() {
    return majority;
  }

  /** The masters. */
  List<Node> nodes() {
    return nodes;
  }

  /** Each master's fence key (see redlock_acquire.lua). */
  String fenceKey() {
    return fenceKey;
  }

  // ---- closing --------------------------------------------------------------------------------

  /**
   * Waits (at most twice the command timeout) for the releases still being tried again on slow
   * nodes, so that a client closing right after a release leaves nothing on them; then closes
   * every node's driver. Releases still under way then (a master paused or unreachable past that
   * wait) go on in the background, each until its node answers or it gives up (see {@link
   * #releaseOn}), and the node drivers are closed after them: closing them now would leave each
   * such hold on its master for a whole lease, for a client that is gone (the Redlock stress
   * suite's lock left on one master after its client closed, seed 20261125).
   */
  void close() {
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

  // ---- failures: fewer than a majority ------------------------------------------------------

  /**
   * Fails (so that the engine tries again within the caller's wait) when fewer than a majority of
   * nodes could take part: the message names every node that could not, and why.
   */
  void requireMajorityAnswered(List<Answer> answers, List<String> keys, int granted) {
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
  static String message(Throwable e) {
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
  RuntimeException withoutMajority(String what, List<Answer> answers, List<String> why) {
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

  // ---- node markers: first use, and nodes that lost their data ------------------------------

  /**
   * Marks nodes that have no marker. If every node answered without one, this is a first use:
   * all are marked at once. Otherwise the unmarked nodes lost their data: each gets the delayed
   * restart and a fence floor, provided enough marked nodes answered to cover every token
   * written to a majority before (more than N − majority of them). Completes with whether a node
   * became usable at once (so the attempt is worth repeating).
   *
   * <p>One case would otherwise keep the nodes out for good: every node answered, and too few of
   * them have a marker to cover the fence, so waiting for more answers cannot help. That is a first
   * use whose marking was cut short (a marker call that timed out unsent on a busy client), or a
   * majority that lost its data at once (outside what Redlock promises). The unmarked nodes then
   * get the delayed restart with the floor the marked ones give: it keeps them from granting a lock
   * that may still be held for as long as any lease lasts, and tokens still rise with the servers'
   * clocks, which every fence follows.
   */
  CompletableFuture<Boolean> mark(List<Answer> unmarked, List<Answer> answers) {
    if (unmarked.size() == nodes.size()) {
      List<CompletableFuture<Answer>> inits = new ArrayList<>();
      for (Answer a : unmarked) {
        inits.add(init(a.node()));
      }
      // A marker call that failed (timed out unsent on a busy client, say) is sent once more: a
      // first use left half marked looks like nodes that lost their data, and waits out the
      // delayed restart. Marking a node twice changes nothing.
      return all(inits).thenCompose(done -> {
        List<CompletableFuture<Answer>> again = new ArrayList<>();
        for (Answer d : done) {
          if (d.reply() == null) {
            again.add(init(d.node()));
          }
        }
        return all(again).thenApply(retried -> true);
      });
    }
    long marked = answers.stream().filter(a -> a.reply() != null && a.code() != -9).count();
    boolean everyNodeAnswered = answers.size() == nodes.size() && answers.stream().allMatch(a -> a.reply() != null);
    long cover = everyNodeAnswered ? Math.min(marked, nodes.size() - majority + 1) : nodes.size() - majority + 1;
    if (marked < cover) {
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
      if (read < cover) {
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

  private CompletableFuture<Answer> init(Node n) {
    return answer(n, n.scripts().run(NODE_MARK, List.of(markerKey, fenceKey), List.of("init", "0", "0"),
        "(Redlock node marker)"));
  }

  // ---- calls on one master ---------------------------------------------------------------

  CompletableFuture<Answer> runAcquire(Node n, List<String> keys, String owner, String lease, String mode,
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
  CompletableFuture<Answer> releaseOn(Node n, List<String> keys, String owner, String attempt, String trackId) {
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
   * Sends one call of a full release to node {@code n}. For a release that RedlockDriver#releaseAll
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

  CompletableFuture<Answer> runRelease(Node n, List<String> keys, String owner, String all, String force,
      String attempt, String holderChannels) {
    return answer(n, n.scripts().run(NODE_RELEASE, List.of(keys.get(0), freedChannelsKey(keys)),
        List.of(owner, all, force, attempt, holderChannels), keys.get(0)));
  }

  /**
   * Adds {@code nodes} to what release {@code id} freed so far, and forgets releases older than
   * any retry of theirs (the engine and the background retries give up within the longest lease).
   */
  void remember(String id, java.util.Set<String> nodes) {
    long now = System.nanoTime();
    long stale = (restartDelayMillis + 2 * settings.commandTimeout().toMillis()) * 1_000_000L;
    releasedSoFar.values().removeIf(r -> now - r.sinceNanos() > stale);
    releasedSoFar.merge(id, new ReleasedOn(java.util.Set.copyOf(nodes), now), (old, more) -> old.with(more.nodes()));
  }

  /**
   * Where a master keeps the channels to tell when it frees the lock (see redlock_acquire.lua): the
   * key a single Redis keeps the lock's queue under, unused by Redlock otherwise.
   */
  private static String freedChannelsKey(List<String> keys) {
    return keys.get(0) + ":q";
  }

  static CompletableFuture<Answer> answer(Node n, CompletableFuture<List<Object>> call) {
    return call.handle((reply, error) -> new Answer(n, error == null ? reply : null, error));
  }

  CompletableFuture<List<Answer>> onEveryNode(java.util.function.Function<Node, CompletableFuture<Answer>> call,
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

  static CompletableFuture<List<Answer>> all(List<CompletableFuture<Answer>> each) {
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
  static List<String> errors(List<Answer> answers) {
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

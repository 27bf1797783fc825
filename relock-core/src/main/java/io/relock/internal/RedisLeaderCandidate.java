package io.relock.internal;

import io.relock.LeaderCandidate;
import io.relock.LeaderListener;
import io.relock.Leadership;
import io.relock.LockLostException;
import io.relock.RelockException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link LeaderCandidate} over the exclusive lock of its name: an acquisition that waits without
 * limit, a hold renewed by the watchdog whose fencing token is the term, its {@code onLost} turned
 * into a revocation, and a new acquisition after each leadership ends.
 *
 * <p>All of the candidate's state is owned by its one thread ({@link #runner}): the engine's
 * completions, loss reports and timers post events to it, public methods post to it and wait, and
 * the listeners are called on it. Only {@link #current} (for {@link #leadership()}) and the closed
 * flag are read from other threads.
 */
public final class RedisLeaderCandidate implements LeaderCandidate {
  private static final Logger log = LoggerFactory.getLogger(RedisLeaderCandidate.class);

  private enum Phase { NEW, RUNNING, CLOSED }

  private final LockEngine engine;
  private final String name;
  private final ThreadPoolExecutor runner;
  private final List<Registered> listeners = new CopyOnWriteArrayList<>();
  private final AtomicBoolean started = new AtomicBoolean();
  /** The thread running one of {@link #runner}'s tasks now, if any: calls from it run on the spot. */
  private volatile Thread running;
  /** For {@link #awaitLeadership}: notified when the candidate is elected or closed. */
  private final Object elections = new Object();

  // Owned by the runner.
  private Phase phase = Phase.NEW;
  /** The acquisition under way, while the candidate waits. */
  private LockEngine.Pending pending;
  /** Failures in a row of the acquisition, for its backoff. */
  private int failures;
  /** The leadership held now; written by the runner, read by any thread. */
  private volatile Term current;
  private volatile boolean closed;

  /** A candidate for the election {@code name}, not started. */
  public RedisLeaderCandidate(LockEngine engine, String name) {
    this.engine = engine;
    this.name = name;
    String thread = "relock-leader-" + (name.length() <= 24 ? name : name.substring(0, 24)) + "-"
        + engine.clientId().substring(0, 8);
    // One thread at most, which ends when idle: a candidate mostly waits on Redis, not on it.
    this.runner = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
      Thread t = new Thread(r, thread);
      t.setDaemon(true);
      return t;
    });
    this.runner.allowCoreThreadTimeOut(true);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void addListener(LeaderListener listener) {
    Objects.requireNonNull(listener, "listener");
    Registered r = new Registered(listener);
    listeners.add(r);
    // A leader's new listener hears of the leadership on the runner, unless it heard of it (or of
    // a later one) there first: it hears onRevoked only for what it heard elected.
    post(() -> {
      Term t = current;
      if (t != null && r.elected == null && listeners.contains(r)) {
        r.elected = t;
        call(r, l -> l.onElected(t), "onElected");
      }
    });
  }

  @Override
  public void removeListener(LeaderListener listener) {
    listeners.removeIf(r -> r.listener == listener);
  }

  @Override
  public void start() {
    if (closed) {
      throw new IllegalStateException("leader candidate '" + name + "' is closed; get a new one from Relock.leader");
    }
    if (!started.compareAndSet(false, true)) {
      throw new IllegalStateException("leader candidate '" + name + "' was already started");
    }
    if (!engine.enlist(this)) {
      // The client's close would not close it: it could be elected, then lose the lock unheard.
      closed = true;
      runner.shutdown();
      throw new RelockException("client is closed; leader candidate '" + name + "' cannot start");
    }
    post(() -> {
      if (phase == Phase.NEW) {
        phase = Phase.RUNNING;
        join();
      }
    });
  }

  @Override
  public boolean isLeader() {
    return leadership().isPresent();
  }

  @Override
  public Optional<Leadership> leadership() {
    Term t = current;
    return t != null && t.isValid() ? Optional.of(t) : Optional.empty();
  }

  @Override
  public Leadership awaitLeadership() throws InterruptedException {
    synchronized (elections) {
      while (true) {
        Optional<Leadership> now = leadershipUnlessClosed();
        if (now.isPresent()) {
          return now.get();
        }
        elections.wait();
      }
    }
  }

  @Override
  public Optional<Leadership> awaitLeadership(Duration timeout) throws InterruptedException {
    Checks.nonNegative("timeout", timeout);
    long deadline = System.nanoTime() + Math.min(Acquisition.saturatedNanos(timeout), Long.MAX_VALUE / 2);
    synchronized (elections) {
      while (true) {
        Optional<Leadership> now = leadershipUnlessClosed();
        long left = deadline - System.nanoTime();
        if (now.isPresent() || left <= 0) {
          return now;
        }
        TimeUnit.NANOSECONDS.timedWait(elections, left);
      }
    }
  }

  private Optional<Leadership> leadershipUnlessClosed() {
    if (closed) {
      throw new IllegalStateException("leader candidate '" + name + "' is closed");
    }
    return leadership();
  }

  @Override
  public boolean yieldLeadership() {
    Boolean yielded = onRunner(this::yieldNow);
    return yielded != null && yielded;
  }

  @Override
  public void close() {
    closed = true;
    onRunner(() -> {
      closeNow();
      return null;
    });
    runner.shutdown();
  }

  /**
   * Closes the candidate because its client closes: as {@link #close()}, without waiting (the
   * client bounds its wait, so that a listener that blocks cannot hold its close up for long).
   *
   * @return completes once the candidate is closed
   */
  CompletableFuture<Void> closeForClient() {
    closed = true;
    CompletableFuture<Void> done = new CompletableFuture<>();
    if (Thread.currentThread() == running) {
      closeNow();
      done.complete(null);
    } else if (!post(() -> {
      closeNow();
      done.complete(null);
    })) {
      done.complete(null); // closed before
    }
    runner.shutdown();
    return done;
  }

  // ---- on the runner --------------------------------------------------------------------------

  /** Starts waiting for the lock, unless the candidate already waits, leads or is closed. */
  private void join() {
    if (phase != Phase.RUNNING || pending != null || current != null) {
      return;
    }
    LockEngine.Pending p;
    try {
      p = engine.acquire(LockKind.EXCLUSIVE, name, -1, null, null);
    } catch (RelockException clientClosed) {
      log.debug("leader candidate '{}' stops: {}", name, clientClosed.getMessage());
      return;
    }
    pending = p;
    p.result().whenComplete((h, error) -> {
      if (!post(() -> acquired(p, h, error)) && h != null) {
        engine.abandonLease(h); // the candidate closed meanwhile
      }
    });
  }

  private void acquired(LockEngine.Pending p, HeldLease h, Throwable error) {
    if (p != pending || phase != Phase.RUNNING) {
      if (h != null) {
        engine.abandonLease(h); // withdrawn by a close it outran; closing again does nothing
      }
      return;
    }
    pending = null;
    if (error != null) {
      if (engine.isClosed()) {
        return;
      }
      long backoff = Retry.backoffNanos(failures++);
      log.warn("leader candidate '{}' could not wait for the lock ({}); trying again in {} ms", name,
          Waiting.unchecked(error).getMessage(), TimeUnit.NANOSECONDS.toMillis(backoff));
      engine.schedule(backoff, () -> post(this::join));
      return;
    }
    failures = 0;
    Term t = new Term(name, h);
    current = t;
    synchronized (elections) {
      elections.notifyAll();
    }
    log.debug("leader candidate '{}' elected, term {}", name, t.term());
    h.onLost(() -> post(() -> lost(t)));
    for (Registered r : listeners) {
      if (t.ended) {
        break; // a listener yielded it, or closed the candidate: the others never hear of it
      }
      if (r.elected == null) {
        r.elected = t;
        call(r, x -> x.onElected(t), "onElected");
      }
    }
  }

  /** {@code t}'s lease was lost: revoke it, unless it already ended, and wait again. */
  private void lost(Term t) {
    if (current != t) {
      return;
    }
    log.info("leader candidate '{}' lost its leadership (term {}): {}", name, t.term(), t.lease.lostReason());
    revoke(t);
    engine.abandonLease(t.lease); // drops the lost hold; another owner's lock is left alone
    join();
  }

  private Boolean yieldNow() {
    Term t = current;
    if (phase != Phase.RUNNING || t == null) {
      return false;
    }
    revoke(t);
    release(t);
    if (engine.settings().redlockRestartDelay() != null) {
      // Redlock has no queue: released, the lock goes to whoever asks first. Stand back for a
      // recheck interval, within which every waiting candidate retries at least once.
      engine.schedule(engine.settings().recheckInterval().toNanos(), () -> post(this::join));
    } else {
      join();
    }
    return true;
  }

  private void closeNow() {
    if (phase == Phase.CLOSED) {
      return;
    }
    phase = Phase.CLOSED;
    closed = true;
    engine.discharge(this);
    LockEngine.Pending p = pending;
    pending = null;
    if (p != null) {
      CompletableFuture<HeldLease> withdrawn =
          p.withdraw(new CancellationException("leader candidate '" + name + "' closed"));
      try {
        HeldLease won = Waiting.awaitUninterruptibly(withdrawn, engine.settings().commandTimeout().multipliedBy(2));
        if (won != null) {
          release(new Term(name, won));
        }
      } catch (TimeoutException | RuntimeException e) {
        log.debug("leader candidate '{}': withdrawing its wait goes on in the background ({})", name, e.toString());
      }
    }
    Term t = current;
    if (t != null) {
      revoke(t);
      release(t);
    }
    synchronized (elections) {
      elections.notifyAll();
    }
  }

  /**
   * Ends {@code t}: it turns invalid, then every listener that heard it elected hears it revoked
   * (a yield or close from a listener's onElected ends it before the later listeners heard it).
   */
  private void revoke(Term t) {
    t.ended = true;
    current = null;
    for (Registered r : listeners) {
      if (r.elected == t) {
        r.elected = null;
        call(r, x -> x.onRevoked(t), "onRevoked");
      }
    }
  }

  /** Releases {@code t}'s lock and waits for Redis to confirm, as bounded as a lease's close. */
  private void release(Term t) {
    try {
      t.lease.close();
    } catch (LockLostException e) {
      log.debug("leader candidate '{}': the lock was lost before its release ({})", name, e.getMessage());
    } catch (RelockException e) {
      log.warn("leader candidate '{}': {}", name, e.getMessage());
    }
  }

  private void call(Registered r, Consumer<LeaderListener> event, String what) {
    try {
      event.accept(r.listener);
    } catch (RuntimeException | Error e) {
      log.error("{} of leader listener {} (election '{}') threw; ignored", what, r.listener, name, e);
    }
  }

  /** A listener, and the leadership it last heard elected and not yet revoked; owned by the runner. */
  private static final class Registered {
    final LeaderListener listener;
    Term elected;

    Registered(LeaderListener listener) {
      this.listener = listener;
    }
  }

  // ---- the runner -----------------------------------------------------------------------------

  /** Runs {@code task} on the runner; false if the candidate is closed and the runner stopped. */
  private boolean post(Runnable task) {
    try {
      runner.execute(() -> {
        running = Thread.currentThread();
        try {
          task.run();
        } catch (RuntimeException | Error e) {
          log.error("leader candidate '{}' failed", name, e);
        } finally {
          running = null;
        }
      });
      return true;
    } catch (RejectedExecutionException stopped) {
      return false;
    }
  }

  /**
   * Runs {@code task} on the runner and waits for it (ignoring interrupts, the flag restored); on
   * the spot if called from the runner. Null if the runner stopped.
   */
  private <T> T onRunner(Supplier<T> task) {
    if (Thread.currentThread() == running) {
      return task.get();
    }
    CompletableFuture<T> done = new CompletableFuture<>();
    if (!post(() -> {
      try {
        done.complete(task.get());
      } catch (RuntimeException | Error e) {
        done.completeExceptionally(e);
        throw e;
      }
    })) {
      return null;
    }
    return Waiting.await(done);
  }

  @Override
  public String toString() {
    Term t = current;
    return "LeaderCandidate[" + name + (t != null ? ", leader, term " + t.term() : closed ? ", closed" : "") + "]";
  }

  /** One leadership: the hold that made it, and whether it was ended. */
  static final class Term implements Leadership {
    private final String name;
    final HeldLease lease;
    volatile boolean ended;

    Term(String name, HeldLease lease) {
      this.name = name;
      this.lease = lease;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public long term() {
      return lease.fencingToken();
    }

    @Override
    public boolean isValid() {
      return !ended && lease.isValid();
    }

    @Override
    public String toString() {
      return "Leadership[" + name + ", term " + term() + (isValid() ? ", valid" : ", ended") + "]";
    }
  }
}

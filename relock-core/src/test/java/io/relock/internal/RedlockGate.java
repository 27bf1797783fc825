package io.relock.internal;

import io.relock.Relock;
import io.relock.spi.CommandNotSentException;
import io.relock.spi.RedisDriver;
import io.relock.spi.RedisTarget;
import java.lang.reflect.Constructor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A Redlock client whose masters are reached through the driver on the class path, with a gate in
 * front of one master's driver that the test steers, so that a race between two calls of one
 * release to that master happens in a chosen order, on real Redis servers:
 *
 * <ul>
 *   <li>{@link #cutOff()}: every call to the gated master fails at once, unsent (as a driver that
 *       cannot open a connection fails it);
 *   <li>{@link #passOneBackgroundRetry()}: the next release call that Redlock's background retry
 *       thread sends to it goes to Redis; its answer is held back until {@link #deliverHeld()},
 *       as if it came late on another connection. Every later call goes through as usual.
 * </ul>
 *
 * Each master's release calls are counted, so that the test can wait for what the client does.
 */
public final class RedlockGate {
  private static final String RETRY_THREAD = "relock-redlock-retry";

  private final Relock client;
  private final Counting[] masters;
  private final Gated gated;

  private RedlockGate(Relock client, Counting[] masters, Gated gated) {
    this.client = client;
    this.masters = masters;
    this.gated = gated;
  }

  /**
   * Connects a Redlock client to {@code uris} with {@code commandTimeout}, the master at {@code
   * gatedIndex} behind the gate.
   */
  public static RedlockGate connect(String[] uris, Duration commandTimeout, int gatedIndex) throws Exception {
    RelockSettings.Mutable m = RelockSettings.defaults().toMutable();
    m.commandTimeout = commandTimeout;
    RelockSettings settings = Topologies.redlockSettings(m.freeze());
    RelockSettings.Mutable perNode = settings.toMutable();
    perNode.commandTimeout = commandTimeout.dividedBy(4);
    RelockSettings nodeSettings = perNode.freeze();
    List<RedlockDriver.Node> nodes = new ArrayList<>();
    Counting[] counted = new Counting[uris.length];
    Gated gated = null;
    for (int i = 0; i < uris.length; i++) {
      RedisDriver real = DriverLoader.connect(RedisTarget.single(uris[i]), nodeSettings);
      counted[i] = i == gatedIndex ? (gated = new Gated(real)) : new Counting(real);
      nodes.add(new RedlockDriver.Node(uris[i], counted[i], new ScriptRunner(counted[i], nodeSettings.commandTimeout(),
          uris[i])));
    }
    counted[0].watcher = gated;
    counted[0].first = true;
    counted[uris.length - 1].watcher = gated;
    gated.last = counted[uris.length - 1];
    LockEngine engine = LockEngine.start(new RedlockDriver(nodes, settings, settings.redlockRestartDelay()), settings,
        "redlock (gated)");
    Constructor<Relock> make = Relock.class.getDeclaredConstructor(LockEngine.class, String.class);
    make.setAccessible(true);
    return new RedlockGate(make.newInstance(engine, "redlock"), counted, gated);
  }

  public Relock client() {
    return client;
  }

  /** Every later call to the gated master fails at once, unsent. */
  public void cutOff() {
    gated.mode = Mode.CUT_OFF;
  }

  /** See the class description. */
  public void passOneBackgroundRetry() {
    gated.mode = Mode.PASS_ONE_RETRY;
  }

  /** Whether a background retry's release call went through and Redis answered it (held back from the client). */
  public boolean holding() {
    return gated.heldAnswer.isDone();
  }

  /** What Redis answered the held call; call once {@link #holding()}. */
  public List<Object> heldAnswer() {
    return gated.heldAnswer.join();
  }

  /** Release calls that the gated master got from the client after the held one. */
  public long gatedCallsAfterHeld() {
    return gated.callsAfterHeld.get();
  }

  /**
   * Whether an attempt of the client that began after the held call was sent has been answered by
   * the last master: the first master got a release call after the held one, and the last master
   * has answered one sent after that. Each attempt asks the masters in order, on one thread, so
   * that attempt has by then asked the gated master too, unless the client kept that call back.
   */
  public boolean laterAttemptAnsweredByLastMaster() {
    return gated.laterAnswered.get() > 0;
  }

  /** Hands the held answer to the client. */
  public void deliverHeld() {
    gated.deliver.complete(null);
  }

  private enum Mode { OPEN, CUT_OFF, PASS_ONE_RETRY, PASSED }

  /** A master's real driver, numbering the release calls sent to it. */
  private static class Counting implements RedisDriver {
    final RedisDriver real;
    /** Release calls the client sent here so far. */
    final AtomicLong releasesSent = new AtomicLong();
    /** Set on the first and the last master: the gate, which watches them. */
    volatile Gated watcher;
    volatile boolean first;

    Counting(RedisDriver real) {
      this.real = real;
    }

    static boolean isRelease(String sha1) {
      return Scripts.REDLOCK_RELEASE.sha1().equals(sha1);
    }

    @Override
    public CompletableFuture<List<Object>> evalSha(String sha1, List<String> keys, List<String> args) {
      if (!isRelease(sha1)) {
        return real.evalSha(sha1, keys, args);
      }
      long sent = releasesSent.incrementAndGet();
      Gated g = watcher;
      if (g != null && first) {
        g.firstMasterAsked();
      }
      CompletableFuture<List<Object>> f = real.evalSha(sha1, keys, args);
      return g == null || first ? f : f.whenComplete((r, e) -> g.lastMasterAnswered(sent));
    }

    @Override
    public CompletableFuture<String> scriptLoad(String script) {
      return real.scriptLoad(script);
    }

    @Override
    public CompletableFuture<Void> subscribe(String channel, Consumer<String> listener) {
      return real.subscribe(channel, listener);
    }

    @Override
    public void onReconnect(Runnable listener) {
      real.onReconnect(listener);
    }

    @Override
    public boolean timesOutCommands() {
      return real.timesOutCommands();
    }

    @Override
    public void close() {
      real.close();
    }
  }

  private static final class Gated extends Counting {
    volatile Mode mode = Mode.OPEN;
    final CompletableFuture<List<Object>> heldAnswer = new CompletableFuture<>();
    final CompletableFuture<Void> deliver = new CompletableFuture<>();
    final AtomicLong callsAfterHeld = new AtomicLong();
    final AtomicLong laterAnswered = new AtomicLong();
    /** The last master, and how many release calls it had got when the first master got one after the held call. */
    volatile Counting last;
    private volatile long lastSentBefore = -1;

    /** The first master got a release call: the first one after the held call sets the mark. */
    synchronized void firstMasterAsked() {
      if (mode == Mode.PASSED && lastSentBefore < 0) {
        lastSentBefore = last.releasesSent.get();
      }
    }

    void lastMasterAnswered(long sent) {
      long mark = lastSentBefore;
      if (mark >= 0 && sent > mark) {
        laterAnswered.incrementAndGet();
      }
    }

    Gated(RedisDriver real) {
      super(real);
    }

    @Override
    public CompletableFuture<List<Object>> evalSha(String sha1, List<String> keys, List<String> args) {
      Mode now = mode;
      if (now == Mode.PASSED && isRelease(sha1)) {
        callsAfterHeld.incrementAndGet();
      }
      if (now == Mode.CUT_OFF
          || now == Mode.PASS_ONE_RETRY && !(isRelease(sha1) && Thread.currentThread().getName().startsWith(RETRY_THREAD))) {
        return CompletableFuture.failedFuture(new CommandNotSentException("gated off by the test; not sent", null));
      }
      if (now != Mode.PASS_ONE_RETRY) {
        return super.evalSha(sha1, keys, args);
      }
      mode = Mode.PASSED;
      CompletableFuture<List<Object>> toClient = new CompletableFuture<>();
      super.evalSha(sha1, keys, args).whenComplete((reply, error) -> {
        if (error != null) {
          heldAnswer.completeExceptionally(error);
        } else {
          heldAnswer.complete(reply);
        }
        deliver.whenComplete((v, e) -> {
          if (error != null) {
            toClient.completeExceptionally(error);
          } else {
            toClient.complete(reply);
          }
        });
      });
      return toClient;
    }
  }
}

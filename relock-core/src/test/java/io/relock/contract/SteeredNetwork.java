package io.relock.contract;

import io.relock.internal.LuaScript;
import io.relock.spi.CommandNotSentException;
import io.relock.spi.RedisDriver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A network the test steers call by call, so that a reply comes at the moment a race needs:
 * everything runs on the real driver, against the real Redis, and every notification is
 * delivered, except the calls the test singled out beforehand. Each arrangement applies to the
 * next call it matches, once:
 *
 * <ul>
 *   <li>{@link #holdReply}: the call runs in Redis at once; its reply reaches the client only at
 *       {@link Held#deliver()}.
 *   <li>{@link #holdUnsent}: the call waits, unsent, until {@link Held#deliver()} sends it, even
 *       if the client's command timeout has failed it meanwhile (a request that outlives its call).
 *   <li>{@link #failUnsent}: the call fails at once, unsent (as a driver whose connection is down).
 *   <li>{@link #outageAfter}: the call runs in Redis; then the network goes down before its reply
 *       arrives (the client's command timeout fails it), and every later call fails unsent until
 *       {@link #endOutage()}, which also tells the client it has reconnected.
 * </ul>
 *
 * Calls bounded by the client's command timeout: this network does not time out its own.
 */
final class SteeredNetwork implements RedisDriver {
  /** One call as the engine makes it. */
  record Call(String sha1, List<String> keys, List<String> args) {
    boolean runs(LuaScript script) {
      return script.sha1().equals(sha1);
    }

    boolean on(String key) {
      return !keys.isEmpty() && keys.get(0).equals(key);
    }
  }

  private enum Kind { HOLD_REPLY, HOLD_UNSENT, FAIL_UNSENT, OUTAGE_AFTER }

  /** A call the test singled out, once it has come. */
  static final class Held {
    private final Kind kind;
    private final Predicate<Call> which;
    private final CompletableFuture<Call> came = new CompletableFuture<>();
    private final CompletableFuture<List<Object>> answered = new CompletableFuture<>();
    private final CompletableFuture<Void> delivered = new CompletableFuture<>();

    private Held(Kind kind, Predicate<Call> which) {
      this.kind = kind;
      this.which = which;
    }

    /** Whether the call has come to the network (sent to Redis or not, as arranged). */
    boolean came() {
      return came.isDone();
    }

    /** Whether Redis has run the call and answered (the client may not have the answer yet). */
    boolean ranInRedis() {
      return answered.isDone();
    }

    /** Sends the call held unsent, or hands the held reply to the client. */
    void deliver() {
      delivered.complete(null);
    }
  }

  private final RedisDriver real;
  private final List<Held> arranged = new CopyOnWriteArrayList<>();
  private final List<String> heard = new CopyOnWriteArrayList<>();
  private final List<Runnable> reconnectListeners = new CopyOnWriteArrayList<>();
  private volatile boolean down;

  SteeredNetwork(RedisDriver real) {
    this.real = real;
  }

  Held holdReply(Predicate<Call> which) {
    return arrange(Kind.HOLD_REPLY, which);
  }

  Held holdUnsent(Predicate<Call> which) {
    return arrange(Kind.HOLD_UNSENT, which);
  }

  Held failUnsent(Predicate<Call> which) {
    return arrange(Kind.FAIL_UNSENT, which);
  }

  Held outageAfter(Predicate<Call> which) {
    return arrange(Kind.OUTAGE_AFTER, which);
  }

  private Held arrange(Kind kind, Predicate<Call> which) {
    Held h = new Held(kind, which);
    arranged.add(h);
    return h;
  }

  /** Whether the outage that {@link #outageAfter} began is on. */
  boolean isDown() {
    return down;
  }

  /** Ends the outage, and tells the client its connections are back (as a driver does). */
  void endOutage() {
    down = false;
    reconnectListeners.forEach(Runnable::run);
  }

  /** Whether the client has been handed (and has handled) a notification that begins with {@code prefix}. */
  boolean heard(String prefix) {
    return heard.stream().anyMatch(m -> m.startsWith(prefix));
  }

  @Override
  public CompletableFuture<List<Object>> evalSha(String sha1, List<String> keys, List<String> args) {
    if (down) {
      return unsent();
    }
    Call call = new Call(sha1, keys, args);
    Held h = claim(call);
    if (h == null) {
      return real.evalSha(sha1, keys, args);
    }
    h.came.complete(call);
    switch (h.kind) {
      case FAIL_UNSENT -> {
        return unsent();
      }
      case HOLD_UNSENT -> {
        // Sent at deliver() even if the client has given up on the call meanwhile (its command
        // timeout): a request that outlives its call, whose reply nobody reads.
        CompletableFuture<List<Object>> result = new CompletableFuture<>();
        h.delivered.thenRun(() -> real.evalSha(sha1, keys, args).whenComplete((r, e) -> {
          if (e != null) {
            result.completeExceptionally(e);
            return;
          }
          h.answered.complete(r);
          result.complete(r);
        }));
        return result;
      }
      case HOLD_REPLY -> {
        return real.evalSha(sha1, keys, args).thenCompose(r -> {
          h.answered.complete(r);
          return h.delivered.thenApply(v -> r);
        }).whenComplete((r, e) -> rearmIfRefused(h, e));
      }
      default -> {
        CompletableFuture<List<Object>> lost = new CompletableFuture<>(); // the reply is lost with the connection
        real.evalSha(sha1, keys, args).whenComplete((r, e) -> {
          if (e != null) {
            rearmIfRefused(h, e);
            lost.completeExceptionally(e);
            return;
          }
          down = true; // before the answer is known to have come: nothing else may get through
          h.answered.complete(r);
        });
        return lost;
      }
    }
  }

  /**
   * A call Redis refused (NOSCRIPT, before the client loads the script and sends it again) did not
   * run: the arrangement waits for the next matching call.
   */
  private void rearmIfRefused(Held h, Throwable error) {
    if (error != null && !h.answered.isDone()) {
      arranged.add(0, h);
    }
  }

  /** The first arrangement {@code call} matches, taken off the list; or null. */
  private synchronized Held claim(Call call) {
    for (Held h : arranged) {
      if (h.which.test(call)) {
        arranged.remove(h);
        return h;
      }
    }
    return null;
  }

  private static <T> CompletableFuture<T> unsent() {
    return CompletableFuture.failedFuture(new CommandNotSentException("the network is down (steered by the test)", null));
  }

  @Override
  public CompletableFuture<String> scriptLoad(String script) {
    return down ? unsent() : real.scriptLoad(script);
  }

  @Override
  public CompletableFuture<Void> subscribe(String channel, Consumer<String> listener) {
    return real.subscribe(channel, message -> {
      listener.accept(message);
      heard.add(message);
    });
  }

  @Override
  public void onReconnect(Runnable listener) {
    reconnectListeners.add(listener);
    real.onReconnect(listener);
  }

  @Override
  public void close() {
    real.close();
  }

  /** For messages: what is still arranged. */
  @Override
  public String toString() {
    List<String> left = new ArrayList<>();
    arranged.forEach(h -> left.add(h.kind.name()));
    return "SteeredNetwork" + left;
  }
}

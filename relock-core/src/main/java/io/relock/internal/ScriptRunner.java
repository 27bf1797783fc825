package io.relock.internal;

import io.relock.RelockException;
import io.relock.spi.CommandNotSentException;
import io.relock.spi.RedisDriver;
import io.relock.spi.RedisReplyException;
import io.relock.spi.RedisUri;
import io.relock.spi.ReplicatedReply;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * Runs scripts by SHA through the driver: loads a script that Redis does not know (after SCRIPT
 * FLUSH, a restart or a failover) and retries once, bounds every call by the command timeout, and
 * turns failures into {@link RelockException}s that name the lock.
 */
final class ScriptRunner {
  private final RedisDriver driver;
  private final Duration timeout;
  /** " (on <topology>)" for messages, or "". */
  private final String on;

  /** Who hears about each call; null for a Redlock master's own runner (its engine's runner reports the call). */
  private final Listeners listeners;
  /** Hides passwords in the text of the driver's exceptions (see {@link io.relock.spi.RedisTarget#redact}). */
  private final UnaryOperator<String> redaction;

  ScriptRunner(RedisDriver driver, Duration timeout, String where) {
    this(driver, timeout, where, RedisUri::redact);
  }

  ScriptRunner(RedisDriver driver, Duration timeout, String where, UnaryOperator<String> redaction) {
    this(driver, timeout, where, redaction, null);
  }

  /**
   * @param where what the driver connects to, passwords hidden, for messages; or null
   * @param redaction hides passwords in the text of the driver's exceptions
   * @param listeners who hears about each call; null for none
   */
  ScriptRunner(RedisDriver driver, Duration timeout, String where, UnaryOperator<String> redaction,
      Listeners listeners) {
    this.listeners = listeners;
    this.driver = driver;
    this.timeout = timeout;
    this.on = where == null ? "" : " (" + where + ")";
    this.redaction = redaction;
  }

  /**
   * Runs {@code script}. The future fails only with {@link RelockException}.
   *
   * @param what the lock name (or a description) for error messages
   */
  CompletableFuture<List<Object>> run(LuaScript script, List<String> keys, List<String> args, String what) {
    return run(script, keys, what, sha -> driver.evalSha(sha, keys, args));
  }

  /**
   * Runs {@code script}, then Redis's {@code WAIT replicas timeout} on the same connection (see
   * {@link RedisDriver#evalShaReplicated}). The future fails only with {@link RelockException}.
   */
  CompletableFuture<ReplicatedReply> runReplicated(LuaScript script, List<String> keys, List<String> args,
      String what, int replicas, Duration waitTimeout) {
    return run(script, keys, what, sha -> driver.evalShaReplicated(sha, keys, args, replicas, waitTimeout));
  }

  /**
   * Runs {@code script}, which takes no keys, on every primary (see {@link
   * RedisDriver#evalShaOnEveryPrimary}). The future fails only with {@link RelockException}.
   */
  CompletableFuture<java.util.Map<String, List<Object>>> runOnEveryPrimary(LuaScript script,
      Function<String, List<String>> argsFor, String what) {
    return run(script, List.of(), what, sha -> driver.evalShaOnEveryPrimary(sha, argsFor));
  }

  private <T> CompletableFuture<T> run(LuaScript script, List<String> keys, String what,
      Function<String, CompletableFuture<T>> evalSha) {
    CompletableFuture<T> result = new CompletableFuture<>();
    long began = System.nanoTime();
    call(script, evalSha).whenComplete((reply, error) -> {
      if (error == null) {
        finish(result, script, began, reply, null);
        return;
      }
      Throwable cause = unwrap(error);
      if (cause instanceof RedisReplyException r && r.isNoScript()) {
        driver.scriptLoad(script.source())
            .thenCompose(sha -> call(script, evalSha))
            .whenComplete((again, error2) -> finish(result, script, began, again,
                error2 == null ? null : translate(unwrap(error2), script, keys, what)));
      } else {
        finish(result, script, began, null, translate(cause, script, keys, what));
      }
    });
    return result;
  }

  /**
   * Completes {@code result}, after telling the listeners of the call: they hear of it before the
   * caller sees its reply, so a listener removed after a call returned has heard of it already.
   */
  private <T> void finish(CompletableFuture<T> result, LuaScript script, long began, T reply, RelockException error) {
    if (listeners != null && listeners.any()) {
      Duration took = Duration.ofNanos(System.nanoTime() - began);
      listeners.emit(l -> l.redisCall(script.toString(), took, error));
    }
    if (error == null) {
      result.complete(reply);
    } else {
      result.completeExceptionally(error);
    }
  }

  private <T> CompletableFuture<T> call(LuaScript script, Function<String, CompletableFuture<T>> evalSha) {
    CompletableFuture<T> f;
    try {
      f = evalSha.apply(script.sha1());
    } catch (RuntimeException e) {
      f = CompletableFuture.failedFuture(e);
    }
    // Asked per call: a Redlock master connected late (LateDriver) answers for its driver only
    // once it has one.
    return driver.timesOutCommands() ? f : f.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Whether a failed call may succeed if tried again: Redis could not be reached or did not answer
   * in time (its outcome is then unknown), or it answered with an error that passes (loading its
   * data, busy with a script, a failover under way). Not: an error reply about the call itself
   * (a key of the wrong type, a script error), or a reply of the wrong shape.
   */
  static boolean isTransient(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof UnexpectedReplyException) {
        return false;
      }
      if (t instanceof RedisReplyException reply) {
        String m = String.valueOf(reply.getMessage());
        for (String passing : PASSING_ERRORS) {
          if (m.startsWith(passing)) {
            return true;
          }
        }
        return false;
      }
    }
    return true;
  }

  /**
   * Whether Redis may have run the command that failed with {@code error}: not when it answered
   * with an error reply, nor when the driver says it never sent it ({@link CommandNotSentException});
   * otherwise (a timeout, a reset connection) nobody can tell.
   */
  static boolean mayHaveRun(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof RedisReplyException || t instanceof CommandNotSentException) {
        return false;
      }
    }
    return true;
  }

  /** Error replies that say "not now" rather than "never". */
  private static final String[] PASSING_ERRORS =
      {"LOADING", "BUSY", "TRYAGAIN", "MASTERDOWN", "READONLY", "CLUSTERDOWN", "NOREPLICAS", "NOSCRIPT",
          "MOVED", "ASK"};

  /** A reply of a shape no relock script returns: a confused connection or a foreign script. */
  static final class UnexpectedReplyException extends RelockException {
    private static final long serialVersionUID = 1L;

    UnexpectedReplyException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * What a script's WRONGKIND error says (a name used as another kind of lock than it is, see
   * holders.lua), without what Redis wraps around a script's error; null for any other error.
   */
  static String wrongKind(String message) {
    int at = message == null ? -1 : message.indexOf("WRONGKIND ");
    if (at < 0) {
      return null;
    }
    String text = message.substring(at + "WRONGKIND ".length());
    int wrapped = text.indexOf(" script: ");
    return (wrapped < 0 ? text : text.substring(0, wrapped)).strip();
  }

  private static Throwable unwrap(Throwable t) {
    while (t instanceof CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /**
   * The failure of a call of {@code script} as a {@link RelockException} naming the lock, the key
   * and the topology: an error reply as Redis's refusal (with the permission it lacks, if it is
   * one), a timeout, or anything else as Redis unreachable. The driver's text passes through the
   * redaction first.
   */
  private RelockException translate(Throwable cause, LuaScript script, List<String> keys, String what) {
    if (cause instanceof RelockException r) {
      return r;
    }
    String key = (keys.isEmpty() ? "" : " (key " + keys.get(0) + ")") + on;
    String text = redaction.apply(String.valueOf(cause.getMessage()));
    if (cause instanceof RedisReplyException) {
      String kind = wrongKind(text);
      if (kind != null) {
        return new RelockException("lock '" + what + "'" + key + ": " + kind, cause);
      }
      // A Redlock refusal's text already says, node by node, what each refused.
      String detail = text
          + (cause instanceof RedlockNodes.RefusedException ? "" : PermissionDenial.explain(script, text));
      return new Rejected("Redis rejected " + script + " for lock '" + what + "'" + key + ": " + detail, detail, cause);
    }
    if (cause instanceof TimeoutException) {
      return new RelockException("Redis did not answer " + script + " for lock '" + what + "'" + key
          + " within " + timeout, cause);
    }
    return new RelockException("Redis unreachable running " + script + " for lock '" + what + "'" + key
        + ": " + text, cause);
  }

  /** Redis answered a call with an error reply: {@link #detail} is that reply, and what it means. */
  static final class Rejected extends RelockException {
    private static final long serialVersionUID = 1L;
    private final String detail;

    Rejected(String message, String detail, Throwable cause) {
      super(message, cause);
      this.detail = detail;
    }

    /** The reply (passwords hidden), and the permission it says is missing, if it is a refusal for the ACL. */
    String detail() {
      return detail;
    }
  }
}

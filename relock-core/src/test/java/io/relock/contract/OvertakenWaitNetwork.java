package io.relock.contract;

import io.relock.internal.Scripts;
import io.relock.spi.RedisDriver;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A network on which a waiter's {@code wait}, sent again after a lost reply, is overtaken by a
 * release, as calls on two of a driver's connections can be (Jedis runs each call on a pooled
 * connection of its own). For lock {@code lockKey} only: the first {@code wait} runs in Redis and
 * its reply is lost (the connection failed after it ran); the next {@code wait} is held back, not
 * sent, until {@link #sendHeldBackWait()} or until a release of the lock has run in Redis. Then it
 * is sent, and the release's reply is delivered only once it has answered. Notifications are lost
 * (the test delivers the ones it needs). Everything else runs on the real driver, against the real
 * Redis, as it comes.
 */
final class OvertakenWaitNetwork extends LostNotificationsNetwork {
  private final String lockKey;
  private boolean firstWaitRan;
  private HeldBack heldBack;
  private boolean heldBackSent;

  /** A call not sent yet, and the future its caller waits on. */
  private record HeldBack(List<String> keys, List<String> args, CompletableFuture<List<Object>> caller) {}

  OvertakenWaitNetwork(RedisDriver real, String lockKey) {
    super(real);
    this.lockKey = lockKey;
  }

  @Override
  public CompletableFuture<List<Object>> evalSha(String sha1, List<String> keys, List<String> args) {
    boolean ours = keys.get(0).equals(lockKey);
    if (ours && sha1.equals(Scripts.ACQUIRE.sha1()) && "wait".equals(args.get(2))) {
      synchronized (this) {
        if (!firstWaitRan) {
          // Counted once it has run (a NOSCRIPT answer is the script runner's to retry).
          return real.evalSha(sha1, keys, args).thenCompose(ran -> {
            synchronized (this) {
              firstWaitRan = true;
            }
            return CompletableFuture.failedFuture(
                new UncheckedIOException(new IOException("connection reset after the call ran (simulated)")));
          });
        }
        if (heldBack == null) {
          heldBack = new HeldBack(keys, args, new CompletableFuture<>());
          return heldBack.caller();
        }
      }
    }
    if (ours && sha1.equals(Scripts.RELEASE.sha1())) {
      return real.evalSha(sha1, keys, args)
          .thenCompose(released -> sendHeldBackWait().handle((waitReply, error) -> released));
    }
    return real.evalSha(sha1, keys, args);
  }

  /** Whether a {@code wait} is held back, unsent. */
  synchronized boolean holdsAWait() {
    return heldBack != null && !heldBackSent;
  }

  /**
   * Sends the held-back {@code wait}, if one is still held; the future completes once it has
   * answered (at once if none is held).
   */
  CompletableFuture<List<Object>> sendHeldBackWait() {
    HeldBack call;
    synchronized (this) {
      call = heldBack;
      if (call == null) {
        return CompletableFuture.completedFuture(null);
      }
      if (heldBackSent) {
        return call.caller();
      }
      heldBackSent = true;
    }
    real.evalSha(Scripts.ACQUIRE.sha1(), call.keys(), call.args()).whenComplete((reply, error) -> {
      if (error != null) {
        call.caller().completeExceptionally(error);
      } else {
        call.caller().complete(reply);
      }
    });
    return call.caller();
  }


  /** True: a held-back call stays unsent, and unfailed, until the test or a release sends it. */
  @Override
  public boolean timesOutCommands() {
    return true;
  }
}

package io.relock.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The first attempts of several zero-wait acquisitions, one per lock of a multi-lock, sent to Redis
 * as one call ({@code multilock_acquire.lua}): every lock or none. Each acquisition stays an
 * ordinary one, confined to its own lock state; it hands its first {@code try} to this object
 * instead of sending it ({@link #join}), and gets back the part of the joint reply that answers
 * for its lock, exactly as {@code acquire.lua} would answer its {@code try}. Retries, withdrawals,
 * the hold, its renewal and its release are then the acquisition's own.
 *
 * <p>The call goes out once every acquisition has joined. One that will not (its thread already
 * holds that lock and re-enters it, or it failed first: the client closing) {@link #decline}s;
 * the others then send their attempts one by one, and the multi-lock, seeing some taken and some
 * not, gives back what it got. Thread-safe: acquisitions join from their own states' events.
 */
final class JointAttempt {
  private final LockCalls calls;
  private final int size;
  private final List<Acquisition> joined = new ArrayList<>();
  private final List<CompletableFuture<List<Object>>> replies = new ArrayList<>();
  private int declined;

  JointAttempt(LockCalls calls, int size) {
    this.calls = calls;
    this.size = size;
  }

  /** {@code a}'s first attempt, answered when the joint call is; sent when the last one joins. */
  CompletableFuture<List<Object>> join(Acquisition a) {
    CompletableFuture<List<Object>> reply = new CompletableFuture<>();
    boolean last;
    synchronized (this) {
      joined.add(a);
      replies.add(reply);
      last = joined.size() + declined == size;
    }
    if (last) {
      send();
    }
    return reply;
  }

  /**
   * {@code count} acquisitions will not join (one that declined, or ones the engine never
   * started); if they were the last awaited, those that joined are sent one by one.
   */
  void decline(int count) {
    boolean last;
    synchronized (this) {
      declined += count;
      last = count > 0 && joined.size() + declined == size;
    }
    if (last) {
      send();
    }
  }

  private void send() {
    if (declined > 0) {
      for (int i = 0; i < joined.size(); i++) {
        relay(calls.runAcquire(joined.get(i), joined.get(i).owner, AcquireMode.TRY, 1), replies.get(i));
      }
      return;
    }
    calls.runJointly(joined).whenComplete((parts, error) -> {
      for (int i = 0; i < replies.size(); i++) {
        if (error != null) {
          replies.get(i).completeExceptionally(error);
        } else {
          replies.get(i).complete(parts.get(i));
        }
      }
    });
  }

  private static void relay(CompletableFuture<List<Object>> from, CompletableFuture<List<Object>> to) {
    from.whenComplete((reply, error) -> {
      if (error != null) {
        to.completeExceptionally(error);
      } else {
        to.complete(reply);
      }
    });
  }
}

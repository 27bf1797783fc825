package io.relock.internal;

import io.relock.LockLease;
import io.relock.RelockException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * How a caller waits for an acquisition, the same for every kind of lock: it gets the hold, or the
 * acquisition is withdrawn and the caller waits (ignoring interrupts, bounded) until Redis holds
 * nothing of it. Also how any caller of the engine waits for a future ({@link #await}, {@link
 * #awaitUninterruptibly}) and what it throws ({@link #unchecked}).
 */
final class Waiting {
  private Waiting() {}

  /** A lease, blocking; an interrupt withdraws the acquisition and throws {@link RelockException}, flag set. */
  static LockLease lease(LockEngine engine, LockEngine.Pending p, String name) {
    try {
      return interruptibly(engine, p, name);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RelockException("interrupted while acquiring lock '" + name + "'", e);
    }
  }

  /**
   * A lease, without blocking: cancelling the future withdraws the acquisition, and a hold that won
   * the race with the cancel is released. Completes on a relock thread, never on a Redis I/O thread.
   */
  static CompletableFuture<LockLease> leaseAsync(LockEngine engine, LockEngine.Pending p, String name) {
    CompletableFuture<LockLease> user = new CompletableFuture<>();
    user.whenComplete((lease, error) -> {
      if (user.isCancelled()) {
        p.withdraw(new CancellationException("acquireAsync cancelled"))
            .thenAccept(won -> {
              if (won != null) {
                engine.abandonLease(won);
              }
            });
      }
    });
    p.result().whenComplete((lease, error) -> {
      try {
        engine.onEventThread(() -> {
          if (error != null) {
            user.completeExceptionally(unchecked(error));
          } else if (!user.complete(lease)) {
            engine.abandonLease(lease);
          }
        });
      } catch (RejectedExecutionException closed) {
        user.completeExceptionally(new RelockException("client closed while acquiring lock '" + name + "'"));
        if (lease != null) {
          engine.abandonLease(lease);
        }
      }
    });
    return user;
  }

  /**
   * Waits for the acquisition; on interrupt withdraws it (waiting until Redis holds nothing of it)
   * and throws, unless it had succeeded first: then the caller gets the hold, interrupt flag set.
   */
  static HeldLease interruptibly(LockEngine engine, LockEngine.Pending p, String name) throws InterruptedException {
    try {
      return p.result().get();
    } catch (ExecutionException e) {
      throw unchecked(e.getCause());
    } catch (InterruptedException e) {
      HeldLease won = engine.withdrawAndWait(p, "interrupted while acquiring lock '" + name + "'");
      if (won != null) {
        Thread.currentThread().interrupt();
        return won;
      }
      throw e;
    }
  }

  /** Waits for the acquisition, ignoring interrupts (the flag is restored). */
  static HeldLease uninterruptibly(LockEngine.Pending p) {
    return await(p.result());
  }

  /** Waits for a future that completes on its own (a Redis call is bounded by the command timeout). */
  static <T> T await(CompletableFuture<T> f) {
    try {
      return awaitUninterruptibly(f, null);
    } catch (TimeoutException impossible) {
      throw new IllegalStateException(impossible);
    }
  }

  /**
   * Waits for {@code f}, ignoring interrupts (the flag is restored), at most {@code bound} (null:
   * no bound); a failure is rethrown as it is if unchecked.
   */
  static <T> T awaitUninterruptibly(CompletableFuture<T> f, Duration bound) throws TimeoutException {
    boolean interrupted = false;
    long deadline = bound == null ? 0 : System.nanoTime() + bound.toNanos();
    try {
      while (true) {
        try {
          return bound == null ? f.get() : f.get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException e) {
          throw unchecked(e.getCause());
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  static RuntimeException unchecked(Throwable t) {
    while (t instanceof java.util.concurrent.CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    if (t instanceof RuntimeException r) {
      return r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    return new RelockException(String.valueOf(t), t);
  }
}

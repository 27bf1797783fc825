package io.relock.internal;

import io.relock.LeaseTask;
import io.relock.LockLease;
import io.relock.LockLostException;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task run under a lease that is stopped when the lease is lost: the blocking form interrupts
 * the thread that runs it, the asynchronous form cancels the future it returned. Either way the
 * section releases the lease on every way out and reports a loss as {@link LockLostException},
 * the task's own outcome suppressed in it. See {@code DistributedLock#callLocked} for the contract.
 */
public final class GuardedSection {
  private static final Logger log = LoggerFactory.getLogger(GuardedSection.class);

  private GuardedSection() {}

  /** Refuses a null task before anything is acquired. */
  public static <X> X task(X task) {
    return Objects.requireNonNull(task, "task must not be null");
  }

  /**
   * Runs {@code task} on the calling thread under {@code held}, interrupting the thread if the
   * lease is lost before the task returns, then releases the lease.
   */
  public static <T> T call(LockLease held, LeaseTask<T> task) throws Exception {
    GuardedLease lease = new GuardedLease(held);
    Interrupter guard = Interrupter.forCurrentThread(held);
    T result = null;
    Throwable failure = null;
    try {
      result = task.call(lease);
    } catch (Throwable t) {
      failure = t;
    }
    boolean lostWhileRunning = guard.taskEnded();
    lease.end();
    LockLostException lost = null;
    RuntimeException releaseFailure = null;
    try {
      held.close();
    } catch (LockLostException e) {
      lost = e;
    } catch (RuntimeException e) {
      releaseFailure = e;
    }
    if (lost == null && lostWhileRunning) {
      // Lost, but the release could not say so (Redis did not answer it in time).
      lost = lease.lostException();
    }
    if (lost != null) {
      if (failure != null) {
        lost.addSuppressed(failure);
      }
      if (releaseFailure != null) {
        lost.addSuppressed(releaseFailure);
      }
      throw lost;
    }
    if (failure != null) {
      if (releaseFailure != null) {
        failure.addSuppressed(releaseFailure);
      }
      throw GuardedSection.<Exception>rethrow(failure);
    }
    if (releaseFailure != null) {
      throw releaseFailure;
    }
    return result;
  }

  /** {@link #call} for a task that returns nothing and throws no checked exception. */
  public static void run(LockLease held, Runnable task) {
    try {
      call(held, lease -> {
        task.run();
        return null;
      });
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Exception e) {
      // Only a task that threw a checked exception behind the compiler's back gets here.
      throw GuardedSection.<RuntimeException>rethrow(e);
    }
  }

  /**
   * Once {@code acquiring} gives a lease, calls {@code task} with it and holds the lease until the
   * stage it returned completes; a loss cancels that stage. Cancelling the returned future
   * withdraws the acquisition, or cancels the task's stage.
   */
  public static <T> CompletableFuture<T> callAsync(CompletableFuture<LockLease> acquiring,
      Function<? super LockLease, ? extends CompletionStage<T>> task) {
    CompletableFuture<T> result = new CompletableFuture<>();
    AsyncRun<T> run = new AsyncRun<>(result);
    result.whenComplete((value, error) -> {
      if (result.isCancelled()) {
        acquiring.cancel(false); // withdraws a waiting acquisition; a granted one ends below
        run.cancelTask();
      }
    });
    acquiring.whenComplete((held, error) -> {
      if (error != null) {
        result.completeExceptionally(unwrap(error));
      } else if (result.isDone()) {
        releaseInBackground(held); // cancelled while the grant was on its way
      } else {
        run.start(held, task);
      }
    });
    return result;
  }

  /** One asynchronous guarded section, from the grant to the release. */
  private static final class AsyncRun<T> {
    private final CompletableFuture<T> result;
    private volatile CompletableFuture<?> running;
    private volatile boolean lost;

    AsyncRun(CompletableFuture<T> result) {
      this.result = result;
    }

    void start(LockLease held, Function<? super LockLease, ? extends CompletionStage<T>> task) {
      GuardedLease lease = new GuardedLease(held);
      CompletionStage<T> stage;
      try {
        stage = Objects.requireNonNull(task.apply(lease), "the task returned null instead of a CompletionStage");
      } catch (Throwable t) {
        finish(lease, null, t);
        return;
      }
      try {
        running = stage.toCompletableFuture();
      } catch (UnsupportedOperationException minimal) {
        // A stage that cannot be cancelled: a loss, or the caller's cancel, waits for its end.
      }
      held.onLost(() -> {
        lost = true;
        cancelTask();
      });
      if (result.isCancelled()) {
        cancelTask();
      }
      stage.whenComplete((value, error) -> finish(lease, value, error == null ? null : unwrap(error)));
    }

    void cancelTask() {
      CompletableFuture<?> r = running;
      if (r != null) {
        r.cancel(true);
      }
    }

    /** Releases off the thread that completed the stage (it may be relock's event thread). */
    private void finish(GuardedLease lease, T value, Throwable failure) {
      lease.end();
      CompletableFuture.runAsync(() -> {
        LockLostException lostOnRelease = null;
        RuntimeException releaseFailure = null;
        try {
          lease.held().close();
        } catch (LockLostException e) {
          lostOnRelease = e;
        } catch (RuntimeException e) {
          releaseFailure = e;
        }
        LockLostException loss = lostOnRelease != null ? lostOnRelease : lost ? lease.lostException() : null;
        if (loss != null) {
          if (failure != null) {
            loss.addSuppressed(failure);
          }
          if (releaseFailure != null) {
            loss.addSuppressed(releaseFailure);
          }
          result.completeExceptionally(loss);
        } else if (failure != null) {
          if (releaseFailure != null) {
            failure.addSuppressed(releaseFailure);
          }
          result.completeExceptionally(failure);
        } else if (releaseFailure != null) {
          result.completeExceptionally(releaseFailure);
        } else {
          result.complete(value);
        }
      });
    }
  }

  /** Releases a lease nobody will use, without blocking the calling thread. */
  public static void releaseInBackground(LockLease lease) {
    if (lease instanceof HeldLease h) {
      h.state.engine.abandonLease(h);
      return;
    }
    CompletableFuture.runAsync(() -> {
      try {
        lease.close();
      } catch (RuntimeException e) {
        log.debug("releasing an unused lease of lock '{}': {}", lease.lockName(), e.toString());
      }
    });
  }

  static Throwable unwrap(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  @SuppressWarnings("unchecked")
  private static <X extends Throwable> X rethrow(Throwable t) throws X {
    throw (X) t;
  }

  /**
   * Interrupts the task's thread when the lease is lost, only while the task runs. The thread
   * interrupt flag is one bit that others may set too; this takes back only its own interrupt:
   * none if the thread was interrupted already when the loss came (the caller's own interrupt is
   * left for the caller), and none after the task returned.
   */
  public static final class Interrupter {
    private final Thread thread;
    private boolean ended;
    private boolean lost;
    private boolean interrupted;

    private Interrupter(Thread thread) {
      this.thread = thread;
    }

    /** Interrupts the calling thread if {@code lease} is lost before {@link #taskEnded()}. */
    public static Interrupter forCurrentThread(LockLease lease) {
      Interrupter guard = new Interrupter(Thread.currentThread());
      lease.onLost(guard::leaseLost);
      return guard;
    }

    /** The lease's onLost listener, on a relock thread. */
    private synchronized void leaseLost() {
      if (ended) {
        return;
      }
      lost = true;
      if (!thread.isInterrupted()) {
        thread.interrupt();
        interrupted = true;
      }
    }

    /**
     * On the task's thread once the task returned or threw: no interrupt comes from this guard
     * any more, and one it made that the task left pending is cleared.
     *
     * @return whether the lease was lost while the task ran
     */
    public boolean taskEnded() {
      boolean clear;
      boolean wasLost;
      synchronized (this) {
        ended = true;
        clear = interrupted;
        wasLost = lost;
      }
      if (clear) {
        Thread.interrupted();
      }
      return wasLost;
    }
  }
}

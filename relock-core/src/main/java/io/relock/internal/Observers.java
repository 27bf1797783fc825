package io.relock.internal;

import io.relock.LockObserver;
import io.relock.LockObserver.Outcome;
import io.relock.LockTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link LockObserver}s of one client, and the guarded handles through which the engine tells
 * them of one acquisition ({@link Wait}) and one hold ({@link Hold}): each handle passes on its
 * end once, to every observer that follows it, and logs and skips an observer that throws. With no
 * observer registered, {@link #start} costs one volatile read and returns null.
 */
final class Observers {
  private static final Logger log = LoggerFactory.getLogger(Observers.class);

  private final CopyOnWriteArrayList<LockObserver> list = new CopyOnWriteArrayList<>();

  void add(LockObserver observer) {
    list.add(observer);
  }

  void remove(LockObserver observer) {
    list.remove(observer);
  }

  /** An acquisition starts, on the caller's thread: its handle, or null if nobody follows it. */
  Wait start(LockObserver.Kind kind, String name) {
    if (list.isEmpty()) {
      return null;
    }
    List<LockObserver.Wait> waits = null;
    for (LockObserver o : list) {
      LockObserver.Wait w = startOne(o, kind, name);
      if (w != null) {
        if (waits == null) {
          waits = new ArrayList<>(1);
        }
        waits.add(w);
      }
    }
    return waits == null ? null : new Wait(waits);
  }

  private static LockObserver.Wait startOne(LockObserver o, LockObserver.Kind kind, String name) {
    try {
      return o.waitStarted(kind, name);
    } catch (RuntimeException | Error e) {
      log.error("LockObserver {} threw; ignored", o, e);
      return null;
    }
  }

  /** How a wait that ended with {@code error} ended. */
  static Outcome outcomeOf(Throwable error) {
    Throwable e = unwrapped(error);
    if (e instanceof LockTimeoutException) {
      return Outcome.TIMEOUT;
    }
    if (e instanceof InterruptedWait || e instanceof InterruptedException) {
      return Outcome.INTERRUPTED;
    }
    if (e instanceof CancellationException) {
      return Outcome.CANCELLED;
    }
    return Outcome.ERROR;
  }

  private static Throwable unwrapped(Throwable error) {
    Throwable e = error;
    while ((e instanceof java.util.concurrent.CompletionException || e instanceof java.util.concurrent.ExecutionException)
        && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }

  /** The reason an interrupted caller withdraws its acquisition with (see {@link LockEngine#withdrawAndWait}). */
  static final class InterruptedWait extends CancellationException {
    private static final long serialVersionUID = 1L;

    InterruptedWait(String message) {
      super(message);
    }
  }

  /** One acquisition's observers; the first end reported counts, later ones are ignored. */
  static final class Wait {
    private final List<LockObserver.Wait> waits;
    private final AtomicBoolean ended = new AtomicBoolean();

    private Wait(List<LockObserver.Wait> waits) {
      this.waits = waits;
    }

    /**
     * The wait got the lock: the hold's handle, or null if nobody follows it (a re-entry, or no
     * observer returned a hold). {@code parts} is how many holds must end before it ends: one, or
     * a multi-lock's locks.
     */
    Hold acquired(long token, boolean handedOver, boolean reentry, int parts) {
      if (!ended.compareAndSet(false, true)) {
        return null;
      }
      List<LockObserver.Hold> holds = new ArrayList<>(1);
      for (LockObserver.Wait w : waits) {
        try {
          LockObserver.Hold h = w.acquired(token, handedOver, reentry);
          if (h != null && !reentry) {
            holds.add(h);
          }
        } catch (RuntimeException | Error e) {
          log.error("LockObserver wait {} threw; ignored", w, e);
        }
      }
      return holds.isEmpty() ? null : new Hold(holds, parts);
    }

    /** The wait ended without the lock. */
    void failed(Throwable error) {
      if (!ended.compareAndSet(false, true)) {
        return;
      }
      Outcome outcome = outcomeOf(error);
      Throwable told = unwrapped(error);
      for (LockObserver.Wait w : waits) {
        try {
          w.failed(outcome, told);
        } catch (RuntimeException | Error e) {
          log.error("LockObserver wait {} threw; ignored", w, e);
        }
      }
    }
  }

  /**
   * One hold's observers. A multi-lock's hold is made of its locks' holds: it ends when the last of
   * them ends, {@link Outcome#LOST} if any was lost, else {@link Outcome#ERROR} if any release
   * failed, else {@link Outcome#RELEASED}.
   */
  static final class Hold {
    private final List<LockObserver.Hold> holds;
    private int left;
    private Outcome worst = Outcome.RELEASED;
    private Throwable error;

    private Hold(List<LockObserver.Hold> holds, int parts) {
      this.holds = holds;
      this.left = parts;
    }

    /** One part ended; called once per part (see {@link HeldLease#endObserved}). */
    void ended(Outcome outcome, Throwable cause) {
      synchronized (this) {
        if (outcome == Outcome.LOST && worst != Outcome.LOST || outcome == Outcome.ERROR && worst == Outcome.RELEASED) {
          worst = outcome;
          error = cause;
        }
        if (--left != 0) {
          return;
        }
      }
      Throwable e = worst == Outcome.RELEASED ? null : error;
      for (LockObserver.Hold h : holds) {
        try {
          h.ended(worst, e);
        } catch (RuntimeException | Error x) {
          log.error("LockObserver hold {} threw; ignored", h, x);
        }
      }
    }
  }
}

package io.relock.internal;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one client's holds from the grant until the release begins: turns an acquisition's grant
 * into a {@link HeldLease} with its local deadline (the claim arithmetic: how long a grant, a
 * hand-over or a call whose answer was lost may last), has the watchdog renew it or an expiry
 * check watch it, confirms a handed-over lock, reads who holds a lock after a notice of a forced
 * unlock, and reports a loss: the log line, the {@link io.relock.RelockListener}s and the hold's
 * {@code onLost} listeners, which run here.
 *
 * <p>What a holder asks of its lease (close, extend, close after a while) is {@link
 * LeaseChanges}', made here and handed to each hold: it calls on this class, never the reverse.
 * Nothing here calls the engine; holds, the watchdog and the lease changes call here.
 */
final class LeaseKeeper {
  /** The engine's logger: what a lost lease logs is configured under that name (relock-cli's, say). */
  private static final Logger log = LoggerFactory.getLogger(LockEngine.class);

  private final RelockSettings settings;
  private final ScriptRunner scripts;
  private final ClientTimer timer;
  /** The client's event thread, where {@code onLost} listeners run. */
  private final ExecutorService events;
  final Listeners listeners;
  private final WatchdogRenewer watchdog;
  private final LeaseChanges changes;

  /**
   * @param releaseWait how long a caller waits for Redis to confirm a release (see {@link LeaseChanges})
   * @param perSlot whether the watchdog's batches must keep to one Redis Cluster slot each
   * @param refreshTopology asks the driver to read the topology again, before a renewal is retried
   */
  LeaseKeeper(RelockSettings settings, ScriptRunner scripts, ClientTimer timer, ExecutorService events,
      Listeners listeners, Duration releaseWait, boolean perSlot, Runnable refreshTopology) {
    this.settings = settings;
    this.scripts = scripts;
    this.timer = timer;
    this.events = events;
    this.listeners = listeners;
    this.watchdog = new WatchdogRenewer(scripts, timer.executor(), settings.defaultLease().toMillis(),
        extendedByCallTo(0, settings.defaultLease().toMillis()), this::scheduleExpiryCheck, perSlot,
        listeners, refreshTopology);
    this.changes = new LeaseChanges(this, watchdog, settings, releaseWait);
  }

  /** What the holders of this client's leases ask of them: see {@link LeaseChanges}. */
  LeaseChanges changes() {
    return changes;
  }

  // ---- the watchdog -------------------------------------------------------------------------

  /** Starts the watchdog's ticks. */
  void start() {
    watchdog.start();
  }

  /** Stops the watchdog's ticks and retries (the client is closing). */
  void stop() {
    watchdog.stop();
  }

  /** The connection came back: renews every renewed lease now, retries included. */
  void renewNow() {
    watchdog.renewNow();
  }

  /** Leases that had missed a renewal when the watchdog's last tick began. */
  int leasesAtRisk() {
    return watchdog.leasesAtRisk();
  }

  // ---- calls on one hold --------------------------------------------------------------------

  /**
   * Renews {@code owner}'s hold of {@code state}'s lock for {@code leaseMillis}, as the watchdog
   * does (renew.lua for one hold): true if the owner still held it. For an acquisition that must
   * confirm a grant before it counts (see Acquisition#confirm), and a hand-over's confirmation.
   */
  CompletableFuture<Boolean> renewHold(LockState state, String owner, long leaseMillis) {
    List<String> keys = List.of(state.kind.holdKey(state.keys, owner));
    List<String> args = ScriptCalls.renewArgs(leaseMillis, WatchdogRenewer.BUDGET_MICROS, List.of(owner));
    return scripts.run(Scripts.RENEW, keys, args, state.keys.name())
        .thenApply(reply -> ScriptCalls.Renewed.of(reply).held()[0]);
  }

  /** Runs extend.lua for {@code h}: {1} if its owner still held it and it now expires {@code millis} from now. */
  CompletableFuture<List<Object>> runExtend(HeldLease h, long millis) {
    return scripts.run(Scripts.EXTEND, List.of(h.holdKey), List.of(h.owner, Long.toString(millis)), h.lockName());
  }

  // ---- how long a grant lasts ----------------------------------------------------------------

  /**
   * The latest Redis may hold a lock that a call sent at {@code sentNanos} gives or extends for
   * {@code leaseMillis}, if the client cannot tell when (or whether) it ran: its reply is on its
   * way, or was lost. The call reaches Redis within twice the command timeout (one send, and one
   * more after NOSCRIPT), and its lease then runs by Redis's clock: plus the drift allowance.
   */
  long extendedByCallTo(long sentNanos, long leaseMillis) {
    return sentNanos + 2 * settings.commandTimeout().toNanos() + TimeUnit.MILLISECONDS.toNanos(leaseMillis)
        + settings.driftNanosForMillis(leaseMillis);
  }

  /**
   * How long a lock handed to a waiter first lasts before the waiter confirms it (a third of the
   * way in): two recheck intervals. A waiter that died while queued thus delays the others by at
   * most its queue entry's lifetime plus this, not a whole lease.
   */
  long claimMillis() {
    return 2 * settings.recheckInterval().toMillis();
  }

  /**
   * How much of its claim time a handed-over grant must have left to count from when it is known
   * to have started: a third of it, the time its confirmation (see {@link #acquired}) is given
   * before it is due. With less, the grant is renewed first (see Acquisition#arrivedTooLate).
   */
  long claimMarginNanos(long leaseMillis) {
    return TimeUnit.MILLISECONDS.toNanos(Math.min(leaseMillis, claimMillis())) / 3;
  }

  /**
   * Until when a lock handed to a waiter is surely still its own, counting from {@code
   * validFromNanos}: the claim time, or the lease if that is shorter, less the drift allowance.
   */
  long claimEndsNanos(long leaseMillis, long validFromNanos) {
    long first = Math.min(leaseMillis, claimMillis());
    return validFromNanos + TimeUnit.MILLISECONDS.toNanos(first) - settings.driftNanosForMillis(first);
  }

  /**
   * Until when a grant counted from {@code validFromNanos} is surely still its owner's: the lease
   * less the drift allowance, or for a lock handed to a waiter the claim time (see {@link
   * #claimEndsNanos}).
   */
  long grantEndsNanos(long leaseMillis, long validFromNanos, boolean handedOff) {
    return handedOff ? claimEndsNanos(leaseMillis, validFromNanos)
        : validFromNanos + TimeUnit.MILLISECONDS.toNanos(leaseMillis) - settings.driftNanosForMillis(leaseMillis);
  }

  // ---- a new hold ---------------------------------------------------------------------------

  /** Turns a successful acquisition into a hold and starts keeping it alive (or watching it). */
  HeldLease acquired(Acquisition a, long token, long serial, long validFromNanos, boolean handedOff) {
    long drift = settings.driftNanosForMillis(a.leaseMillis);
    boolean claimed = handedOff && a.leaseMillis > claimMillis();
    HeldLease h = new HeldLease(this, a.state, a.owner, token, serial, TimeUnit.MILLISECONDS.toNanos(a.leaseMillis), drift, a.renewed, a.threadId,
        grantEndsNanos(a.leaseMillis, validFromNanos, handedOff));
    // Redis began this hold no later than now, for the claim time or the lease; and a call of the
    // acquisition whose reply was lost may have taken or renewed it for a whole lease (a 'try'
    // whose reply was lost is answered "held" when sent again, and then counts a claim time only).
    long firstMillis = claimed ? claimMillis() : a.leaseMillis;
    h.mayBeExtendedTo(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(firstMillis)
        + settings.driftNanosForMillis(firstMillis));
    h.mayBeExtendedTo(a.extendedTo());
    if (h.renewed) {
      watchdog.add(h);
    }
    if (claimed) {
      h.confirmation = new CompletableFuture<>();
      long confirmAt = validFromNanos + TimeUnit.MILLISECONDS.toNanos(claimMillis()) / 3;
      timer.schedule(confirmAt - System.nanoTime(), () -> confirmHandoff(h, validFromNanos, 0));
    }
    if (!h.renewed || claimed) {
      // Renewed leases get their expiry check from the watchdog, only when a deadline comes near.
      scheduleExpiryCheck(h);
    }
    return h;
  }

  /**
   * A handed-over lock first lasts only the claim time; if its new owner still holds it a third of
   * the way in, extend it to the lease the owner asked for. Short holds never need this call. Redis
   * unreachable: tried again until the claim would run out.
   */
  private void confirmHandoff(HeldLease h, long grantedNanos, int attempt) {
    long sent = System.nanoTime();
    long leaseMillis = TimeUnit.NANOSECONDS.toMillis(h.leaseNanos);
    // Before the closed check, which a release makes after closing the hold and before reading
    // this: either the release counts this call, or this call is not sent.
    h.mayBeExtendedTo(extendedByCallTo(sent, leaseMillis));
    if (h.closed.get() || h.lostReason() != null) {
      confirmed(h);
      return;
    }
    long px = h.renewed ? leaseMillis : Math.max(1, leaseMillis - TimeUnit.NANOSECONDS.toMillis(sent - grantedNanos));
    renewHold(h.state, h.owner, px).whenComplete((held, error) -> {
      if (error != null) {
        long left = h.validUntilNanos() - System.nanoTime();
        if (ScriptRunner.isTransient(error) && left > 0) {
          timer.schedule(Math.min(Retry.backoffNanos(attempt), left / 2), () -> confirmHandoff(h, grantedNanos, attempt + 1));
        } else {
          log.warn("could not confirm handed-over lock '{}': {}", h.lockName(), error.getMessage());
          confirmed(h);
        }
      } else if (held) {
        log.trace("{} confirmed handoff", h.owner);
        h.extendTo(h.renewed ? sent + h.leaseNanos - h.driftNanos : grantedNanos + h.leaseNanos - h.driftNanos);
        confirmed(h);
      } else {
        h.lost("the lock handed over to it expired or was taken before it was confirmed");
        confirmed(h);
      }
    });
  }

  /** A hand-over's confirmation is over, however it went: changes of the lease may go ahead. */
  private static void confirmed(HeldLease h) {
    CompletableFuture<Void> c = h.confirmation;
    if (c != null) {
      c.complete(null);
    }
  }

  // ---- expiry checks ------------------------------------------------------------------------

  /** Arms a check at {@code h}'s local deadline that reports the lease lost if it is not renewed. */
  void scheduleExpiryCheck(HeldLease h) {
    h.expiryCheck = timer.schedule(h.validUntilNanos() - System.nanoTime(), () -> checkExpiry(h));
  }

  private void checkExpiry(HeldLease h) {
    if (h.closed.get() || h.lostReason() != null) {
      return;
    }
    if (System.nanoTime() - h.validUntilNanos() >= 0) {
      h.lost(expiryReason(h));
    } else if (h.renewed && h.validUntilNanos() - System.nanoTime() > watchdog.tickNanos()) {
      h.expiryCheck = null; // renewed meanwhile: the watchdog re-arms the check if renewals stall
    } else {
      scheduleExpiryCheck(h);
    }
  }

  String expiryReason(HeldLease h) {
    if (h.extendedMillis > 0) {
      return "its lease, last extended for " + Duration.ofMillis(h.extendedMillis) + ", ran out";
    }
    return h.renewed
        ? "the lease ran out before a renewal succeeded (Redis unreachable or the process paused)"
        : "its lease of " + Duration.ofNanos(h.leaseNanos) + " ran out";
  }

  /** Stops renewing and watching a hold that is being released. */
  void stopTracking(HeldLease h) {
    watchdog.remove(h);
    ScheduledFuture<?> check = h.expiryCheck;
    if (check != null) {
      check.cancel(false);
    }
  }

  /** The deadline of {@code h} moved, sooner perhaps: its expiry check follows. */
  void rearmExpiryCheck(HeldLease h) {
    ScheduledFuture<?> check = h.expiryCheck;
    if (check != null) {
      check.cancel(false);
    }
    if (!h.closed.get() && h.lostReason() == null) {
      scheduleExpiryCheck(h);
    }
  }

  // ---- a forced unlock ----------------------------------------------------------------------

  /**
   * A notice that another client freed {@code h}'s lock (a forced unlock): reads at once, without
   * changing anything, who holds the lock in Redis, and reports the hold lost if it is not {@code
   * h}'s owner. The notice itself is not trusted (a late or stray one may name a live hold), and
   * the read changes nothing, so it cannot race the hold's renewals or its hand-over confirmation.
   * A renewal (renewed leases) or the expiry check (fixed leases) still finds a loss whose notice
   * was lost. On Redlock each master sends its notice: one that comes while a read is under way
   * makes it read once more, so a read that ran before the forced unlock reached a majority is
   * not the last word.
   */
  void checkHold(HeldLease h) {
    if (h.closed.get() || h.lostReason() != null) {
      return;
    }
    if (HeldLease.NOTICES.getAndIncrement(h) > 0) {
      return; // the read under way reads again when it ends
    }
    readHolder(h, 0);
  }

  /**
   * The read of {@link #checkHold}. One that fails is tried again (25 ms later, backing off to a
   * second) while it may pass and the hold is open and within its lease: the notice is the only
   * news of a forced unlock before the hold's next renewal, or, for a fixed lease, its end.
   */
  private void readHolder(HeldLease h, int failures) {
    // An exclusive lock's value names its owner; a shared kind's hold is a key of its own (holders.lua).
    boolean exclusive = h.state.kind == LockKind.EXCLUSIVE;
    CompletableFuture<List<Object>> read = exclusive
        ? scripts.run(Scripts.INSPECT, h.state.scriptKeys, List.of(), h.lockName())
        : scripts.run(Scripts.HOLD_PTTL, List.of(h.holdKey), List.of(), h.lockName());
    read.whenComplete((reply, error) -> {
      if (error == null && (exclusive ? !h.owner.equals(reply.get(0)) : Long.valueOf(-2).equals(reply.get(0)))) {
        h.lost("another client freed the lock (a forced unlock), or its lease ran out");
        return;
      }
      if (error != null) {
        log.debug("could not check lock '{}' after a notice that it was freed: {}", h.lockName(), error.getMessage());
        if (ScriptRunner.isTransient(error) && !h.closed.get() && h.lostReason() == null
            && System.nanoTime() - h.validUntilNanos() < 0
            && timer.schedule(Retry.backoffNanos(failures), () -> {
              // Notices that came meanwhile are answered by this read, which begins after them.
              HeldLease.NOTICES.set(h, 1);
              readHolder(h, failures + 1);
            }) != null) {
          return;
        }
      }
      boolean again = HeldLease.NOTICES.getAndSet(h, 0) > 1;
      if (again) {
        checkHold(h);
      }
    });
  }

  // ---- losses and listeners ------------------------------------------------------------------

  /** Called once when a lease is found lost: stop renewing it. */
  void leaseLost(HeldLease h) {
    watchdog.remove(h);
    log.warn("lease on lock '{}' (token {}) lost: {}", h.lockName(), h.token, h.lostReason());
    String reason = h.lostReason();
    listeners.emit(l -> l.leaseLost(h.lockName(), reason));
  }

  /** Runs a listener on the calling thread; a throwing listener is logged. */
  void runListenerHere(String lockName, Runnable listener) {
    try {
      listener.run();
    } catch (RuntimeException | Error e) {
      log.error("onLost listener of lock '{}' threw; ignored", lockName, e);
    }
  }

  /** Runs a listener on the client's event thread. */
  void runListener(String lockName, Runnable listener) {
    try {
      events.execute(() -> runListenerHere(lockName, listener));
    } catch (RejectedExecutionException closing) {
      log.warn("client closed before the onLost listener of lock '{}' could run", lockName);
    }
  }
}

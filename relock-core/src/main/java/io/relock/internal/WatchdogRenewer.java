package io.relock.internal;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews every watchdog-renewed lease of one client, in batches: {@code renew.lua} calls sent one
 * after another, one tick every third of the default lease, and one more at once when the
 * connection to Redis comes back. No timer per lock, except an expiry check for a lease whose
 * renewal failed.
 *
 * <p>Redis runs nothing else while a script runs, so a batch is bounded by time, not by count:
 * {@code renew.lua} stops once it has run {@link #BUDGET_MICROS} and says how far it got, and the
 * next call goes on from there. Batches are sized from how long Redis took per hold, to run about
 * {@link #AIM_MICROS}.
 */
final class WatchdogRenewer {
  private static final Logger log = LoggerFactory.getLogger(WatchdogRenewer.class);

  /**
   * The longest one renewal call runs in Redis, in microseconds (see renew.lua); Redis also reads
   * the call's keys and owners before, about 0.2 us a hold on our 2-core machine.
   */
  static final long BUDGET_MICROS = 300;
  /**
   * How long a batch is sized to run: the budget only cuts a call short when Redis slowed down.
   * Below what {@link #MIN_BATCH} holds take here, so that batches stay at that size on a Redis
   * as fast as ours, and a call holds Redis for about 0.2 ms.
   */
  static final long AIM_MICROS = 150;
  /** Holds in the first batch, before Redis's pace is known. */
  static final int FIRST_BATCH = 120;
  /**
   * The fewest holds a batch names, however slow Redis went: each call costs a round trip and a
   * tick must get through every lease, so a tick costs fewer than one call per 100 holds while
   * Redis renews 120 holds within the budget (about 2.5 us a hold; 1.7 to 2 us on our 2-core
   * machine, the more held keys the slower). The extra 20 leave room for the odd call the budget
   * cuts short. The budget still bounds each call; what it cuts off goes in the next.
   */
  static final int MIN_BATCH = 120;
  /** How many holds renew.lua looks at between two looks at its budget: the fewest a call renews. */
  static final int BUDGET_STEP = 8;
  static final int MAX_BATCH = 1000;

  /**
   * On a Redis Cluster, renewal batches in flight at once. A batch there holds the locks of one
   * slot only (a script may not touch keys of two slots), so a tick sends many small batches, to
   * several nodes: a few at a time keep every node busy without queueing a tick's worth at once.
   */
  static final int CLUSTER_IN_FLIGHT = 8;

  private final ScriptRunner scripts;
  private final ScheduledExecutorService scheduler;
  private final long leaseMillis;
  /** How long after a renewal is sent Redis may hold its leases, at most (see LockEngine#extendedByCallTo). */
  private final long extendsForNanos;
  private final long tickNanos;
  private final Set<HeldLease> leases = ConcurrentHashMap.newKeySet();
  private final Consumer<HeldLease> armExpiryCheck;
  private final boolean perSlot;
  private final Listeners listeners;
  /** Leases that had missed a renewal when the last tick began; see {@link io.relock.RelockStats}. */
  private volatile int leasesAtRisk;
  /** See {@link #batchSize()}. */
  private volatile int batchSize = FIRST_BATCH;
  private ScheduledFuture<?> task;

  /**
   * @param extendsForNanos how long after a renewal is sent Redis may hold its leases, at most
   * @param armExpiryCheck arms an exact check at a lease's deadline; called for leases whose
   *     deadline falls before the next tick, so that a stalled renewal is reported on time
   * @param perSlot whether batches must keep to one Redis Cluster slot each
   */
  WatchdogRenewer(ScriptRunner scripts, ScheduledExecutorService scheduler, long leaseMillis, long extendsForNanos,
      Consumer<HeldLease> armExpiryCheck, boolean perSlot, Listeners listeners) {
    this.extendsForNanos = extendsForNanos;
    this.scripts = scripts;
    this.listeners = listeners;
    this.perSlot = perSlot;
    this.armExpiryCheck = armExpiryCheck;
    this.scheduler = scheduler;
    this.leaseMillis = leaseMillis;
    this.tickNanos = Math.max(1, TimeUnit.MILLISECONDS.toNanos(leaseMillis) / 3);
  }

  synchronized void start() {
    task = scheduler.scheduleAtFixedRate(this::tick, tickNanos, tickNanos, TimeUnit.NANOSECONDS);
  }

  synchronized void stop() {
    if (task != null) {
      task.cancel(false);
    }
  }

  void add(HeldLease lease) {
    leases.add(lease);
  }

  void remove(HeldLease lease) {
    leases.remove(lease);
  }

  /** Renews everything now, off the calling thread (a reconnect: renewals may have failed meanwhile). */
  void renewNow() {
    try {
      scheduler.execute(this::tick);
    } catch (java.util.concurrent.RejectedExecutionException closing) {
      // The client is closing.
    }
  }

  long tickNanos() {
    return tickNanos;
  }

  int leasesAtRisk() {
    return leasesAtRisk;
  }

  /** Holds the next batch names: sized to run {@link #AIM_MICROS} at Redis's last pace. */
  int batchSize() {
    return batchSize;
  }

  void tick() {
    long now = System.nanoTime();
    // One group of leases that a single script call may renew: all of them, or one slot's.
    Map<Integer, List<HeldLease>> groups = perSlot ? new TreeMap<>() : null;
    List<HeldLease> all = perSlot ? null : new ArrayList<>(leases.size());
    int atRisk = 0;
    for (HeldLease lease : leases) {
      if (lease.renewalFailed) {
        atRisk++;
      }
      // A lease renewed at the last tick has about two ticks left and needs no check; one whose
      // last renewal failed has about one, and the next tick would come too late for it.
      if (lease.expiryCheck == null && lease.validUntilNanos() - now < tickNanos + tickNanos / 2) {
        armExpiryCheck.accept(lease);
      }
      if (perSlot) {
        groups.computeIfAbsent(lease.slot(), s -> new ArrayList<>()).add(lease);
      } else {
        all.add(lease);
      }
    }
    leasesAtRisk = atRisk;
    if (!perSlot && all.isEmpty()) {
      return;
    }
    Iterator<List<HeldLease>> next = (perSlot ? groups.values() : List.of(all)).iterator();
    for (int lane = 0; lane < (perSlot ? CLUSTER_IN_FLIGHT : 1); lane++) {
      renewNextGroup(next);
    }
  }

  /**
   * One lane of a tick: renews the next group, batch after batch, then the group after it. A
   * batch sent while the previous one is still in Redis would only queue up behind it (and, on
   * our 2 cores, compete with the client handling the replies). A failed batch ends the lane: the
   * rest would most likely wait out the same failure one command timeout each; the next tick, or
   * the reconnect, renews them, and the expiry checks report any lease that runs out meanwhile.
   * On a cluster each lane goes on to its next slot's group, since one node may be down while the
   * others answer; elsewhere the one lane ends the tick.
   */
  private void renewNextGroup(Iterator<List<HeldLease>> next) {
    List<HeldLease> group;
    synchronized (next) {
      if (!next.hasNext()) {
        return;
      }
      group = next.next();
    }
    renewFrom(group, 0, next);
  }

  private void renewFrom(List<HeldLease> group, int from, Iterator<List<HeldLease>> next) {
    if (from >= group.size()) {
      renewNextGroup(next);
      return;
    }
    List<HeldLease> batch = group.subList(from, Math.min(group.size(), from + batchSize));
    renew(batch).whenComplete((done, error) -> {
      if (error == null) {
        renewFrom(group, from + done, next);
      } else if (perSlot) {
        renewNextGroup(next);
      }
    });
  }

  /** Renews what of {@code batch} the budget allows; completes with how many it looked at. */
  private CompletableFuture<Integer> renew(List<HeldLease> batch) {
    long sent = System.nanoTime();
    List<HeldLease> sending = new ArrayList<>(batch.size());
    List<String> holds = new ArrayList<>(batch.size());
    List<String> owners = new ArrayList<>(batch.size());
    for (HeldLease lease : batch) {
      // Before the closed check, which a release makes after closing the lease and before reading
      // this: either the release keeps trying for as long as this renewal may hold the lock, or
      // the lease (closed while this tick went through its batches) is not renewed.
      lease.mayBeExtendedTo(sent + extendsForNanos);
      if (!lease.closed.get()) {
        sending.add(lease);
        holds.add(lease.holdKey);
        owners.add(lease.owner);
      }
    }
    if (sending.isEmpty()) {
      return CompletableFuture.completedFuture(batch.size());
    }
    String what = sending.size() == 1 ? sending.get(0).lockName() : sending.size() + " locks";
    return scripts.run(Scripts.RENEW, holds,
        ScriptCalls.renewArgs(leaseMillis, BUDGET_MICROS, owners), what).handle((reply, error) -> {
          if (error != null) {
            // Leases keep their deadlines; if renewals keep failing, the expiry checks report them lost.
            log.warn("watchdog could not renew {}: {}", what, error.getMessage());
            sending.forEach(lease -> lease.renewalFailed = true);
            listeners.emit(l -> l.renewalFailed(sending.size(), error));
            throw error instanceof java.util.concurrent.CompletionException c ? c
                : new java.util.concurrent.CompletionException(error);
          }
          ScriptCalls.Renewed renewed = ScriptCalls.Renewed.of(reply);
          boolean[] held = renewed.held();
          int count = 0;
          for (int i = 0; i < held.length; i++) {
            HeldLease lease = sending.get(i);
            if (held[i]) {
              lease.renewed(sent);
              lease.renewalFailed = false;
              count++;
            } else {
              leases.remove(lease);
              lease.lost("a renewal found the lock expired or held by another owner");
            }
          }
          paced(held.length, renewed.elapsedMicros());
          int n = count;
          listeners.emit(l -> l.renewed(n));
          // How far into the batch the budget let Redis look: up to the first lease it did not.
          return held.length < sending.size() ? batch.indexOf(sending.get(held.length)) : batch.size();
        });
  }

  /**
   * Sizes the next batch from the last: {@link #AIM_MICROS}' worth of holds at the pace Redis went,
   * but never more than half again as many as it looked at. Redis reads every key and owner
   * of a call before the script starts, and that time is not in the script's own figure: holds
   * sent beyond what the budget lets it look at would only lengthen the stall.
   */
  private void paced(int looked, long elapsedMicros) {
    long perHoldNanos = Math.max(1, elapsedMicros * 1000 / Math.max(1, looked));
    long fits = AIM_MICROS * 1000 / perHoldNanos;
    batchSize = (int) Math.max(MIN_BATCH, Math.min(Math.min(MAX_BATCH, looked + looked / 2), fits));
  }
}

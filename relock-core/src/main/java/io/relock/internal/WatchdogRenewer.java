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
 * Renews every watchdog-renewed lease of one client, in batches: one {@code renew.lua} call per
 * {@link #BATCH} leases per tick, sent one after another, one tick every third of the default
 * lease, and one more at once when the connection to Redis comes back. No timer per lock, except
 * an expiry check for a lease whose renewal failed.
 */
final class WatchdogRenewer {
  private static final Logger log = LoggerFactory.getLogger(WatchdogRenewer.class);

  /**
   * Leases renewed by one script call. Redis runs nothing else while a script runs, so a batch is
   * sized to keep that stall around half a millisecond on our 2-core machine (the held-locks
   * scenario of {@code ./relock bench} reports the worst one); 10,000 held locks cost 40 calls per
   * tick.
   */
  static final int BATCH = 250;

  /**
   * On a Redis Cluster, renewal batches in flight at once. A batch there holds the locks of one
   * slot only (a script may not touch keys of two slots), so a tick sends many small batches, to
   * several nodes: a few at a time keep every node busy without queueing a tick's worth at once.
   */
  static final int CLUSTER_IN_FLIGHT = 8;

  private final ScriptRunner scripts;
  private final ScheduledExecutorService scheduler;
  private final long leaseMillis;
  private final long tickNanos;
  private final Set<HeldLease> leases = ConcurrentHashMap.newKeySet();
  private final Consumer<HeldLease> armExpiryCheck;
  private final boolean perSlot;
  private final Listeners listeners;
  /** How long a shared hold's kind marker is kept (see renew.lua), in milliseconds. */
  private final String markerRetention;
  /** Leases that had missed a renewal when the last tick began; see {@link io.relock.RelockStats}. */
  private volatile int leasesAtRisk;
  private ScheduledFuture<?> task;

  /**
   * @param armExpiryCheck arms an exact check at a lease's deadline; called for leases whose
   *     deadline falls before the next tick, so that a stalled renewal is reported on time
   * @param perSlot whether batches must keep to one Redis Cluster slot each
   */
  WatchdogRenewer(ScriptRunner scripts, ScheduledExecutorService scheduler, long leaseMillis,
      Consumer<HeldLease> armExpiryCheck, boolean perSlot, Listeners listeners, String markerRetention) {
    this.scripts = scripts;
    this.listeners = listeners;
    this.markerRetention = markerRetention;
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
    List<List<HeldLease>> batches = new ArrayList<>();
    for (List<HeldLease> group : perSlot ? groups.values() : List.of(all)) {
      for (int i = 0; i < group.size(); i += BATCH) {
        batches.add(group.subList(i, Math.min(group.size(), i + BATCH)));
      }
    }
    if (!perSlot) {
      renewInTurn(batches, 0);
      return;
    }
    // Per slot: several lanes, each sending its share in turn; a failure stops only its lane
    // (one node may be down while the others answer).
    Iterator<List<HeldLease>> next = batches.iterator();
    for (int lane = 0; lane < CLUSTER_IN_FLIGHT; lane++) {
      renewFrom(next);
    }
  }

  private void renewFrom(Iterator<List<HeldLease>> next) {
    List<HeldLease> batch;
    synchronized (next) {
      if (!next.hasNext()) {
        return;
      }
      batch = next.next();
    }
    renew(batch).whenComplete((r, e) -> renewFrom(next));
  }

  /**
   * One batch at a time, the next once the previous has answered. Sent all at once, the batches
   * queued up in Redis while the client handled their replies on the same cores: on our 2-core
   * machine the worst single script then took 4.5 to 5 ms instead of about 1 (the held-locks
   * scenario of {@code ./relock bench}, 10,000 locks). A failed batch ends the tick: the rest would
   * most likely wait out the same failure one command timeout each; the next tick, or the
   * reconnect, renews them, and the expiry checks report any lease that runs out meanwhile.
   */
  private void renewInTurn(List<List<HeldLease>> batches, int next) {
    if (next < batches.size()) {
      renew(batches.get(next)).whenComplete((r, e) -> {
        if (e == null) {
          renewInTurn(batches, next + 1);
        }
      });
    }
  }

  private CompletableFuture<?> renew(List<HeldLease> batch) {
    List<String> keys = new ArrayList<>(batch.size());
    List<String> args = new ArrayList<>(batch.size() + 2);
    args.add(Long.toString(leaseMillis));
    for (HeldLease lease : batch) {
      keys.add(lease.holdKey);
      args.add(lease.owner);
    }
    args.add(markerRetention);
    long sent = System.nanoTime();
    String what = batch.size() == 1 ? batch.get(0).lockName() : batch.size() + " locks";
    return scripts.run(Scripts.RENEW, keys, args, what).whenComplete((reply, error) -> {
      if (error != null) {
        // Leases keep their deadlines; if renewals keep failing, the expiry checks report them lost.
        log.warn("watchdog could not renew {}: {}", what, error.getMessage());
        batch.forEach(lease -> lease.renewalFailed = true);
        listeners.emit(l -> l.renewalFailed(batch.size(), error));
        return;
      }
      int renewed = 0;
      for (int i = 0; i < batch.size(); i++) {
        HeldLease lease = batch.get(i);
        if (((Long) reply.get(i)) == 1L) {
          lease.renewed(sent);
          lease.renewalFailed = false;
          renewed++;
        } else {
          leases.remove(lease);
          lease.lost("a renewal found the lock expired or held by another owner");
        }
      }
      int count = renewed;
      listeners.emit(l -> l.renewed(count));
    });
  }
}

package io.relock.internal;

import java.util.ArrayList;
import java.util.List;
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

  private final ScriptRunner scripts;
  private final ScheduledExecutorService scheduler;
  private final long leaseMillis;
  private final long tickNanos;
  private final Set<HeldLease> leases = ConcurrentHashMap.newKeySet();
  private final Consumer<HeldLease> armExpiryCheck;
  private ScheduledFuture<?> task;

  /**
   * @param armExpiryCheck arms an exact check at a lease's deadline; called for leases whose
   *     deadline falls before the next tick, so that a stalled renewal is reported on time
   */
  WatchdogRenewer(ScriptRunner scripts, ScheduledExecutorService scheduler, long leaseMillis,
      Consumer<HeldLease> armExpiryCheck) {
    this.scripts = scripts;
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

  void tick() {
    long now = System.nanoTime();
    List<List<HeldLease>> batches = new ArrayList<>();
    List<HeldLease> batch = null;
    for (HeldLease lease : leases) {
      // A lease renewed at the last tick has about two ticks left and needs no check; one whose
      // last renewal failed has about one, and the next tick would come too late for it.
      if (lease.expiryCheck == null && lease.validUntilNanos() - now < tickNanos + tickNanos / 2) {
        armExpiryCheck.accept(lease);
      }
      if (batch == null || batch.size() == BATCH) {
        batch = new ArrayList<>(Math.min(BATCH, leases.size()));
        batches.add(batch);
      }
      batch.add(lease);
    }
    renewInTurn(batches, 0);
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
    List<String> args = new ArrayList<>(batch.size() + 1);
    args.add(Long.toString(leaseMillis));
    for (HeldLease lease : batch) {
      keys.add(lease.keys.lock());
      args.add(lease.owner);
    }
    long sent = System.nanoTime();
    String what = batch.size() == 1 ? batch.get(0).lockName() : batch.size() + " locks";
    return scripts.run(Scripts.RENEW, keys, args, what).whenComplete((reply, error) -> {
      if (error != null) {
        // Leases keep their deadlines; if renewals keep failing, the expiry checks report them lost.
        log.warn("watchdog could not renew {}: {}", what, error.getMessage());
        return;
      }
      for (int i = 0; i < batch.size(); i++) {
        HeldLease lease = batch.get(i);
        if (((Long) reply.get(i)) == 1L) {
          lease.renewed(sent);
        } else {
          leases.remove(lease);
          lease.lost("a renewal found the lock expired or held by another owner");
        }
      }
    });
  }
}

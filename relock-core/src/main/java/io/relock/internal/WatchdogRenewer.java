package io.relock.internal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews every watchdog-renewed lease of one client, in batches: {@code renew.lua} calls sent one
 * after another, one tick every third of the default lease, and one more at once when the
 * connection to Redis comes back. No timer per lock, except an expiry check for a lease whose
 * renewal failed.
 *
 * <p>A batch that failed for a passing reason (Redis unreachable, slow, failing over) is tried
 * again after a backoff, 25 ms doubling to a second, with the driver asked to read the topology
 * again each time, until it succeeds or its leases end: after a Redis Cluster failover no
 * reconnect comes (the slot moved to another node), and the next tick, a third of the lease
 * later, could come too late. A lease belongs to one pass of renewals at a time (a tick's, or a
 * retry of what failed in one), so a retry never stacks on the next tick's renewal of the same
 * lease.
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

  /** The shortest wait before a retry: near a lease's end, retries come every half of what is left, but not closer. */
  private static final long MIN_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(25);

  private final ScriptRunner scripts;
  private final ScheduledExecutorService scheduler;
  private final long leaseMillis;
  /** How long after a renewal is sent Redis may hold its leases, at most (see LeaseKeeper#extendedByCallTo). */
  private final long extendsForNanos;
  private final long tickNanos;
  private final Set<HeldLease> leases = ConcurrentHashMap.newKeySet();
  private final Consumer<HeldLease> armExpiryCheck;
  private final boolean perSlot;
  private final Listeners listeners;
  /** Asks the driver to read the topology again (see {@link io.relock.spi.RedisDriver#refreshTopology}). */
  private final Runnable refreshTopology;
  /** Retries waiting for their timer; a reconnect runs them at once. */
  private final Set<PendingRetry> retries = ConcurrentHashMap.newKeySet();
  /** Leases that had missed a renewal when the last tick began; see {@link io.relock.RelockStats}. */
  private volatile int leasesAtRisk;
  /** See {@link #batchSize()}. */
  private volatile int batchSize = FIRST_BATCH;
  private volatile boolean stopped;
  private ScheduledFuture<?> task;

  /**
   * @param extendsForNanos how long after a renewal is sent Redis may hold its leases, at most
   * @param armExpiryCheck arms an exact check at a lease's deadline; called for leases whose
   *     deadline falls before the next tick, so that a stalled renewal is reported on time
   * @param perSlot whether batches must keep to one Redis Cluster slot each
   * @param refreshTopology asks the driver to read the topology again, before a retry
   */
  WatchdogRenewer(ScriptRunner scripts, ScheduledExecutorService scheduler, long leaseMillis, long extendsForNanos,
      Consumer<HeldLease> armExpiryCheck, boolean perSlot, Listeners listeners, Runnable refreshTopology) {
    this.extendsForNanos = extendsForNanos;
    this.scripts = scripts;
    this.listeners = listeners;
    this.perSlot = perSlot;
    this.armExpiryCheck = armExpiryCheck;
    this.scheduler = scheduler;
    this.leaseMillis = leaseMillis;
    this.refreshTopology = refreshTopology;
    this.tickNanos = Math.max(1, TimeUnit.MILLISECONDS.toNanos(leaseMillis) / 3);
  }

  synchronized void start() {
    task = scheduler.scheduleAtFixedRate(this::tick, tickNanos, tickNanos, TimeUnit.NANOSECONDS);
  }

  /** Stops the ticks and the retries; calls under way finish, and nothing follows them. */
  synchronized void stop() {
    stopped = true;
    if (task != null) {
      task.cancel(false);
    }
    for (PendingRetry r : retries) {
      r.cancel();
    }
  }

  void add(HeldLease lease) {
    leases.add(lease);
  }

  void remove(HeldLease lease) {
    leases.remove(lease);
  }

  /**
   * Renews everything now, off the calling thread: a reconnect, after which renewals that failed
   * meanwhile may go through. Retries waiting for their backoff go at once too.
   */
  void renewNow() {
    try {
      scheduler.execute(() -> {
        tick();
        for (PendingRetry r : retries) {
          r.fire();
        }
      });
    } catch (RejectedExecutionException closing) {
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
    if (stopped) {
      return;
    }
    long now = System.nanoTime();
    List<HeldLease> due = new ArrayList<>(leases.size());
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
      // A lease whose renewal an earlier pass still tries (or still has in flight) is left to it.
      if (HeldLease.RENEWING.compareAndSet(lease, 0, 1)) {
        due.add(lease);
      }
    }
    leasesAtRisk = atRisk;
    pass(due, 0);
  }

  /**
   * Renews {@code due}, leases this pass owns, one group after another in each of its lanes.
   *
   * @param failures how many passes in a row have failed to renew these leases: 0 for a tick's
   */
  private void pass(List<HeldLease> due, int failures) {
    if (due.isEmpty()) {
      return;
    }
    // One group of leases that a single script call may renew: all of them, or one slot's.
    Collection<List<HeldLease>> groups;
    if (perSlot) {
      Map<Integer, List<HeldLease>> bySlot = new TreeMap<>();
      for (HeldLease lease : due) {
        bySlot.computeIfAbsent(lease.slot(), s -> new ArrayList<>()).add(lease);
      }
      groups = bySlot.values();
    } else {
      groups = List.of(due);
    }
    Pass pass = new Pass(groups.iterator(), failures, perSlot ? Math.min(CLUSTER_IN_FLIGHT, groups.size()) : 1);
    for (int lane = 0; lane < pass.lanes; lane++) {
      renewNextGroup(pass);
    }
  }

  /**
   * One pass of renewals, a tick's or a retry's: its groups of leases, the lanes that renew them,
   * and the leases of the groups that failed, to be tried again once every lane is done.
   */
  private final class Pass {
    private final Iterator<List<HeldLease>> groups;
    private final int failures;
    private final int lanes;
    private final AtomicInteger lanesLeft;
    /** Leases whose batch failed for a passing reason; guarded by this. */
    private final List<HeldLease> failed = new ArrayList<>();

    Pass(Iterator<List<HeldLease>> groups, int failures, int lanes) {
      this.groups = groups;
      this.failures = failures;
      this.lanes = lanes;
      this.lanesLeft = new AtomicInteger(lanes);
    }

    synchronized List<HeldLease> nextGroup() {
      return groups.hasNext() ? groups.next() : null;
    }

    synchronized void failed(List<HeldLease> rest) {
      failed.addAll(rest);
    }

    void laneDone() {
      if (lanesLeft.decrementAndGet() == 0) {
        List<HeldLease> again;
        synchronized (this) {
          again = new ArrayList<>(failed);
        }
        retryLater(again, failures);
      }
    }
  }

  /**
   * One lane of a pass: renews the next group, batch after batch, then the group after it. A
   * batch sent while the previous one is still in Redis would only queue up behind it (and, on
   * our 2 cores, compete with the client handling the replies). A failed batch ends the lane: the
   * rest would most likely wait out the same failure one command timeout each; the retry renews
   * them, and the expiry checks report any lease that runs out meanwhile. On a cluster each lane
   * goes on to its next slot's group, since one node may be down while the others answer;
   * elsewhere the one lane ends the pass.
   */
  private void renewNextGroup(Pass pass) {
    List<HeldLease> group = pass.nextGroup();
    if (group == null) {
      pass.laneDone();
      return;
    }
    renewFrom(pass, group, 0);
  }

  private void renewFrom(Pass pass, List<HeldLease> group, int from) {
    if (from >= group.size()) {
      renewNextGroup(pass);
      return;
    }
    List<HeldLease> batch = group.subList(from, Math.min(group.size(), from + batchSize));
    renew(batch, pass.failures).whenComplete((done, error) -> {
      if (error == null) {
        renewFrom(pass, group, from + done);
        return;
      }
      List<HeldLease> rest = group.subList(from, group.size());
      if (ScriptRunner.isTransient(error)) {
        pass.failed(rest);
      } else {
        rest.forEach(WatchdogRenewer::release); // an error reply: the next tick tries again
      }
      if (perSlot) {
        renewNextGroup(pass);
      } else {
        pass.laneDone();
      }
    });
  }

  /** The lease's renewal belongs to no pass any more. */
  private static void release(HeldLease lease) {
    lease.renewing = 0;
  }

  /**
   * Tries {@code failed} again after a backoff, with the topology read again meanwhile; not past
   * a lease's end, after which it is lost (its expiry check reports it). The retry keeps the
   * leases: no tick renews them meanwhile.
   *
   * @param failures how many passes in a row had failed for these leases before the one that just
   *     failed: 0 after a tick's
   */
  private void retryLater(List<HeldLease> failed, int failures) {
    List<HeldLease> alive = stillHeld(failed);
    if (alive.isEmpty()) {
      return;
    }
    long now = System.nanoTime();
    long earliest = Long.MAX_VALUE;
    for (HeldLease lease : alive) {
      earliest = Math.min(earliest, lease.validUntilNanos() - now);
    }
    refreshTopology.run();
    long delay = Math.min(Retry.backoffNanos(failures), Math.max(earliest / 2, MIN_RETRY_NANOS));
    PendingRetry retry = new PendingRetry(alive, failures + 1);
    retries.add(retry);
    try {
      retry.timer = scheduler.schedule(retry::fire, delay, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException closing) {
      retry.cancel();
    }
    if (stopped) {
      retry.cancel(); // stop() may have looked at the retries before this one was added
    }
  }

  /** Those of {@code owned} that are still renewed and within their lease; the others are released. */
  private List<HeldLease> stillHeld(List<HeldLease> owned) {
    long now = System.nanoTime();
    List<HeldLease> alive = new ArrayList<>(owned.size());
    for (HeldLease lease : owned) {
      if (!stopped && leases.contains(lease) && lease.validUntilNanos() - now > 0) {
        alive.add(lease);
      } else {
        release(lease);
      }
    }
    return alive;
  }

  /** A retry waiting for its backoff to pass (or a reconnect). */
  private final class PendingRetry {
    private final List<HeldLease> owned;
    private final int failures;
    private volatile ScheduledFuture<?> timer;

    PendingRetry(List<HeldLease> owned, int failures) {
      this.owned = owned;
      this.failures = failures;
    }

    /** Runs the retry, once, whoever calls first: its timer or a reconnect. */
    void fire() {
      if (!retries.remove(this)) {
        return;
      }
      cancelTimer();
      pass(stillHeld(owned), failures);
    }

    void cancel() {
      if (retries.remove(this)) {
        cancelTimer();
        owned.forEach(WatchdogRenewer::release);
      }
    }

    private void cancelTimer() {
      ScheduledFuture<?> t = timer;
      if (t != null) {
        t.cancel(false);
      }
    }
  }

  /**
   * Renews what of {@code batch} the budget allows; completes with how many it looked at.
   *
   * @param failures how many passes in a row have failed for these leases: after the first
   *     failure, the next ones are logged at debug level only
   */
  private CompletableFuture<Integer> renew(List<HeldLease> batch, int failures) {
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
      } else {
        release(lease);
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
            if (failures == 0) {
              log.warn("watchdog could not renew {}: {}; trying again", what, error.getMessage());
            } else {
              log.debug("watchdog could not renew {} ({} tries): {}", what, failures + 1, error.getMessage());
            }
            sending.forEach(lease -> lease.renewalFailed = true);
            listeners.emit(l -> l.renewalFailed(sending.size(), error));
            throw error instanceof CompletionException c ? c : new CompletionException(error);
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
            release(lease);
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

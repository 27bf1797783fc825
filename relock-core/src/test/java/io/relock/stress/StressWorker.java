package io.relock.stress;

import io.relock.DistributedLock;
import io.relock.LockLease;
import io.relock.LockLostException;
import io.relock.LockTimeoutException;
import io.relock.Relock;
import io.relock.RelockException;
import java.time.Duration;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One worker thread of a stress run: a seeded random mix of every entry point of the lock API,
 * with re-entrant nesting, leases closed from other threads, cancelled async acquisitions and
 * interrupts arriving from outside. Every call's outcome is checked against what the API promises;
 * anything else is a violation.
 */
final class StressWorker implements Runnable {
  /** Operations and their weights in the mix. */
  private enum Op {
    LOCK(10), LOCK_INTERRUPTIBLY(8), TRY_LOCK(10), TRY_LOCK_WITH_FLAG_SET(5), TRY_LOCK_TIMED(8),
    TRY_LOCK_ZERO(5), ACQUIRE(8), ACQUIRE_FIXED_LEASE(5), ACQUIRE_ZERO(6), TRY_ACQUIRE_ZERO(8),
    ACQUIRE_ASYNC(6), ACQUIRE_ASYNC_CANCELLED(8);

    final int weight;

    Op(int weight) {
      this.weight = weight;
    }
  }

  private static final Op[] OPS = Op.values();
  private static final int TOTAL_WEIGHT = java.util.Arrays.stream(OPS).mapToInt(o -> o.weight).sum();
  /** What a semaphore can do: its permits are leases, owned by no thread. */
  private static final Op[] LEASE_OPS = {Op.ACQUIRE, Op.ACQUIRE_FIXED_LEASE, Op.ACQUIRE_ZERO, Op.TRY_ACQUIRE_ZERO,
      Op.ACQUIRE_ASYNC, Op.ACQUIRE_ASYNC_CANCELLED};
  private static final int LEASE_WEIGHT = java.util.Arrays.stream(LEASE_OPS).mapToInt(o -> o.weight).sum();

  /**
   * What an operation works on: an exclusive lock, a read-write lock's lane, or a semaphore; how it
   * takes leases there, and the role its holders have inside.
   */
  private record Target(String name, DistributedLock lock, io.relock.DistributedSemaphore semaphore,
      CriticalSections.Role role) {
    LockLease acquire(Duration wait) {
      return semaphore != null ? semaphore.acquire(wait) : lock.acquire(wait);
    }

    LockLease acquire(Duration wait, Duration lease) {
      return semaphore != null ? semaphore.acquire(wait, lease) : lock.acquire(wait, lease);
    }

    Optional<LockLease> tryAcquire(Duration wait) {
      return semaphore != null ? semaphore.tryAcquire(wait) : lock.tryAcquire(wait);
    }

    CompletableFuture<LockLease> acquireAsync(Duration wait) {
      return semaphore != null ? semaphore.acquireAsync(wait) : lock.acquireAsync(wait);
    }
  }
  private static final long[] WAITS_MS = {1, 5, 20, 100, 400};
  /** Explicit leases outlast every hold and every fault, so no lease may be lost in a run. */
  private static final Duration FIXED_LEASE = StressRun.LEASE;

  private final StressRun run;
  private final int slot;
  private final Random random;
  private final long opBoundNanos;
  /** {@link StressRun#connectionKills()} when the current operation began. */
  private long killsAtStart;

  StressWorker(StressRun run, int slot, long seed) {
    this.run = run;
    this.slot = slot;
    this.random = new Random(seed);
    this.opBoundNanos = run.settings().commandTimeout().multipliedBy(4).plusSeconds(3).toNanos();
  }

  @Override
  public void run() {
    while (!run.stopping()) {
      Thread.interrupted(); // an interrupt aimed at the previous operation
      Relock client = run.client(slot);
      Target target = target(client);
      String name = target.name();
      Op op = target.semaphore() != null ? pickLeaseOp() : pick();
      long wait = WAITS_MS[random.nextInt(WAITS_MS.length)];
      long start = System.nanoTime();
      killsAtStart = run.connectionKills();
      try {
        perform(op, client, target, wait);
      } catch (Throwable t) {
        failed(op.name(), t, client, op);
      }
      long took = System.nanoTime() - start;
      boolean unbounded = op == Op.LOCK || op == Op.LOCK_INTERRUPTIBLY;
      if (!unbounded && took > TimeUnit.MILLISECONDS.toNanos(wait) + opBoundNanos) {
        run.log().violation(op + " on '" + name + "' took " + TimeUnit.NANOSECONDS.toMillis(took)
            + " ms with a wait of " + wait + " ms");
      }
    }
  }

  /**
   * An exclusive lock six times in ten, a multi-lock of two of the same names once; with the lock
   * family, else a reader, a writer or a permit.
   */
  private Target target(Relock client) {
    int r = run.family() ? random.nextInt(10) : random.nextInt(7);
    if (r < 6) {
      String name = run.name(random);
      return new Target(name, client.lock(name), null, CriticalSections.Role.ALONE);
    }
    if (r == 6) {
      String first = run.name(random);
      String second = run.name(random);
      while (second.equals(first)) {
        second = run.name(random);
      }
      DistributedLock both = client.multiLock(first, second);
      return new Target(both.name(), both, null, CriticalSections.Role.ALONE);
    }
    if (r < 9) {
      String name = run.readWriteName(random);
      io.relock.DistributedReadWriteLock rw = client.readWriteLock(name);
      return r == 7 ? new Target(name, rw.readLock(), null, CriticalSections.Role.READER)
          : new Target(name, rw.writeLock(), null, CriticalSections.Role.ALONE);
    }
    String name = run.semaphoreName(random);
    return new Target(name, null, client.semaphore(name, StressRun.PERMITS), CriticalSections.Role.PERMIT);
  }

  /** The locks a hold of {@code lock} is inside: its own name, or each of a multi-lock's. */
  private static java.util.List<String> sectionsOf(DistributedLock lock) {
    return java.util.List.of(lock.name().split(","));
  }

  private Op pickLeaseOp() {
    int r = random.nextInt(LEASE_WEIGHT);
    for (Op op : LEASE_OPS) {
      r -= op.weight;
      if (r < 0) {
        return op;
      }
    }
    throw new AssertionError();
  }

  private Op pick() {
    int r = random.nextInt(TOTAL_WEIGHT);
    for (Op op : OPS) {
      r -= op.weight;
      if (r < 0) {
        return op;
      }
    }
    throw new AssertionError();
  }

  private void perform(Op op, Relock client, Target target, long waitMs) throws Exception {
    Duration wait = Duration.ofMillis(waitMs);
    DistributedLock lock = target.lock();
    CriticalSections.Role role = target.role();
    switch (op) {
      case LOCK -> {
        lock.lock();
        holdThreadStyle(op, client, lock, role);
      }
      case LOCK_INTERRUPTIBLY -> {
        lock.lockInterruptibly();
        holdThreadStyle(op, client, lock, role);
      }
      case TRY_LOCK -> tryLock(op, client, lock, false, role);
      case TRY_LOCK_WITH_FLAG_SET -> {
        Thread.currentThread().interrupt();
        tryLock(op, client, lock, true, role);
      }
      case TRY_LOCK_TIMED, TRY_LOCK_ZERO -> {
        long t = op == Op.TRY_LOCK_ZERO ? 0 : waitMs;
        if (lock.tryLock(t, TimeUnit.MILLISECONDS)) {
          holdThreadStyle(op, client, lock, role);
        } else {
          run.log().count(op + ": false");
        }
      }
      case ACQUIRE -> holdLease(op, client, target.acquire(wait), role);
      case ACQUIRE_FIXED_LEASE -> holdLease(op, client, target.acquire(wait, FIXED_LEASE), role);
      case ACQUIRE_ZERO -> holdLease(op, client, target.acquire(Duration.ZERO), role);
      case TRY_ACQUIRE_ZERO -> {
        Optional<LockLease> lease = target.tryAcquire(Duration.ZERO);
        if (lease.isPresent()) {
          holdLease(op, client, lease.get(), role);
        } else {
          run.log().count(op + ": empty");
        }
      }
      case ACQUIRE_ASYNC, ACQUIRE_ASYNC_CANCELLED -> acquireAsync(op, client, target, wait);
    }
  }

  private void tryLock(Op op, Relock client, DistributedLock lock, boolean flagSet, CriticalSections.Role role) {
    boolean got;
    try {
      got = lock.tryLock();
    } catch (RelockException e) {
      if (String.valueOf(e.getMessage()).contains("interrupt")) {
        run.log().violation("tryLock() threw on an interrupt: " + e);
        return;
      }
      throw e;
    }
    if (flagSet && !Thread.currentThread().isInterrupted()) {
      run.log().violation("tryLock() cleared the interrupt flag (ReentrantLock.tryLock() leaves it set)");
    }
    if (got) {
      holdThreadStyle(op, client, lock, role);
    } else {
      run.log().count(op + ": false");
    }
  }

  private void acquireAsync(Op op, Relock client, Target target, Duration wait) throws Exception {
    CompletableFuture<LockLease> f = target.acquireAsync(wait);
    if (op == Op.ACQUIRE_ASYNC_CANCELLED) {
      LockSupport.parkNanos(random.nextInt(3) * 500_000L);
      if (f.cancel(true)) {
        run.log().count(op + ": cancelled");
        return;
      }
    }
    LockLease lease;
    while (true) {
      try {
        lease = f.get();
        break;
      } catch (ExecutionException e) {
        throw e.getCause() instanceof Exception cause ? cause : e;
      } catch (InterruptedException e) {
        // Interrupted while waiting for the future: give it up, unless it completed meanwhile.
        if (f.cancel(true)) {
          run.log().count(op + ": cancelled on interrupt");
          return;
        }
      }
    }
    holdLease(op, client, lease, target.role());
  }

  /** Holds a lock()-style hold: checks, maybe nests re-entrant calls, works, unlocks every hold. */
  private void holdThreadStyle(Op op, Relock client, DistributedLock lock, CriticalSections.Role role) {
    run.log().count(op + " " + role + ": acquired");
    boolean held = lock.isHeldByCurrentThread();
    int count = lock.getHoldCount();
    // Read after the hold: closing a client marks it closed before it releases the holds.
    if ((!held || count != 1) && !run.wasClosed(client)) {
      run.log().violation(op + " returned success but isHeldByCurrentThread() = " + held + ", getHoldCount() = " + count);
    }
    Object holder = op + "/" + Thread.currentThread().getName() + "/" + System.nanoTime();
    for (String section : sectionsOf(lock)) {
      run.sections().enter(section, holder, client, 0, role);
    }
    int depth = 1;
    while (depth < 4 && random.nextInt(10) < 3) {
      if (nest(client, lock)) {
        depth++;
      }
      if (!run.wasClosed(client) && lock.getHoldCount() != depth) {
        run.log().violation("hold count " + lock.getHoldCount() + " after a nested call, expected " + depth);
        depth = lock.getHoldCount();
      }
    }
    work();
    for (String section : sectionsOf(lock)) {
      run.sections().exit(section, holder);
    }
    while (depth > 0) {
      try {
        lock.unlock();
      } catch (RuntimeException e) {
        failed("unlock", e, client, null);
        if (e instanceof IllegalMonitorStateException && !(e instanceof LockLostException)) {
          return;
        }
      }
      depth--;
      if (!run.wasClosed(client) && lock.getHoldCount() != depth) {
        run.log().violation("hold count " + lock.getHoldCount() + " after unlock(), expected " + depth);
        return;
      }
    }
    if (lock.isHeldByCurrentThread()) {
      run.log().violation("still held by the thread after its last unlock()");
    }
  }

  /** One re-entrant call on a held lock; returns whether it added a hold. */
  private boolean nest(Relock client, DistributedLock lock) {
    int kind = random.nextInt(4);
    String what = new String[] {"nested lock", "nested tryLock", "nested tryLock(t)", "nested lockInterruptibly"}[kind];
    try {
      boolean got = switch (kind) {
        case 0 -> {
          lock.lock();
          yield true;
        }
        case 1 -> lock.tryLock();
        case 2 -> lock.tryLock(random.nextInt(50), TimeUnit.MILLISECONDS);
        default -> {
          lock.lockInterruptibly();
          yield true;
        }
      };
      run.log().count(what + ": " + got);
      return got;
    } catch (Throwable t) {
      failed(what, t, client, new Op[] {Op.LOCK, Op.TRY_LOCK, Op.TRY_LOCK_TIMED, Op.LOCK_INTERRUPTIBLY}[kind]);
      return false;
    }
  }

  private void holdLease(Op op, Relock client, LockLease lease, CriticalSections.Role role) throws Exception {
    run.log().count(op + " " + role + ": acquired");
    if (!lease.isValid() && !run.wasClosed(client)) {
      run.log().violation(op + " returned a lease that is not valid");
    }
    Object holder = op + "/" + Thread.currentThread().getName() + "/" + lease + "@" + System.identityHashCode(lease);
    java.util.Map<String, Long> tokens = lease.fencingTokens(); // a multi-lock's: one per lock
    for (java.util.Map.Entry<String, Long> section : tokens.entrySet()) {
      run.sections().enter(section.getKey(), holder, client, section.getValue(), role);
    }
    work();
    for (String section : tokens.keySet()) {
      run.sections().exit(section, holder);
    }
    try {
      if (random.nextInt(4) == 0) {
        closeOnAnotherThread(lease);
      } else {
        lease.close();
      }
    } catch (RuntimeException e) {
      failed("close", e, client, null);
    }
  }

  /** Closes {@code lease} on another thread and waits for that, whatever interrupts arrive. */
  private void closeOnAnotherThread(LockLease lease) {
    java.util.concurrent.Future<?> closing = run.otherThread(lease::close);
    boolean interrupted = false;
    try {
      while (true) {
        try {
          closing.get();
          return;
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException e) {
          throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** A short critical section; an interrupt cuts it short, as it would real work. */
  private void work() {
    int r = random.nextInt(4);
    if (r == 0) {
      return;
    }
    try {
      Thread.sleep(0, r * 300_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Classifies a failed call: documented failures are counted, anything else is a violation.
   *
   * @param op the operation, or null for an unlock, close or nested call that never waits
   */
  private void failed(String what, Throwable t, Relock client, Op op) {
    boolean closed = run.wasClosed(client);
    String outcome = what + ": " + t.getClass().getSimpleName();
    boolean timed = op != null && op != Op.LOCK && op != Op.LOCK_INTERRUPTIBLY;
    boolean interruptible = op == Op.LOCK_INTERRUPTIBLY || op == Op.TRY_LOCK_TIMED || op == Op.TRY_LOCK_ZERO;
    boolean documented;
    if (t instanceof LockTimeoutException) {
      documented = timed;
    } else if (t instanceof LockLostException) {
      // Leases outlast every fault in a run: only a closed client loses one, or a release that the
      // driver sent again after a connection kill (see StressRun#connectionKills).
      boolean resent = run.connectionKills() > killsAtStart;
      documented = closed || resent || run.lossesExpected();
      outcome += closed ? " (client closed)" : resent ? " (connection killed meanwhile)"
          : run.lossesExpected() ? " (the network kept it from Redis)" : "";
    } else if (t instanceof RelockException) {
      // Redis failed past the wait (the faults), or the client was closed. lock() and
      // lockInterruptibly() wait without limit, so they ride out every Redis failure.
      boolean unbounded = op == Op.LOCK || op == Op.LOCK_INTERRUPTIBLY;
      documented = closed || !unbounded;
      outcome += closed ? " (client closed)"
          : String.valueOf(t.getMessage()).startsWith("interrupted") ? " (interrupted)" : " (Redis)";
    } else if (t instanceof InterruptedException) {
      documented = interruptible;
    } else if (t instanceof CancellationException) {
      documented = op == Op.ACQUIRE_ASYNC_CANCELLED;
    } else if (t instanceof IllegalMonitorStateException) {
      documented = closed;
    } else {
      documented = false;
    }
    if (documented) {
      run.log().count(outcome);
    } else {
      run.log().violation(what + " threw " + t + (closed ? " (client closed)" : "") + " at "
          + (t.getStackTrace().length > 0 ? t.getStackTrace()[0] : "?"));
    }
  }
}

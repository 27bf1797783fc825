package io.relock.internal;

import io.relock.DistributedLock;
import io.relock.LockLease;
import io.relock.LockObserver;
import io.relock.LockTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/**
 * Several exclusive locks taken as one: all of them or none. Each lock is an ordinary exclusive
 * lock: waiting, hand-over, renewal, loss reporting and fencing are the engine's.
 *
 * <p>Two protocols. <b>In one call</b>, where the locks' keys live on one server (any names on one
 * Redis or a Sentinel-managed primary; on a Redis Cluster, names whose keys share a slot): the
 * first attempt takes every lock or none in one script ({@code multilock_acquire.lua}, see {@link
 * JointAttempt}); it succeeds when every lock is free and nobody waits for any of them. <b>One by
 * one</b>, otherwise (keys across slots or Redlock masters, or the joint attempt found a lock
 * busy): the locks are taken in one order, that of their Redis keys, whatever order the caller
 * named them in, so two multi-locks that share locks can never each hold one the other waits for:
 * {A, B} and {B, A} both take A first. That order protects multi-locks from one another only: a
 * thread that takes some of the same locks one at a time, with single locks in another order, can
 * deadlock with a multi-lock, as with any locks. A caller that holds some of the locks waits for
 * the next as long as its own wait allows: {@code lock()} and {@code lockInterruptibly()} without
 * limit, since the holder may keep renewing its lease; {@code tryLock(time, unit)} and {@code
 * acquire(wait)} until the wait runs out. When its wait runs out, or it is interrupted or
 * cancelled, it releases every lock it took, and nothing of it is left in Redis.
 */
public final class RedisMultiLock implements DistributedLock {
  private final LockEngine engine;
  private final List<RedisLock> locks;
  /** The names in the order the locks are taken: that of their keys. */
  private final List<String> ordered;
  private final String name;
  /** Whether the first attempt takes every lock in one call (see {@link LockEngine#takesJointly}). */
  private final boolean jointly;

  public RedisMultiLock(LockEngine engine, List<String> names) {
    this.engine = engine;
    List<String> byKey = new ArrayList<>(names);
    byKey.sort(Comparator.comparing(n -> engine.keys(n).lock()));
    this.ordered = List.copyOf(byKey);
    this.locks = ordered.stream().map(n -> new RedisLock(engine, LockKind.EXCLUSIVE, n, false)).toList();
    this.name = String.join(",", names);
    this.jointly = engine.takesJointly(ordered);
  }

  /** The names, as given, separated by commas. */
  @Override
  public String name() {
    return name;
  }

  @Override
  public LockLease acquire(Duration wait) {
    return acquire(wait, null);
  }

  @Override
  public LockLease acquire(Duration wait, Duration lease) {
    Checks.waitTime(wait);
    if (lease != null) {
      Checks.lease("lease", lease);
    }
    Observers.Wait watched = engine.observers.start(LockObserver.Kind.MULTI_LOCK, name);
    if (watched == null) {
      return take(wait, lease);
    }
    MultiLease taken;
    try {
      taken = take(wait, lease);
    } catch (RuntimeException | Error e) {
      watched.failed(e);
      throw e;
    }
    observeHeld(watched, taken.leases, false);
    return taken;
  }

  private MultiLease take(Duration wait, Duration lease) {
    long deadline = System.nanoTime() + saturated(wait);
    if (jointly) {
      Joint joint = Waiting.await(takeJointly(-1, lease));
      if (joint.tookAll()) {
        return new MultiLease(name, joint.held());
      }
      releaseQuietly(joint.held());
      if (wait.isZero()) {
        joint.throwIfFailed();
      }
    }
    List<LockLease> taken = new ArrayList<>(locks.size());
    try {
      for (RedisLock lock : locks) {
        Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
        taken.add(lease == null ? lock.acquire(left) : lock.acquire(left, lease));
      }
      return new MultiLease(name, taken);
    } catch (LockTimeoutException e) {
      releaseQuietly(taken);
      LockTimeoutException all = new LockTimeoutException(name, wait);
      all.initCause(e);
      throw all;
    } catch (RuntimeException | Error e) {
      releaseQuietly(taken);
      throw e;
    }
  }

  @Override
  public CompletableFuture<LockLease> acquireAsync(Duration wait) {
    Checks.waitTime(wait);
    Observers.Wait watched = engine.observers.start(LockObserver.Kind.MULTI_LOCK, name);
    CompletableFuture<LockLease> result = takeAsync(wait);
    if (watched != null) {
      result.whenComplete((lease, error) -> {
        if (error != null) {
          watched.failed(error);
        } else {
          observeHeld(watched, ((MultiLease) lease).leases, false);
        }
      });
    }
    return result;
  }

  /**
   * Tells {@code watched} the multi-lock got {@code leases}: one hold, made of theirs, that ends
   * when the last of them ends.
   */
  private static void observeHeld(Observers.Wait watched, List<? extends LockLease> leases, boolean reentry) {
    long token = 0;
    boolean handedOver = false;
    List<HeldLease> held = new ArrayList<>(leases.size());
    for (LockLease l : leases) {
      token = Math.max(token, l.fencingToken());
      if (l instanceof HeldLease h) {
        handedOver |= h.handedOver;
        held.add(h);
      }
    }
    Observers.Hold hold = watched.acquired(token, handedOver, reentry, held.size());
    if (hold != null) {
      for (HeldLease h : held) {
        h.observe(hold);
      }
    }
  }

  /** What a thread-style attempt to take every lock does: whether it took them. */
  private interface Attempt {
    boolean run() throws InterruptedException;
  }

  /**
   * Runs a thread-style attempt, followed by the client's observers as one acquisition; a thread
   * that already held any of the locks re-enters (no new hold is followed).
   */
  private boolean watched(Attempt attempt, Duration wait) throws InterruptedException {
    Observers.Wait watched = engine.observers.start(LockObserver.Kind.MULTI_LOCK, name);
    if (watched == null) {
      return attempt.run();
    }
    boolean took;
    try {
      took = attempt.run();
    } catch (InterruptedException | RuntimeException | Error e) {
      watched.failed(e);
      throw e;
    }
    if (!took) {
      watched.failed(new LockTimeoutException(name, wait));
      return false;
    }
    long thread = RedisLock.threadId();
    List<HeldLease> held = new ArrayList<>(locks.size());
    boolean reentry = false;
    for (String n : ordered) {
      HeldLease h = engine.threadHold(LockKind.EXCLUSIVE, n, thread);
      if (h != null) {
        held.add(h);
        reentry |= h.threadHolds > 1;
      }
    }
    observeHeld(watched, held, reentry);
    return true;
  }

  private boolean watchedUninterruptibly(Attempt attempt, Duration wait) {
    try {
      return watched(attempt, wait);
    } catch (InterruptedException e) {
      throw new AssertionError("an uninterruptible attempt was interrupted", e);
    }
  }

  private CompletableFuture<LockLease> takeAsync(Duration wait) {
    long deadline = System.nanoTime() + saturated(wait);
    CompletableFuture<LockLease> result = new CompletableFuture<>();
    if (!jointly) {
      takeFrom(0, new ArrayList<>(), deadline, wait, result);
      return result;
    }
    takeJointly(-1, null).whenComplete((joint, error) -> {
      if (error != null) {
        result.completeExceptionally(Waiting.unchecked(error));
      } else if (joint.tookAll()) {
        if (!result.complete(new MultiLease(name, joint.held()))) {
          releaseLater(joint.held()); // cancelled meanwhile
        }
      } else {
        releaseLater(joint.held());
        if (joint.error() != null && wait.isZero()) {
          result.completeExceptionally(joint.error());
        } else if (!result.isDone()) {
          takeFrom(0, new ArrayList<>(), deadline, wait, result);
        }
      }
    });
    return result;
  }

  /** What a joint attempt got: every lock, or some (given back by the caller) and why not all. */
  private record Joint(List<LockLease> held, boolean busy, RuntimeException error) {
    boolean tookAll() {
      return !busy && error == null;
    }

    void throwIfFailed() {
      if (error != null) {
        throw error;
      }
    }
  }

  /**
   * The first attempt in one call (see {@link JointAttempt}); the future completes once every
   * lock's acquisition has answered (each is one attempt, bounded by the command timeout).
   */
  private CompletableFuture<Joint> takeJointly(long threadId, Duration lease) {
    List<LockEngine.Pending> started = engine.acquireJointly(ordered, threadId, lease);
    CompletableFuture<?>[] answered = started.stream().map(p -> p.result().handle((h, e) -> null))
        .toArray(CompletableFuture<?>[]::new);
    return CompletableFuture.allOf(answered).thenApply(v -> {
      List<LockLease> held = new ArrayList<>(started.size());
      boolean busy = false;
      RuntimeException error = null;
      for (LockEngine.Pending p : started) {
        try {
          held.add(p.result().join());
        } catch (java.util.concurrent.CompletionException | java.util.concurrent.CancellationException e) {
          RuntimeException cause = Waiting.unchecked(e);
          if (cause instanceof LockTimeoutException) {
            busy = true;
          } else if (error == null) {
            error = cause;
          } else if (cause != error) {
            error.addSuppressed(cause); // each lock's acquisition failed with the joint call's error
          }
        }
      }
      return new Joint(held, busy, error);
    });
  }

  /**
   * The thread-style joint attempt: whether it took every lock; else what it took is given back,
   * and for a zero wait a failure other than finding a lock busy is thrown. A caller with time to
   * wait goes on one by one, which rides out what Redis failures its wait allows.
   */
  private boolean lockJointly(boolean zeroWait) {
    if (!jointly) {
      return false;
    }
    long thread = RedisLock.threadId();
    Joint joint = Waiting.await(takeJointly(thread, null));
    if (joint.tookAll()) {
      return true;
    }
    for (LockLease h : joint.held()) {
      try {
        engine.unlock(LockKind.EXCLUSIVE, h.lockName(), thread);
      } catch (RuntimeException e) {
        // Giving up anyway: a hold that could not be released expires by its lease.
      }
    }
    if (zeroWait) {
      joint.throwIfFailed();
    }
    return false;
  }

  /**
   * Takes {@code locks[next...]} one after another; any failure or a cancel releases what was
   * taken, off the calling thread (this runs on relock's event thread, which must not block).
   */
  private void takeFrom(int next, List<LockLease> taken, long deadline, Duration wait, CompletableFuture<LockLease> result) {
    if (next == locks.size()) {
      if (!result.complete(new MultiLease(name, taken))) {
        releaseLater(taken); // cancelled meanwhile
      }
      return;
    }
    CompletableFuture<LockLease> step;
    try {
      step = locks.get(next).acquireAsync(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
    } catch (RuntimeException e) {
      releaseLater(taken);
      result.completeExceptionally(e);
      return;
    }
    result.whenComplete((r, e) -> {
      if (result.isCancelled()) {
        step.cancel(false);
      }
    });
    step.whenComplete((lease, error) -> {
      if (error != null) {
        releaseLater(taken);
        Throwable cause = Waiting.unchecked(error);
        if (cause instanceof LockTimeoutException) {
          cause = new LockTimeoutException(name, wait).initCause(cause);
        }
        result.completeExceptionally(cause);
      } else if (result.isDone()) {
        taken.add(lease);
        releaseLater(taken);
      } else {
        taken.add(lease);
        takeFrom(next + 1, taken, deadline, wait, result);
      }
    });
  }

  @Override
  public void lock() {
    watchedUninterruptibly(() -> {
      lockAll();
      return true;
    }, null);
  }

  private void lockAll() {
    if (lockJointly(false)) {
      return;
    }
    int held = 0;
    try {
      for (RedisLock lock : locks) {
        lock.lock();
        held++;
      }
    } catch (RuntimeException | Error e) {
      unlockFirst(held);
      throw e;
    }
  }

  @Override
  public void lockInterruptibly() throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    watched(() -> {
      lockAllInterruptibly();
      return true;
    }, null);
  }

  private void lockAllInterruptibly() throws InterruptedException {
    if (lockJointly(false)) {
      return;
    }
    int held = 0;
    try {
      for (RedisLock lock : locks) {
        lock.lockInterruptibly();
        held++;
      }
    } catch (InterruptedException | RuntimeException | Error e) {
      unlockFirst(held);
      throw e;
    }
  }

  @Override
  public boolean tryLock() {
    return watchedUninterruptibly(this::tryAll, Duration.ZERO);
  }

  private boolean tryAll() {
    if (lockJointly(true)) {
      return true;
    }
    int held = 0;
    try {
      for (RedisLock lock : locks) {
        if (!lock.tryLock()) {
          unlockFirst(held);
          return false;
        }
        held++;
      }
      return true;
    } catch (RuntimeException e) {
      unlockFirst(held);
      throw e;
    }
  }

  @Override
  public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
    long deadline = System.nanoTime() + Math.max(0, unit.toNanos(time));
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    return watched(() -> tryAll(time, deadline), Duration.ofNanos(Math.max(0, unit.toNanos(time))));
  }

  private boolean tryAll(long time, long deadline) throws InterruptedException {
    if (lockJointly(time <= 0)) {
      return true;
    }
    int held = 0;
    try {
      for (RedisLock lock : locks) {
        if (!lock.tryLock(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
          unlockFirst(held);
          return false;
        }
        held++;
      }
      return true;
    } catch (InterruptedException | RuntimeException e) {
      unlockFirst(held);
      throw e;
    }
  }

  /**
   * Releases one hold of each lock, in the reverse of the order they were taken; every lock is
   * released even if one fails, and the first failure is thrown at the end.
   */
  @Override
  public void unlock() {
    for (RedisLock lock : locks) {
      if (!lock.isHeldByCurrentThread() && lock.getHoldCount() == 0) {
        throw new IllegalMonitorStateException("the current thread does not hold lock '" + lock.name() + "' of '"
            + name + "'");
      }
    }
    RuntimeException first = null;
    for (int i = locks.size() - 1; i >= 0; i--) {
      try {
        locks.get(i).unlock();
      } catch (RuntimeException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  private void unlockFirst(int held) {
    for (int i = held - 1; i >= 0; i--) {
      try {
        locks.get(i).unlock();
      } catch (RuntimeException e) {
        // Giving up anyway: a hold that could not be released expires by its lease.
      }
    }
  }

  /** {@link #releaseQuietly}, on another thread: closing blocks for a round trip per lease. */
  private static void releaseLater(List<LockLease> taken) {
    if (!taken.isEmpty()) {
      CompletableFuture.runAsync(() -> releaseQuietly(taken));
    }
  }

  private static void releaseQuietly(List<LockLease> taken) {
    for (int i = taken.size() - 1; i >= 0; i--) {
      try {
        taken.get(i).close();
      } catch (RuntimeException e) {
        // Giving up anyway: a hold that could not be released expires by its lease.
      }
    }
  }

  @Override
  public Condition newCondition() {
    throw new UnsupportedOperationException("relock locks have no conditions");
  }

  /** Whether any of the locks is held by anyone (an acquisition would wait). One round trip per lock. */
  @Override
  public boolean isLocked() {
    for (RedisLock lock : locks) {
      if (lock.isLocked()) {
        return true;
      }
    }
    return false;
  }

  /** Whether the calling thread holds every one of the locks through {@code lock()}-style calls. */
  @Override
  public boolean isHeldByCurrentThread() {
    return locks.stream().allMatch(RedisLock::isHeldByCurrentThread);
  }

  /** The fewest {@code lock()}-style holds the calling thread has of any one of the locks. */
  @Override
  public int getHoldCount() {
    return locks.stream().mapToInt(RedisLock::getHoldCount).min().orElse(0);
  }

  /** Frees every one of the locks whoever holds them; whether any was held. */
  @Override
  public boolean forceUnlock() {
    boolean any = false;
    for (RedisLock lock : locks) {
      any |= lock.forceUnlock();
    }
    return any;
  }

  @Override
  public String toString() {
    return "DistributedLock[" + name + ", all or none]";
  }

  private static long saturated(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException tooLong) {
      return Long.MAX_VALUE / 4;
    }
  }
}

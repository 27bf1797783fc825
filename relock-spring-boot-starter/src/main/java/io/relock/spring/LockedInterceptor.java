package io.relock.spring;

import io.relock.DistributedLock;
import io.relock.LockLease;
import io.relock.LockLostException;
import io.relock.LockTimeoutException;
import io.relock.Relock;
import io.relock.RelockException;
import io.relock.internal.GuardedSection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.beans.factory.BeanFactory;

/**
 * Takes the lock of a {@link Locked} method around its call: synchronously for plain methods,
 * without blocking a thread for futures and publishers.
 */
final class LockedInterceptor implements MethodInterceptor {

  private static final Logger log = LoggerFactory.getLogger(Locked.class);

  private final Function<MethodInvocation, LockedMethod> methods;
  private final BeanFactory beanFactory;
  private final Map<LockLease, ScheduledFuture<?>> delayedReleases = new ConcurrentHashMap<>();
  private volatile Relock relock;
  private volatile Executor executor;
  private volatile List<LostLeaseHandler> handlers;
  private volatile ScheduledThreadPoolExecutor timer;
  private volatile Object reactive;

  LockedInterceptor(Function<MethodInvocation, LockedMethod> methods, BeanFactory beanFactory) {
    this.methods = methods;
    this.beanFactory = beanFactory;
  }

  @Override
  public Object invoke(MethodInvocation invocation) throws Throwable {
    LockedMethod m = methods.apply(invocation);
    String name = m.lockName(invocation.getThis(), invocation.getArguments());
    DistributedLock lock = relock().lock(name);
    return switch (m.kind()) {
      case PLAIN -> callHolding(invocation, m, lock);
      case FUTURE -> callAsync(invocation, m, lock);
      case MONO, FLUX -> reactive().call((ProxyMethodInvocation) invocation, m, lock);
    };
  }

  private Object callHolding(MethodInvocation invocation, LockedMethod m, DistributedLock lock) throws Throwable {
    LockLease lease;
    try {
      lease = m.lease() == null ? lock.acquire(m.waitTime()) : lock.acquire(m.waitTime(), m.lease());
    } catch (LockTimeoutException e) {
      if (m.skipOnTimeout()) {
        log.debug("skipped {}: lock '{}' stayed taken for {}", m.description(), lock.name(), m.waitTime());
        return m.skipValue();
      }
      throw e;
    }
    long acquiredNanos = System.nanoTime();
    watch(lease, m);
    m.injectLease(invocation.getArguments(), lease);
    Object result = null;
    Throwable failure = null;
    GuardedSection.Interrupter guard = m.interruptOnLost() ? GuardedSection.Interrupter.forCurrentThread(lease) : null;
    CurrentLease.bind(lease);
    try {
      result = invocation.proceed();
    } catch (Throwable t) {
      failure = t;
    } finally {
      CurrentLease.unbind();
      if (guard != null) {
        guard.taskEnded(); // no interrupt from the guard after this, and its own is cleared
      }
    }
    LockLostException lost = release(lease, m, acquiredNanos);
    if (failure != null) {
      if (lost != null) {
        failure.addSuppressed(lost);
      }
      throw failure;
    }
    if (lost != null && m.onLost() == Locked.OnLost.THROW) {
      throw new LockedLeaseLostException(lease.lockName(), m.method(), result, lost);
    }
    return result;
  }

  private CompletableFuture<Object> callAsync(MethodInvocation invocation, LockedMethod m, DistributedLock lock) {
    CompletableFuture<Object> result = new CompletableFuture<>();
    CompletableFuture<LockLease> acquiring = lock.acquireAsync(m.waitTime());
    result.whenComplete((value, error) -> {
      if (result.isCancelled()) {
        acquiring.cancel(false); // withdraws a waiting acquisition; a granted one is closed below
      }
    });
    acquiring.whenCompleteAsync((lease, error) -> {
      if (error != null) {
        Throwable cause = unwrap(error);
        if (cause instanceof LockTimeoutException && m.skipOnTimeout()) {
          log.debug("skipped {}: lock '{}' stayed taken for {}", m.description(), lock.name(), m.waitTime());
          result.complete(m.skipValue());
        } else {
          result.completeExceptionally(cause);
        }
        return;
      }
      if (result.isDone()) {
        closeQuietly(lease); // the caller cancelled while the grant was on its way
        return;
      }
      long acquiredNanos = System.nanoTime();
      watch(lease, m);
      m.injectLease(invocation.getArguments(), lease);
      Object returned;
      CurrentLease.bind(lease);
      try {
        returned = invocation.proceed();
      } catch (Throwable t) {
        finish(lease, m, acquiredNanos, null, t, result);
        return;
      } finally {
        CurrentLease.unbind();
      }
      if (returned == null) {
        finish(lease, m, acquiredNanos, null, null, result);
        return;
      }
      CompletionStage<?> stage = (CompletionStage<?>) returned;
      result.whenComplete((value, error2) -> {
        if (result.isCancelled()) {
          cancel(stage);
        }
      });
      if (m.interruptOnLost()) {
        lease.onLost(() -> cancel(stage));
      }
      stage.whenCompleteAsync((value, t) -> finish(lease, m, acquiredNanos, value, t == null ? null : unwrap(t),
          result), executor());
    }, executor());
    return result;
  }

  private void finish(LockLease lease, LockedMethod m, long acquiredNanos, Object value, Throwable failure,
      CompletableFuture<Object> result) {
    LockLostException lost = release(lease, m, acquiredNanos);
    if (failure != null) {
      if (lost != null) {
        failure.addSuppressed(lost);
      }
      result.completeExceptionally(failure);
    } else if (lost != null && m.onLost() == Locked.OnLost.THROW) {
      result.completeExceptionally(new LockedLeaseLostException(lease.lockName(), m.method(), value, lost));
    } else {
      result.complete(value);
    }
  }

  /**
   * Ends the hold, now or (with {@link Locked#holdAtLeast()}) once it has lasted that long.
   *
   * @return the loss the release found, if it found one now
   */
  LockLostException release(LockLease lease, LockedMethod m, long acquiredNanos) {
    if (m.holdAtLeast() != null) {
      long remaining = m.holdAtLeast().toNanos() - (System.nanoTime() - acquiredNanos);
      if (remaining > 0) {
        releaseLater(lease, m, remaining);
        return null;
      }
    }
    return closeNow(lease, m);
  }

  private LockLostException closeNow(LockLease lease, LockedMethod m) {
    try {
      lease.close();
      return null;
    } catch (LockLostException e) {
      return e;
    } catch (RelockException e) {
      log.warn("release of lock '{}' after {} failed; Redis ends the hold when its lease runs out: {}",
          lease.lockName(), m.description(), e.getMessage());
      return null;
    }
  }

  private void releaseLater(LockLease lease, LockedMethod m, long delayNanos) {
    ScheduledFuture<?> later = timer().schedule(() -> {
      delayedReleases.remove(lease);
      LockLostException lost = closeNow(lease, m);
      if (lost != null && m.onLost() == Locked.OnLost.THROW) {
        // Too late to throw: the method returned long ago.
        log.warn("lease on lock '{}' (fencing token {}) of {} was lost before its delayed release: {}",
            lease.lockName(), lease.fencingToken(), m.description(), lost.getMessage());
      }
    }, delayNanos, TimeUnit.NANOSECONDS);
    delayedReleases.put(lease, later);
  }

  /** Reports the loss of {@code lease} as {@code m} says, and to every {@link LostLeaseHandler}. */
  void watch(LockLease lease, LockedMethod m) {
    lease.onLost(() -> {
      if (m.onLost() == Locked.OnLost.LOG) {
        log.warn("lease on lock '{}' (fencing token {}) of {} was lost while it was held: another holder may"
            + " have run at the same time", lease.lockName(), lease.fencingToken(), m.description());
      }
      List<LostLeaseHandler> hs = handlers();
      if (hs.isEmpty()) {
        return;
      }
      LostLease lost = new LostLease(lease.lockName(), lease.fencingToken(), m.method());
      executor().execute(() -> {
        for (LostLeaseHandler h : hs) {
          try {
            h.leaseLost(lost);
          } catch (RuntimeException | Error e) {
            log.error("LostLeaseHandler {} threw on {}; ignored", h, lost, e);
          }
        }
      });
    });
  }

  /** Passes the caller's cancel on to the method's own stage, where the stage allows it. */
  private static void cancel(CompletionStage<?> stage) {
    try {
      stage.toCompletableFuture().cancel(true);
    } catch (UnsupportedOperationException cannot) {
      // a minimal stage: it runs to its end, and the lock is released then
    }
  }

  static void closeQuietly(LockLease lease) {
    try {
      lease.close();
    } catch (RuntimeException e) {
      log.debug("closing an unused lease of lock '{}': {}", lease.lockName(), e.toString());
    }
  }

  static Throwable unwrap(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  Relock relock() {
    Relock r = relock;
    if (r == null) {
      r = beanFactory.getBean(Relock.class);
      relock = r;
    }
    return r;
  }

  Executor executor() {
    Executor e = executor;
    if (e == null) {
      e = beanFactory.getBean(LockedAutoConfiguration.EXECUTOR_BEAN, Executor.class);
      executor = e;
    }
    return e;
  }

  private List<LostLeaseHandler> handlers() {
    List<LostLeaseHandler> h = handlers;
    if (h == null) {
      h = beanFactory.getBeanProvider(LostLeaseHandler.class).orderedStream().toList();
      handlers = h;
    }
    return h;
  }

  private ScheduledThreadPoolExecutor timer() {
    ScheduledThreadPoolExecutor t = timer;
    if (t == null) {
      synchronized (this) {
        t = timer;
        if (t == null) {
          t = new ScheduledThreadPoolExecutor(1, r -> {
            Thread thread = new Thread(r, "relock-hold-at-least");
            thread.setDaemon(true);
            return thread;
          });
          t.setRemoveOnCancelPolicy(true);
          timer = t;
        }
      }
    }
    return t;
  }

  private ReactiveLocking reactive() {
    Object r = reactive;
    if (r == null) {
      r = new ReactiveLocking(this);
      reactive = r;
    }
    return (ReactiveLocking) r;
  }

  /** At shutdown: releases now what {@link Locked#holdAtLeast()} would still hold. */
  void destroy() {
    ScheduledThreadPoolExecutor t = timer;
    if (t != null) {
      t.shutdownNow();
    }
    for (Map.Entry<LockLease, ScheduledFuture<?>> e : delayedReleases.entrySet()) {
      e.getValue().cancel(false);
      closeQuietly(e.getKey());
    }
    delayedReleases.clear();
  }
}

package io.relock.spring;

import io.relock.DistributedLock;
import io.relock.LockLease;
import io.relock.LockLostException;
import io.relock.LockTimeoutException;
import org.aopalliance.intercept.MethodInvocation;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.ProxyMethodInvocation;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * {@link Locked} methods returning {@code Mono} or {@code Flux}: at each subscription, the lock is
 * acquired without blocking a thread, the method is called on the starter's executor, and the
 * lock is released when its publisher terminates or is cancelled. Loaded only when such a method
 * is called, so the starter runs without Reactor.
 */
final class ReactiveLocking {

  private static final Logger log = LoggerFactory.getLogger(Locked.class);

  private final LockedInterceptor interceptor;
  private final Scheduler scheduler;

  ReactiveLocking(LockedInterceptor interceptor) {
    this.interceptor = interceptor;
    this.scheduler = Schedulers.fromExecutor(interceptor.executor());
  }

  /** One subscription's hold: the lease, when it began, and what the Mono emitted. */
  private static final class Hold {
    final LockLease lease;
    final long acquiredNanos = System.nanoTime();
    volatile Object value;

    Hold(LockLease lease) {
      this.lease = lease;
    }
  }

  Object call(ProxyMethodInvocation invocation, LockedMethod m, DistributedLock lock) {
    Mono<Hold> acquire = Mono.fromFuture(() -> lock.acquireAsync(m.waitTime()), false)
        // A grant that arrives after the subscriber cancelled is dropped by fromFuture: release it.
        .doOnDiscard(LockLease.class, LockedInterceptor::closeQuietly)
        .map(Hold::new)
        .onErrorResume(LockTimeoutException.class, e -> {
          if (m.skipOnTimeout()) {
            log.debug("skipped {}: lock '{}' stayed taken for {}", m.description(), lock.name(), m.waitTime());
            return Mono.empty();
          }
          return Mono.error(e);
        });
    if (m.kind() == LockedMethod.Kind.MONO) {
      return Mono.usingWhen(acquire,
          hold -> body(invocation, m, hold).flatMap(p -> Mono.from(p)).doOnNext(v -> hold.value = v)
              .contextWrite(c -> c.put(LockLease.class, hold.lease)),
          hold -> release(hold, m, null, false),
          (hold, error) -> release(hold, m, error, false),
          hold -> release(hold, m, null, true))
          .onErrorMap(ReactiveLocking::wrappedByReactor, Throwable::getCause);
    }
    return Flux.usingWhen(acquire,
        hold -> body(invocation, m, hold).flatMapMany(p -> p)
            .contextWrite(c -> c.put(LockLease.class, hold.lease)),
        hold -> release(hold, m, null, false),
        (hold, error) -> release(hold, m, error, false),
        hold -> release(hold, m, null, true))
        .onErrorMap(ReactiveLocking::wrappedByReactor, Throwable::getCause);
  }

  /** usingWhen reports a failed release as "Async resource cleanup failed"; the caller wants ours. */
  private static boolean wrappedByReactor(Throwable t) {
    return t.getClass() == RuntimeException.class && t.getCause() instanceof LockedLeaseLostException;
  }

  /** Calls the method (a fresh invocation per subscription) on the executor, the lease bound. */
  private Mono<Publisher<Object>> body(ProxyMethodInvocation invocation, LockedMethod m, Hold hold) {
    return Mono.<Publisher<Object>>defer(() -> {
      interceptor.watch(hold.lease, m);
      MethodInvocation call = invocation.invocableClone();
      m.injectLease(call.getArguments(), hold.lease);
      CurrentLease.bind(hold.lease);
      try {
        @SuppressWarnings("unchecked")
        Publisher<Object> returned = (Publisher<Object>) call.proceed();
        return Mono.justOrEmpty(returned);
      } catch (Throwable t) {
        return Mono.error(t);
      } finally {
        CurrentLease.unbind();
      }
    }).subscribeOn(scheduler);
  }

  /** Releases; a loss is reported by {@link Locked#onLost()}, except after a cancel (nobody to tell). */
  private Mono<Void> release(Hold hold, LockedMethod m, Throwable error, boolean cancelled) {
    return Mono.<Void>fromRunnable(() -> {
      LockLostException lost = interceptor.release(hold.lease, m, hold.acquiredNanos);
      if (lost == null || cancelled) {
        return;
      }
      if (error != null) {
        error.addSuppressed(lost);
      } else if (m.onLost() == Locked.OnLost.THROW) {
        throw new LockedLeaseLostException(hold.lease.lockName(), m.method(), hold.value, lost);
      }
    }).subscribeOn(scheduler);
  }
}

package io.relock.spring;

import io.relock.LockLease;
import io.relock.LockLostException;
import io.relock.LockTimeoutException;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.core.annotation.AliasFor;

/**
 * Runs a Spring bean method while holding a relock lock, released when the method ends.
 *
 * <pre>{@code
 * @Locked(value = "'order:' + #order.id", waitTime = "5s")
 * public Receipt pay(Order order, LockLease lease) {      // the lease is filled in; callers pass null
 *   return ledger.charge(order, lease.fencingToken());    // the ledger refuses tokens older than its last
 * }
 * }</pre>
 *
 * <h2>The lock name</h2>
 * {@link #value()} is a SpEL expression over the method's arguments ({@code #order}, or {@code #p0}
 * / {@code #a0} by position), beans ({@code @tenant.id()}) and {@code #root.method} / {@code
 * #root.target}; {@code ${...}} property placeholders are resolved first. Its value's {@code
 * toString()} is the lock name; a literal name is quoted: {@code @Locked("'nightly-report'")}.
 * Without a value, the name is the declaring class's name, a dot and the method's name. The
 * expression is parsed, and its variables checked against the parameter names, when the bean is
 * created: a mistake fails startup naming the method.
 *
 * <h2>Waiting and leases</h2>
 * The method waits up to {@link #waitTime()} for the lock (default: one attempt, no waiting), then
 * runs. Without {@link #lease()}, the hold is renewed by the client's watchdog for as long as the
 * method runs, however long; with it, the lease is fixed and never renewed. When the wait runs out,
 * {@link #onTimeout()} decides: throw {@link LockTimeoutException}, or skip the method.
 *
 * <h2>Return types</h2>
 * <ul>
 *   <li>A plain value or {@code void}: the calling thread waits for the lock, runs the method and
 *       releases the lock before returning (on virtual threads too; relock parks, it does not pin).
 *   <li>{@link java.util.concurrent.CompletableFuture} or {@link
 *       java.util.concurrent.CompletionStage}: the call returns at once; no thread waits for the
 *       lock. Once granted, the method runs on the starter's executor (bean {@value
 *       LockedAutoConfiguration#EXECUTOR_BEAN}) and the lock is released when its future
 *       completes. Cancelling the returned future while it waits withdraws the acquisition.
 *   <li>Reactor's {@code Mono} or {@code Flux} (when Reactor is on the class path): nothing happens
 *       until subscription; then the same as a future, the lock being released when the publisher
 *       terminates or is cancelled.
 * </ul>
 * A fixed {@link #lease()} is for the first kind only.
 *
 * <h2>The current lease</h2>
 * Inside the method, the lease (its {@link LockLease#fencingToken() fencing token}, {@link
 * LockLease#isValid()}) is reachable in two ways: a parameter of type {@link LockLease}, which the
 * starter fills in whatever the caller passed; or {@link CurrentLease#get()} on the thread that
 * runs the method (for {@code Mono}/{@code Flux}, also in the Reactor context under the key {@code
 * LockLease.class}). Do not close it: the starter does.
 *
 * <h2>A lease lost while the method runs</h2>
 * {@link #onLost()} decides how it is reported; every {@link LostLeaseHandler} bean hears it in
 * any case. With {@link #interruptOnLost()} the method is also stopped: its thread interrupted, or
 * its future cancelled.
 *
 * <h2>Kotlin suspend functions</h2>
 * Not supported: a {@code suspend} function returns to the proxy at its first suspension, long
 * before it ends, so the lock would be released while it still runs. Startup fails on one; use
 * relock-kotlin's {@code withLease} inside the function instead.
 *
 * <h2>Scheduled jobs</h2>
 * Together with {@code @Scheduled}, the job runs on one instance at a time: the others skip the
 * tick (the default {@link OnTimeout#DEFAULT} skips on scheduled methods). {@link #holdAtLeast()}
 * keeps the lock after a short run, so that an instance whose clock runs behind does not run the
 * same tick again.
 *
 * <h2>What the proxy cannot see</h2>
 * The lock is taken by a Spring AOP proxy: a call from another method of the same object does not
 * pass through it and takes no lock. A {@code @Locked} method that is private, final or static, or
 * in a final class, fails startup. The lock is taken outside every other advice of the bean
 * (a {@code @Transactional} transaction commits before the lock is released).
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Locked {

  /**
   * The lock name, a SpEL expression; see the class documentation. Alias of {@link #name()}.
   *
   * @return the name expression; empty (the default) for the declaring class's name, a dot and the
   *     method's name
   */
  @AliasFor("name")
  String value() default "";

  /**
   * Alias of {@link #value()}.
   *
   * @return the name expression; empty (the default) as for {@link #value()}
   */
  @AliasFor("value")
  String name() default "";

  /**
   * How long to wait for the lock: a duration such as {@code 500ms}, {@code 5s} or {@code PT1M},
   * or a {@code ${...}} placeholder that resolves to one. Default {@code 0}: one attempt.
   *
   * @return the longest wait, zero or more
   */
  String waitTime() default "0s";

  /**
   * A fixed lease, never renewed (a duration, as for {@link #waitTime()}). Default: none, the
   * watchdog renews the client's default lease until the method ends.
   *
   * @return the fixed lease, at least 1 ms; empty for none. Allowed only on methods returning a
   *     value or {@code void}
   */
  String lease() default "";

  /**
   * The least time the lock stays held after it was acquired, even if the method ends sooner (a
   * duration, as for {@link #waitTime()}): ShedLock's {@code lockAtLeastFor}. The lock is then released
   * by a timer of this application, renewed until then; if the application stops before, the
   * lock is released at shutdown. Default: none.
   *
   * @return the least time held, counted from the acquisition; empty for none. No longer than a
   *     fixed {@link #lease()}
   */
  String holdAtLeast() default "";

  /**
   * What happens when the lock stays taken for the whole wait.
   *
   * @return the choice; {@link OnTimeout#DEFAULT} unless set
   */
  OnTimeout onTimeout() default OnTimeout.DEFAULT;

  /**
   * How a lease lost while the method runs is reported.
   *
   * @return the choice; {@link OnLost#DEFAULT}, the application's {@code relock.locked.on-lost},
   *     unless set
   */
  OnLost onLost() default OnLost.DEFAULT;

  /**
   * Whether a lease lost while the method runs stops it. For a method returning a value or {@code
   * void}: the thread running it is interrupted as soon as relock learns of the loss (as {@link
   * io.relock.DistributedLock#callLocked(java.time.Duration, io.relock.LeaseTask)} does: a forced
   * unlock within milliseconds, renewals that did not get through at the lease's local deadline),
   * unless it is interrupted already; an interrupt the starter made and the method left pending
   * is cleared before the call returns or throws. For a method returning a future: its future is
   * cancelled ({@code cancel(true)}). The loss is then reported as {@link #onLost()} says. Code
   * that ignores interrupts runs on; fencing tokens remain the only protection of the resource.
   * Not for methods returning a {@code Mono} or {@code Flux} (startup fails).
   *
   * @return true to stop the method on a loss; false (the default) to let it run to its end
   */
  boolean interruptOnLost() default false;

  /** What a {@link Locked} method does when its wait runs out. */
  enum OnTimeout {
    /** {@link #SKIP} on a method that is also {@code @Scheduled}, {@link #THROW} on others. */
    DEFAULT,
    /**
     * Throw {@link LockTimeoutException} (for a future: complete it exceptionally; for a {@code
     * Mono}/{@code Flux}: signal it as an error).
     */
    THROW,
    /**
     * Do not run the method; return {@code null}, {@code Optional.empty()} for an {@code Optional},
     * a future completed with one of those, or an empty {@code Mono}/{@code Flux}. Not allowed on
     * a method returning a primitive.
     */
    SKIP
  }

  /** How a {@link Locked} method reports a lease lost while it ran. */
  enum OnLost {
    /** The application's {@code relock.locked.on-lost} setting; {@link #LOG} unless set. */
    DEFAULT,
    /** Log a warning when the loss is noticed; the method's outcome is left alone. */
    LOG,
    /**
     * Let the method finish, then throw {@link LockedLeaseLostException} (a {@link
     * LockLostException}) carrying what it returned; if the method itself threw, its exception is
     * thrown with the loss added as suppressed. A future completes, and a publisher terminates,
     * with that exception instead.
     */
    THROW,
    /**
     * Only the {@link LostLeaseHandler} beans are told (at least one must exist); nothing is logged
     * or thrown.
     */
    CALLBACK
  }
}

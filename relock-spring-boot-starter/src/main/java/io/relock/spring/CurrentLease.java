package io.relock.spring;

import io.relock.LockLease;
import java.util.Optional;

/**
 * The lease of the {@link Locked} method running on the calling thread.
 *
 * <pre>{@code
 * @Locked("'ledger:' + #account")
 * public void post(String account, Entry entry) {
 *   ledger.append(account, entry, CurrentLease.get().fencingToken());
 * }
 * }</pre>
 *
 * The lease is bound to the thread from just before the method body starts until it returns; in
 * nested {@link Locked} methods, the innermost one's. For a method returning a future, {@code Mono}
 * or {@code Flux}, that is the part of the body that runs before it returns the future or
 * publisher; work the method hands to other threads should take the lease along (or take it as a
 * {@link LockLease} parameter). In a {@code Mono} or {@code Flux}, the lease is also in the Reactor
 * context under the key {@code LockLease.class}.
 */
public final class CurrentLease {

  private static final ThreadLocal<Frame> CURRENT = new ThreadLocal<>();

  private record Frame(LockLease lease, Frame outer) {}

  private CurrentLease() {}

  /**
   * The lease of the innermost {@link Locked} method running on this thread.
   *
   * @return the lease; do not close it, the starter does
   * @throws IllegalStateException if no {@link Locked} method is running on this thread
   */
  public static LockLease get() {
    Frame frame = CURRENT.get();
    if (frame == null) {
      throw new IllegalStateException("no @Locked method is running on thread " + Thread.currentThread().getName()
          + " (is the call passing through the Spring proxy? calls from the same object do not)");
    }
    return frame.lease();
  }

  /**
   * The lease of the innermost {@link Locked} method running on this thread, if any.
   *
   * @return the lease, or an empty Optional if no {@link Locked} method is running on this thread
   */
  public static Optional<LockLease> find() {
    Frame frame = CURRENT.get();
    return frame == null ? Optional.empty() : Optional.of(frame.lease());
  }

  /** Binds {@code lease} to this thread until the matching {@link #unbind()}. */
  static void bind(LockLease lease) {
    CURRENT.set(new Frame(lease, CURRENT.get()));
  }

  /** Restores what was bound before the last {@link #bind}. */
  static void unbind() {
    Frame frame = CURRENT.get();
    if (frame == null || frame.outer() == null) {
      CURRENT.remove();
    } else {
      CURRENT.set(frame.outer());
    }
  }
}

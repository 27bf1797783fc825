package io.relock.demo.guard;

import io.relock.LockLease;
import io.relock.spring.Locked;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * The critical section of strategy {@code relock}, as an application would write it with the
 * relock Spring Boot starter: {@link Locked} takes the item's lock (waiting up to {@code
 * demo.lock-wait}), the watchdog renews it while the purchase runs, and it is released, and handed
 * to the next waiter, when the purchase returns. The purchase writes with the lease's fencing
 * token, so a purchase whose lease was lost cannot write once a newer holder has read.
 *
 * <p>A Spring bean: the lock is taken by the proxy the starter puts in front of it.
 */
public class ItemLocks {

  /**
   * Runs {@code purchase} holding the lock {@code item:<item>}.
   *
   * @param lease filled in by the starter; callers pass null
   * @throws io.relock.LockTimeoutException if the lock stayed taken for the whole wait
   * @throws io.relock.spring.LockedLeaseLostException if the lease was lost meanwhile; it carries
   *     what {@code purchase} returned
   */
  @Locked(value = "'item:' + #item", waitTime = "${demo.lock-wait:10s}", onLost = Locked.OnLost.THROW)
  public <T> T holding(String item, LockLease lease, Function<OptionalLong, T> purchase) {
    return purchase.apply(OptionalLong.of(lease.fencingToken()));
  }
}

package io.relock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.LockLease;
import io.relock.Relock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/** The forced-unlock notice, as every topology's contract checks it. */
final class ForcedUnlocks {
  /**
   * A lease of this length: its first renewal, and its end, come minutes after any test's patience
   * ran out, so only the notice of a forced unlock can tell its holder in time.
   */
  static final Duration LONG_LEASE = Duration.ofMinutes(10);

  private ForcedUnlocks() {}

  /**
   * {@code holder} takes {@code name} with {@code acquire}, {@code operator} force-unlocks it, and
   * the holder's {@code onLost} must run within the patience of {@code await}.
   *
   * @return the lost lease
   */
  static LockLease holderIsToldAtOnce(Relock holder, Relock operator, String name,
      Function<io.relock.DistributedLock, LockLease> acquire, java.util.function.BiConsumer<String, BooleanSupplier> await) {
    AtomicInteger lost = new AtomicInteger();
    LockLease lease = acquire.apply(holder.lock(name));
    lease.onLost(lost::incrementAndGet);
    assertThat(operator.lock(name).forceUnlock()).isTrue();
    await.accept("the holder is told", () -> lost.get() == 1);
    assertThat(lease.isValid()).isFalse();
    return lease;
  }
}

package io.relock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.LockInfo;
import io.relock.LockLease;
import io.relock.Relock;
import io.relock.spi.DriverSettings;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link Relock#inspect} and {@link Relock#list} on Redlock ({@link RedlockTopology}): a lock is
 * held by the owner a majority of the masters names, and has no queue.
 */
public abstract class RedlockInspectionContract extends RelockContract {
  @RegisterExtension
  final RedlockTopology redlock = new RedlockTopology();

  @Override
  protected Relock.Builder builderFor(String uri, DriverSettings settings) {
    return redlock.builder(uri, settings);
  }

  @Test
  void aLockHeldOnEveryMaster_isInspectedAndListed_withItsOwnerAndToken() {
    Relock holder = client();
    LockLease lease = holder.lock("quorum").acquire(Duration.ZERO, Duration.ofSeconds(20));
    Relock observer = client();

    LockInfo info = observer.inspect("quorum");
    LockInfo.Holder h = info.holder().orElseThrow();
    assertThat(h.clientId()).isEqualTo(holder.clientId());
    assertThat(h.fencingToken()).isEqualTo(lease.fencingToken());
    assertThat(h.holdCount()).isEqualTo(1);
    assertThat(h.remainingLease()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(20));
    assertThat(info.waiters()).as("Redlock has no queue").isEmpty();
    assertThat(info.lastToken()).isGreaterThanOrEqualTo(lease.fencingToken());
    assertThat(observer.list("quo*")).singleElement().satisfies(listed -> {
      assertThat(listed.name()).isEqualTo("quorum");
      assertThat(listed.holder().orElseThrow().ownerId()).isEqualTo(h.ownerId());
      assertThat(listed.holder().orElseThrow().fencingToken()).isEqualTo(lease.fencingToken());
    });

    lease.close();
    assertThat(observer.inspect("quorum").isHeld()).isFalse();
    assertThat(observer.list("*")).isEmpty();
  }

  @Test
  void aHoldLeftOnOneMasterOfThree_isNotAHold() {
    Relock holder = client();
    holder.lock("minority").acquire(Duration.ZERO, Duration.ofSeconds(20));
    redlock.flush(); // the two other masters forget it: only the first still holds it

    assertThat(client().inspect("minority").isHeld()).isFalse();
    assertThat(client().list("*")).isEmpty();
  }
}

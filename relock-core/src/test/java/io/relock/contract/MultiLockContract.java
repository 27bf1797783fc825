package io.relock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.DistributedLock;
import io.relock.LockLease;
import io.relock.LockLostException;
import io.relock.Relock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Several locks as one: all or none, no deadlock whatever order they are named in, a token per name. */
public abstract class MultiLockContract extends RelockContract {

  @Test
  void takesAllOrNone() {
    Relock relock = client();
    try (LockLease b = client().lock("b").acquire(Duration.ZERO)) {
      assertThat(relock.multiLock("a", "b").tryAcquire(Duration.ZERO)).isEmpty();
      assertThat(relock.multiLock("a", "b").tryLock()).isFalse();
      assertThat(relock.lock("a").isLocked()).as("a was given back").isFalse();
      assertThat(b.isValid()).isTrue();
    }
    try (LockLease both = relock.multiLock("a", "b").acquire(Duration.ZERO)) {
      assertThat(relock.lock("a").isLocked()).isTrue();
      assertThat(relock.lock("b").isLocked()).isTrue();
      assertThat(both.fencingTokens()).containsOnlyKeys("a", "b");
      assertThat(both.fencingTokens().get("a")).isEqualTo(stored("a").token());
      assertThat(both.fencingTokens().get("b")).isEqualTo(stored("b").token());
    }
    assertThat(relock.lock("a").isLocked()).isFalse();
    assertThat(relock.lock("b").isLocked()).isFalse();
  }

  @Test
  void twoClientsTakingTheSameLocksInOppositeOrders_neverDeadlock_andTokensRise() throws Exception {
    Relock one = client();
    Relock two = client();
    int rounds = 30;
    Map<String, Long> lastToken = new ConcurrentHashMap<>();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>();
    for (DistributedLock lock : List.of(one.multiLock("x", "y", "z"), two.multiLock("z", "y", "x"))) {
      Thread t = new Thread(() -> {
        try {
          for (int i = 0; i < rounds; i++) {
            try (LockLease all = lock.acquire(PATIENCE)) {
              for (Map.Entry<String, Long> e : all.fencingTokens().entrySet()) {
                Long before = lastToken.put(e.getKey(), e.getValue());
                if (before != null && before >= e.getValue()) {
                  throw new AssertionError("token of " + e.getKey() + " went from " + before + " to " + e.getValue());
                }
              }
            }
          }
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      });
      t.start();
      threads.add(t);
    }
    for (Thread t : threads) {
      t.join(PATIENCE.toMillis());
      assertThat(t.isAlive()).as("deadlocked").isFalse();
    }
    assertThat(failure.get()).isNull();
    assertThat(lastToken).containsOnlyKeys("x", "y", "z");
  }

  @Test
  void theLockStyle_takesAndReleasesEveryLockForTheThread() {
    Relock relock = client();
    DistributedLock both = relock.multiLock("left", "right");
    both.lock();
    both.lock();
    assertThat(both.getHoldCount()).isEqualTo(2);
    assertThat(relock.lock("left").isHeldByCurrentThread()).isTrue();
    both.unlock();
    assertThat(both.isHeldByCurrentThread()).isTrue();
    both.unlock();
    assertThat(both.isLocked()).isFalse();
    assertThatThrownBy(both::unlock).isInstanceOf(IllegalMonitorStateException.class);
  }

  @Test
  void aLostLock_isReportedOnClose_andTheOthersAreStillReleased() {
    Relock relock = client(b -> b.defaultLease(Duration.ofMillis(900)));
    LockLease all = relock.multiLock("kept", "lost").acquire(Duration.ZERO);
    client().lock("lost").forceUnlock();
    await("the loss is noticed", () -> !all.isValid());
    assertThatThrownBy(all::close).isInstanceOf(LockLostException.class).hasMessageContaining("lost");
    assertThat(relock.lock("kept").isLocked()).isFalse();
  }

  @Test
  void aLockThatCannotBeTaken_givesBackTheOnesTakenBeforeIt() {
    Relock relock = client();
    try (LockLease permit = relock.semaphore("zz-pool", 1).acquire(Duration.ZERO)) {
      DistributedLock both = relock.multiLock("aa-first", "zz-pool");
      assertThatThrownBy(both::lock).isInstanceOf(io.relock.RelockException.class).hasMessageContaining("semaphore");
      assertThat(relock.lock("aa-first").isLocked()).as("the first lock given back").isFalse();
      assertThat(relock.lock("aa-first").isHeldByCurrentThread()).isFalse();
      assertThat(permit.isValid()).isTrue();
    }
  }

  @Test
  void badNames_failFast() {
    Relock relock = client();
    assertThatThrownBy(relock::multiLock).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> relock.multiLock("a", "a")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'a'");
    assertThatThrownBy(() -> relock.multiLock("a", "")).isInstanceOf(IllegalArgumentException.class);
  }
}

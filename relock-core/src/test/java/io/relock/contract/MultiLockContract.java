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

  /** The script calls {@code relock} makes from now on, by name, read through its listener. */
  static List<String> scriptCallsOf(Relock relock) {
    List<String> calls = new java.util.concurrent.CopyOnWriteArrayList<>();
    relock.addListener(new io.relock.RelockListener() {
      @Override
      public void redisCall(String script, Duration took, Throwable error) {
        if (!script.startsWith("renew")) {
          calls.add(script);
        }
      }
    });
    return calls;
  }

  @Test
  void freeLocksOnOneServer_areTakenInOneCall_eachAnOrdinaryHoldWithItsToken() {
    Relock relock = client();
    List<String> calls = scriptCallsOf(relock);
    try (LockLease all = relock.multiLock("m3", "m1", "m2").acquire(Duration.ZERO)) {
      await("the call is heard", () -> !calls.isEmpty()); // listeners hear on the client's event thread
      assertThat(calls).containsExactly("multilock_acquire.lua");
      for (String name : List.of("m1", "m2", "m3")) {
        assertThat(stored(name).owner()).as(name).isNotNull();
        assertThat(all.fencingTokens().get(name)).as(name).isEqualTo(stored(name).token());
      }
      assertThat(client().lock("m2").tryLock()).as("each lock is held").isFalse();
    }
    assertThat(List.of("m1", "m2", "m3")).allSatisfy(n -> assertThat(stored(n)).as(n).isNull());

    await("the releases are heard", () -> calls.size() == 4);
    calls.clear();
    DistributedLock both = relock.multiLock("t1", "t2");
    both.lock();
    await("the call is heard", () -> !calls.isEmpty());
    assertThat(calls).containsExactly("multilock_acquire.lua");
    assertThat(relock.lock("t1").isHeldByCurrentThread()).isTrue();
    assertThat(relock.lock("t2").isHeldByCurrentThread()).isTrue();
    both.unlock();
    assertThat(both.isLocked()).isFalse();
  }

  @Test
  void aWaiterQueuedForAFreeLock_isServedBeforeTheMultiLock() throws Exception {
    Relock holder = client();
    // The waiter re-checks only after a minute: it learns of the lock only from a grant.
    Relock waiter = client(b -> b.recheckInterval(Duration.ofMinutes(1)));
    LockLease held = holder.lock("w1").acquire(Duration.ZERO);
    java.util.concurrent.CompletableFuture<LockLease> waiting = waiter.lock("w1").acquireAsync(PATIENCE);
    await("the waiter is queued in Redis", () -> redis("ZCARD", lockKey("w1") + ":q").equals(1L));
    redis("DEL", lockKey("w1")); // the hold vanishes (as when it expires); the waiter is still queued

    assertThat(client().multiLock("w1", "w2").tryAcquire(Duration.ZERO)).as("the waiter goes first").isEmpty();
    try (LockLease granted = waiting.get(PATIENCE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)) {
      assertThat(granted.isValid()).isTrue();
      assertThat(stored("w2")).as("the other lock was given back").isNull();
    }
    assertThat(held.fencingToken()).isPositive();
  }

  @Test
  void aThreadHoldingOneOfTheLocks_reentersIt_andTakesTheOthers() throws Exception {
    Relock relock = client();
    DistributedLock left = relock.lock("r-left");
    DistributedLock both = relock.multiLock("r-left", "r-right");
    // One thread does it all (lock-style holds are the thread's), bounded by the test's patience.
    java.util.concurrent.ExecutorService thread = java.util.concurrent.Executors.newSingleThreadExecutor();
    try {
      thread.submit(() -> {
        left.lock();
        both.lock();
        assertThat(left.getHoldCount()).isEqualTo(2);
        assertThat(relock.lock("r-right").isHeldByCurrentThread()).isTrue();
        both.unlock();
        assertThat(left.getHoldCount()).isEqualTo(1);
        assertThat(stored("r-right")).isNull();
        left.unlock();
        assertThat(stored("r-left")).isNull();
        return null;
      }).get(PATIENCE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
    } finally {
      thread.shutdownNow();
    }
  }

  @Test
  void aClosedClient_refusesAMultiLock_andLeavesNothingBehind() {
    Relock relock = client();
    relock.close();
    assertThatThrownBy(() -> relock.multiLock("c1", "c2").tryLock()).isInstanceOf(io.relock.RelockException.class)
        .hasMessageContaining("closed");
    assertThat(stored("c1")).isNull();
    assertThat(stored("c2")).isNull();
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

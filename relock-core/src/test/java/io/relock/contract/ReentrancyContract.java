package io.relock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.DistributedLock;
import io.relock.LockLease;
import io.relock.Relock;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** Re-entrancy of lock()/unlock() per thread, and leases closed from any thread (issue item 3). */
public abstract class ReentrancyContract extends RelockContract {

  @Test
  void lock_isReentrantPerThread_withTheHoldCountKeptInRedis() {
    DistributedLock lock = client().lock("reentrant");
    lock.lock();
    lock.lock();
    assertThat(lock.tryLock()).isTrue();
    assertThat(lock.getHoldCount()).isEqualTo(3);
    assertThat(stored("reentrant").count()).isEqualTo(3);
    lock.unlock();
    lock.unlock();
    assertThat(stored("reentrant").count()).isEqualTo(1);
    assertThat(lock.isLocked()).isTrue();
    lock.unlock();
    assertThat(lock.isLocked()).isFalse();
    assertThat(lock.getHoldCount()).isZero();
    assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
  }

  @Test
  void otherThread_waitsUntilTheLastHoldIsReleased() throws Exception {
    DistributedLock lock = client().lock("nested");
    lock.lock();
    lock.lock();
    CompletableFuture<Boolean> other = CompletableFuture.supplyAsync(() -> {
      try {
        boolean got = lock.tryLock(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
        if (got) {
          lock.unlock();
        }
        return got;
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
    lock.unlock();
    assertThat(lock.isLocked()).as("one hold left").isTrue();
    assertThat(other).isNotDone();
    lock.unlock();
    assertThat(other.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
  }

  @Test
  void lease_canBeClosedFromAnotherThread() throws Exception {
    Relock relock = client();
    LockLease lease = relock.lock("handed-over").acquire(Duration.ZERO);
    CompletableFuture.runAsync(lease::close).get();
    assertThat(relock.lock("handed-over").isLocked()).isFalse();
  }

  @Test
  void leases_areNotReentrant_evenOnTheSameThread() {
    DistributedLock lock = client().lock("lease-owner");
    try (LockLease first = lock.acquire(Duration.ZERO)) {
      assertThat(lock.tryAcquire(Duration.ofMillis(50))).isEmpty();
      assertThat(first.isValid()).isTrue();
    }
    assertNoWaiters("lease-owner");
  }

  /** Tagged so that builds on Java 17 to 20 leave it out (it runs in the Java 25 re-run), instead of skipping it. */
  @Test
  @org.junit.jupiter.api.Tag("java21")
  void virtualThreads_areSeparateOwners() throws Exception {
    Method ofVirtual;
    try {
      ofVirtual = Thread.class.getMethod("ofVirtual");
    } catch (NoSuchMethodException e) {
      Assumptions.abort("virtual threads need Java 21+; running on " + Runtime.version());
      return;
    }
    DistributedLock lock = client().lock("virtual");
    Object builder = ofVirtual.invoke(null);
    Method start = Class.forName("java.lang.Thread$Builder").getMethod("start", Runnable.class);
    AtomicReference<Boolean> secondGotIt = new AtomicReference<>();
    AtomicReference<Integer> firstHolds = new AtomicReference<>();
    CompletableFuture<Void> firstHolding = new CompletableFuture<>();
    CompletableFuture<Void> release = new CompletableFuture<>();
    Thread first = (Thread) start.invoke(builder, (Runnable) () -> {
      lock.lock();
      lock.lock();
      firstHolds.set(lock.getHoldCount());
      firstHolding.complete(null);
      release.join();
      lock.unlock();
      lock.unlock();
    });
    firstHolding.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    Thread second = (Thread) start.invoke(builder, (Runnable) () -> secondGotIt.set(lock.tryLock()));
    second.join(PATIENCE.toMillis());
    release.complete(null);
    first.join(PATIENCE.toMillis());
    assertThat(firstHolds.get()).isEqualTo(2);
    assertThat(secondGotIt.get()).as("another virtual thread is another owner").isFalse();
    assertThat(lock.isLocked()).isFalse();
  }
}

package io.relock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.DistributedLock;
import io.relock.DistributedReadWriteLock;
import io.relock.DistributedSemaphore;
import io.relock.LockLease;
import io.relock.LockLostException;
import io.relock.LockTimeoutException;
import io.relock.Relock;
import java.io.IOException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Guarded sections ({@code callLocked}, {@code runLocked}, {@code callLockedAsync}): the task is
 * stopped when its lease is lost, the call reports the loss, the lease is released on every way
 * out, and the interrupt flag holds only what the caller put there.
 */
public abstract class GuardedContract extends RelockContract {

  /** What a guarded call ended with, seen from the thread that made it. */
  private record Ended(Object returned, Throwable thrown, boolean interruptedAfter) {}

  /** Runs {@code call} on a thread of its own and records how it ended and the flag afterwards. */
  private static CompletableFuture<Ended> onThread(java.util.concurrent.Callable<?> call) {
    CompletableFuture<Ended> ended = new CompletableFuture<>();
    new Thread(() -> ended.complete(endOf(call)), "guarded-caller").start();
    return ended;
  }

  private static Ended endOf(java.util.concurrent.Callable<?> call) {
    try {
      Object r = call.call();
      return new Ended(r, null, Thread.interrupted());
    } catch (Throwable t) {
      return new Ended(null, t, Thread.interrupted());
    }
  }

  private static Ended get(CompletableFuture<Ended> f) throws Exception {
    return f.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Test
  void forceUnlock_interruptsTheTask_andTheCallThrowsLockLost_withTheTasksExceptionSuppressed() throws Exception {
    Relock holder = client(b -> b.defaultLease(ForcedUnlocks.LONG_LEASE));
    CompletableFuture<Void> running = new CompletableFuture<>();
    CompletableFuture<Ended> call = onThread(() -> holder.lock("guarded").callLocked(Duration.ZERO, () -> {
      running.complete(null);
      Thread.sleep(PATIENCE.multipliedBy(2).toMillis()); // only the interrupt ends this in time
      return "finished";
    }));
    running.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(client().lock("guarded").forceUnlock()).isTrue();
    Ended ended = get(call);
    assertThat(ended.thrown()).isInstanceOf(LockLostException.class).hasMessageContaining("guarded")
        .hasMessageContaining("forced unlock");
    assertThat(ended.thrown().getSuppressed()).singleElement().isInstanceOf(InterruptedException.class);
    assertThat(ended.interruptedAfter()).as("the section's interrupt does not outlive it").isFalse();
    assertThat(holderInRedis("guarded")).isNull();
  }

  @Test
  void aTaskThatIgnoresTheInterrupt_runsToItsEnd_andTheCallStillThrowsLockLost() throws Exception {
    Relock holder = client(b -> b.defaultLease(ForcedUnlocks.LONG_LEASE));
    CompletableFuture<Void> running = new CompletableFuture<>();
    AtomicBoolean sawInterrupt = new AtomicBoolean();
    AtomicBoolean finish = new AtomicBoolean();
    CompletableFuture<Ended> call = onThread(() -> holder.lock("stubborn").callLocked(Duration.ZERO, () -> {
      running.complete(null);
      while (!finish.get()) {
        if (Thread.currentThread().isInterrupted()) {
          sawInterrupt.set(true);
        }
        Thread.onSpinWait();
      }
      return "finished";
    }));
    running.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(client().lock("stubborn").forceUnlock()).isTrue();
    await("the task's thread is interrupted", sawInterrupt::get);
    assertThat(call).isNotDone();
    finish.set(true);
    Ended ended = get(call);
    assertThat(ended.thrown()).isInstanceOf(LockLostException.class).hasNoSuppressedExceptions();
    assertThat(ended.interruptedAfter()).isFalse();
  }

  @Test
  void theCallersOwnInterrupt_isLeftSet_withOrWithoutALoss() throws Exception {
    Relock holder = client(b -> b.defaultLease(ForcedUnlocks.LONG_LEASE));
    Ended kept = get(onThread(() -> holder.lock("own-interrupt").callLocked(Duration.ZERO, () -> {
      Thread.currentThread().interrupt(); // as an interrupt from elsewhere would
      return "done";
    })));
    assertThat(kept.returned()).isEqualTo("done");
    assertThat(kept.interruptedAfter()).isTrue();

    CompletableFuture<Void> interrupted = new CompletableFuture<>();
    CompletableFuture<Ended> call = onThread(() -> holder.lock("own-interrupt").callLocked(Duration.ZERO, lease -> {
      // Listeners run one after another in the order they were added: once this one has run, so
      // has the section's, registered before the task began.
      AtomicBoolean heard = new AtomicBoolean();
      lease.onLost(() -> heard.set(true));
      Thread.currentThread().interrupt();
      interrupted.complete(null);
      while (!heard.get()) {
        Thread.onSpinWait();
      }
      return "done";
    }));
    interrupted.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(client().lock("own-interrupt").forceUnlock()).isTrue();
    Ended lost = get(call);
    assertThat(lost.thrown()).isInstanceOf(LockLostException.class);
    assertThat(lost.interruptedAfter()).as("the caller's interrupt, which the section did not make").isTrue();
  }

  /**
   * A forced unlock racing the task's return, many times: whichever comes first, the call leaves
   * no interrupt behind (an interrupt landing after the task returned would hit whatever the
   * thread does next) and no hold in Redis.
   */
  @Test
  void aLossRacingTheTasksReturn_leavesNoInterruptBehind() throws Exception {
    Relock holder = client(b -> b.defaultLease(ForcedUnlocks.LONG_LEASE));
    Relock operator = client();
    DistributedLock lock = holder.lock("racing");
    int lostCount = 0;
    int strayInterrupts = 0;
    for (int i = 0; i < 200; i++) {
      CompletableFuture<Void> running = new CompletableFuture<>();
      // About the time a forced unlock takes to reach the task (half a millisecond to a few on a
      // loaded machine): some losses land while the task runs, some after it returned.
      long spinNanos = ThreadLocalRandom.current().nextLong(0, 2_000_000);
      CompletableFuture<Ended> call = onThread(() -> lock.callLocked(Duration.ofSeconds(5), () -> {
        running.complete(null);
        long until = System.nanoTime() + spinNanos;
        while (System.nanoTime() - until < 0) {
          Thread.onSpinWait(); // ignores interrupts: the loss may land at any point of this
        }
        return "done";
      }));
      running.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
      operator.lock("racing").forceUnlock();
      Ended ended = get(call);
      if (ended.thrown() instanceof LockLostException) {
        lostCount++;
      } else {
        assertThat(ended.thrown()).isNull();
      }
      if (ended.interruptedAfter()) {
        strayInterrupts++;
      }
    }
    assertThat(strayInterrupts).as("calls that left an interrupt set").isZero();
    assertThat(lostCount).as("some losses came while the task ran").isPositive();
    assertThat(lostCount).as("some forced unlocks came after the release").isLessThan(200);
    assertThat(holderInRedis("racing")).isNull();
  }

  @Test
  void renewalsThatDoNotGetThrough_stopTheTaskAtTheLeasesLocalDeadline() throws Exception {
    Relock holder = client(b -> b.defaultLease(Duration.ofMillis(900)));
    CompletableFuture<Void> running = new CompletableFuture<>();
    CompletableFuture<Ended> call = onThread(() -> holder.lock("unreachable").callLocked(Duration.ZERO, () -> {
      running.complete(null);
      Thread.sleep(PATIENCE.multipliedBy(2).toMillis());
      return "finished";
    }));
    running.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    pauseWrites(Duration.ofSeconds(5));
    try {
      await("the task is stopped", call::isDone);
    } finally {
      unpause();
    }
    Ended ended = get(call);
    assertThat(ended.thrown()).isInstanceOf(LockLostException.class).hasMessageContaining("lease ran out");
    assertThat(ended.thrown().getSuppressed()).singleElement().isInstanceOf(InterruptedException.class);
    assertThat(ended.interruptedAfter()).isFalse();
  }

  @Test
  void theTasksResultAndExceptions_passThroughUnchanged_andTheLockIsReleased() throws Exception {
    DistributedLock lock = client().lock("passing");
    assertThat(lock.callLocked(Duration.ZERO, () -> {
      assertThat(holderInRedis("passing")).isNotNull();
      return 42;
    })).isEqualTo(42);
    assertThat(holderInRedis("passing")).isNull();

    IOException checked = new IOException("disk full");
    assertThatThrownBy(() -> lock.callLocked(Duration.ZERO, () -> {
      throw checked;
    })).isSameAs(checked).hasNoSuppressedExceptions();
    assertThat(holderInRedis("passing")).isNull();

    IllegalStateException unchecked = new IllegalStateException("bad state");
    assertThatThrownBy(() -> lock.runLocked(Duration.ZERO, () -> {
      throw unchecked;
    })).isSameAs(unchecked);
    assertThat(holderInRedis("passing")).isNull();

    try (LockLease other = client().lock("passing").acquire(Duration.ZERO)) {
      AtomicBoolean ran = new AtomicBoolean();
      assertThatThrownBy(() -> lock.runLocked(Duration.ZERO, () -> ran.set(true)))
          .isInstanceOf(LockTimeoutException.class);
      assertThat(ran).isFalse();
    }
  }

  @Test
  void theLeaseGivenToTheTask_isTheSections_andRefusesUseAfterItEnded() throws Exception {
    DistributedLock lock = client().lock("kept-lease");
    AtomicReference<LockLease> kept = new AtomicReference<>();
    long token = lock.callLocked(Duration.ZERO, lease -> {
      kept.set(lease);
      assertThatThrownBy(lease::close).isInstanceOf(IllegalStateException.class).hasMessageContaining("kept-lease")
          .hasMessageContaining("do not close it");
      assertThat(lease.isValid()).isTrue();
      return lease.fencingToken();
    });
    assertThat(token).isPositive();
    LockLease lease = kept.get();
    assertThat(lease.isValid()).isFalse();
    assertThat(lease.remaining()).isEqualTo(Duration.ZERO);
    assertThatThrownBy(lease::fencingToken).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("kept-lease").hasMessageContaining("after its guarded section ended");
    assertThatThrownBy(() -> lease.onLost(() -> {})).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(lease::close).isInstanceOf(IllegalStateException.class).hasMessageContaining("released");
  }

  @Test
  void badInput_failsBeforeAnythingIsAcquired() {
    Relock relock = client();
    DistributedLock lock = relock.lock("bad-input");
    DistributedSemaphore semaphore = relock.semaphore("bad-input-permits", 2);
    assertThatThrownBy(() -> lock.callLocked(Duration.ZERO, (java.util.concurrent.Callable<Object>) null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("task");
    assertThatThrownBy(() -> lock.callLocked(Duration.ZERO, (io.relock.LeaseTask<Object>) null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("task");
    assertThatThrownBy(() -> lock.runLocked(Duration.ZERO, null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("task");
    assertThatThrownBy(() -> lock.callLockedAsync(Duration.ZERO, null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("task");
    assertThatThrownBy(() -> semaphore.runLocked(Duration.ZERO, null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("task");
    assertThatThrownBy(() -> lock.runLocked(Duration.ofSeconds(-1), () -> {}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("wait").hasMessageContaining("PT-1S");
    assertThatThrownBy(() -> lock.callLockedAsync(Duration.ofSeconds(-1), l -> CompletableFuture.completedFuture(1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT-1S");
    assertThatThrownBy(() -> semaphore.callLocked(Duration.ofSeconds(-1), () -> 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT-1S");
    assertThatThrownBy(() -> lock.runLocked(null, () -> {})).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("wait");
    assertThat(holderInRedis("bad-input")).isNull();
    assertThat(semaphore.availablePermits()).isEqualTo(2);
  }

  @Test
  void everyKind_stopsItsTaskWhenItsLeaseIsLost() throws Exception {
    Relock holder = client(b -> b.defaultLease(Duration.ofMillis(900)));
    Relock operator = client();
    DistributedReadWriteLock rw = holder.readWriteLock("guarded-rw");
    assertStoppedBy(rw.writeLock(), () -> operator.readWriteLock("guarded-rw").writeLock().forceUnlock());
    assertStoppedBy(rw.readLock(), () -> operator.readWriteLock("guarded-rw").readLock().forceUnlock());
    assertStoppedBy(holder.multiLock("guarded-a", "guarded-b"), () -> operator.lock("guarded-b").forceUnlock());
    DistributedSemaphore semaphore = holder.semaphore("guarded-permits", 2);
    CompletableFuture<Void> running = new CompletableFuture<>();
    CompletableFuture<Ended> call = onThread(() -> semaphore.callLocked(Duration.ZERO, () -> {
      running.complete(null);
      Thread.sleep(PATIENCE.multipliedBy(2).toMillis());
      return null;
    }));
    running.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    List<?> holds = (List<?>) redis("KEYS", lockKey("guarded-permits") + ":h:*");
    assertThat(holds).hasSize(1);
    endSharedHold((String) holds.get(0));
    Ended ended = get(call);
    assertThat(ended.thrown()).isInstanceOf(LockLostException.class);
    assertThat(ended.thrown().getSuppressed()).singleElement().isInstanceOf(InterruptedException.class);
    assertThat(semaphore.availablePermits()).isEqualTo(2);
  }

  private static void assertStoppedBy(DistributedLock lock, java.util.function.BooleanSupplier loss) throws Exception {
    CompletableFuture<Void> running = new CompletableFuture<>();
    CompletableFuture<Ended> call = onThread(() -> lock.callLocked(Duration.ZERO, () -> {
      running.complete(null);
      Thread.sleep(PATIENCE.multipliedBy(2).toMillis());
      return null;
    }));
    running.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(loss.getAsBoolean()).as("something to force-unlock for " + lock).isTrue();
    Ended ended = get(call);
    assertThat(ended.thrown()).as(lock.toString()).isInstanceOf(LockLostException.class);
    assertThat(ended.thrown().getSuppressed()).singleElement().isInstanceOf(InterruptedException.class);
    assertThat(ended.interruptedAfter()).isFalse();
    assertThat(lock.isLocked()).isFalse();
  }

  @Test
  void async_aLossCancelsTheTasksFuture_andTheCallFailsWithLockLost() throws Exception {
    Relock holder = client(b -> b.defaultLease(ForcedUnlocks.LONG_LEASE));
    CompletableFuture<String> work = new CompletableFuture<>();
    CompletableFuture<String> call = holder.lock("async-guarded").callLockedAsync(Duration.ZERO, lease -> work);
    await("the task runs", () -> holderInRedis("async-guarded") != null);
    assertThat(client().lock("async-guarded").forceUnlock()).isTrue();
    assertThatThrownBy(() -> call.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(LockLostException.class).hasMessageContaining("forced unlock");
    assertThat(work).isCancelled();
    Throwable lost = call.handle((v, e) -> e).join();
    assertThat(lost.getSuppressed()).singleElement().isInstanceOf(CancellationException.class);
    assertThat(holder.lock("async-guarded").tryAcquire(Duration.ZERO)).isPresent().get().satisfies(LockLease::close);
  }

  @Test
  void async_completesWithTheStagesOutcome_afterReleasing() throws Exception {
    DistributedLock lock = client().lock("async-done");
    CompletableFuture<String> work = new CompletableFuture<>();
    CompletableFuture<String> call = lock.callLockedAsync(Duration.ZERO, lease -> work.thenApply(w -> w + lease.lockName()));
    await("the task runs", () -> holderInRedis("async-done") != null);
    work.complete("done in ");
    assertThat(call.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("done in async-done");
    assertThat(holderInRedis("async-done")).isNull();

    IOException failure = new IOException("failed");
    CompletableFuture<String> failing = lock.callLockedAsync(Duration.ZERO, lease -> CompletableFuture.failedFuture(failure));
    assertThatThrownBy(() -> failing.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).cause().isSameAs(failure);
    CompletableFuture<String> throwing = lock.callLockedAsync(Duration.ZERO, lease -> {
      throw new IllegalStateException("no stage");
    });
    assertThatThrownBy(() -> throwing.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).cause()
        .isInstanceOf(IllegalStateException.class).hasMessage("no stage");
    assertThat(holderInRedis("async-done")).isNull();
  }

  /**
   * The caller cancels while the section waits for the lock, many times, at moments that race the
   * grant: nothing is left held or queued (each round's holder gets the lock again in time, which a
   * hold left behind, renewed by its watchdog, would prevent), and a task that started had its
   * stage cancelled.
   */
  @Test
  void async_cancellingWhileWaitingOrRunning_leavesNothingHeld() throws Exception {
    Relock relock = client();
    Relock other = client();
    for (int i = 0; i < 100; i++) {
      // Not at once: an acquisition that the cancel withdrew may still be on its way to Redis.
      LockLease holding = other.lock("async-cancel").acquire(PATIENCE);
      AtomicReference<CompletableFuture<String>> started = new AtomicReference<>();
      CompletableFuture<String> call = relock.lock("async-cancel").callLockedAsync(PATIENCE, lease -> {
        CompletableFuture<String> work = new CompletableFuture<>();
        started.set(work);
        return work;
      });
      if (i % 2 == 0) {
        holding.close();
        long spin = System.nanoTime() + ThreadLocalRandom.current().nextLong(0, 2_000_000);
        while (System.nanoTime() - spin < 0) {
          Thread.onSpinWait();
        }
        call.cancel(false);
      } else {
        call.cancel(false);
        holding.close();
      }
      CompletableFuture<String> work = started.get();
      if (work != null) {
        await("the started task's stage is cancelled", work::isCancelled);
      }
    }
    other.lock("async-cancel").acquire(PATIENCE).close();
    awaitNothingLeftOf("async-cancel");
  }

  /** Tagged so that builds on Java 17 to 20 leave it out (it runs in the Java 25 re-run). */
  @Test
  @Tag("java21")
  void aTaskOnAVirtualThread_isInterruptedToo() throws Exception {
    Method ofVirtual;
    try {
      ofVirtual = Thread.class.getMethod("ofVirtual");
    } catch (NoSuchMethodException e) {
      Assumptions.abort("virtual threads need Java 21+; running on " + Runtime.version());
      return;
    }
    Relock holder = client(b -> b.defaultLease(ForcedUnlocks.LONG_LEASE));
    Object builder = ofVirtual.invoke(null);
    Method start = Class.forName("java.lang.Thread$Builder").getMethod("start", Runnable.class);
    CompletableFuture<Void> running = new CompletableFuture<>();
    CompletableFuture<Ended> ended = new CompletableFuture<>();
    AtomicBoolean virtual = new AtomicBoolean();
    start.invoke(builder, (Runnable) () -> ended.complete(endOf(() -> holder.lock("virtual-guarded")
        .callLocked(Duration.ZERO, () -> {
          virtual.set((Boolean) Thread.class.getMethod("isVirtual").invoke(Thread.currentThread()));
          running.complete(null);
          Thread.sleep(PATIENCE.multipliedBy(2).toMillis());
          return null;
        }))));
    running.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(virtual).isTrue();
    assertThat(client().lock("virtual-guarded").forceUnlock()).isTrue();
    Ended e = get(ended);
    assertThat(e.thrown()).isInstanceOf(LockLostException.class);
    assertThat(e.thrown().getSuppressed()).singleElement().isInstanceOf(InterruptedException.class);
    assertThat(e.interruptedAfter()).isFalse();
  }
}

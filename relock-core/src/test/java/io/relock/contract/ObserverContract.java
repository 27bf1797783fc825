package io.relock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.DistributedLock;
import io.relock.LockLease;
import io.relock.LockLostException;
import io.relock.LockObserver;
import io.relock.LockObserver.Kind;
import io.relock.LockObserver.Outcome;
import io.relock.LockTimeoutException;
import io.relock.Relock;
import io.relock.RelockException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * What a client tells its {@link LockObserver}s: one wait per acquisition, begun on the caller's
 * thread, ended once with its outcome; one hold per grant, ended once with its own.
 */
public abstract class ObserverContract extends RelockContract {

  /** One acquisition as its observer saw it. */
  static final class Seen {
    final Kind kind;
    final String name;
    final Thread startedOn = Thread.currentThread();
    volatile Outcome waitOutcome;
    volatile Throwable waitError;
    volatile long token = -1;
    volatile boolean handedOver;
    volatile boolean reentry;
    volatile Outcome holdOutcome;
    volatile Throwable holdError;
    volatile int ends;
    /** When the wait ended with the lock, and when the hold ended ({@link System#nanoTime()}). */
    volatile long acquiredAt;
    volatile long holdEndedAt;

    Seen(Kind kind, String name) {
      this.kind = kind;
      this.name = name;
    }

    @Override
    public String toString() {
      return kind + " " + name + " wait " + waitOutcome + (reentry ? " (re-entry)" : "") + " hold " + holdOutcome;
    }
  }

  /** Records every acquisition and hold it follows. */
  static final class Recorder implements LockObserver {
    final List<Seen> seen = new CopyOnWriteArrayList<>();

    @Override
    public Wait waitStarted(Kind kind, String lockName) {
      Seen s = new Seen(kind, lockName);
      seen.add(s);
      return new Wait() {
        @Override
        public Hold acquired(long fencingToken, boolean handedOver, boolean reentry) {
          s.token = fencingToken;
          s.handedOver = handedOver;
          s.reentry = reentry;
          s.waitOutcome = Outcome.ACQUIRED;
          s.acquiredAt = System.nanoTime();
          s.ends++;
          return (outcome, error) -> {
            s.holdEndedAt = System.nanoTime();
            s.holdOutcome = outcome;
            s.holdError = error;
            s.ends++;
          };
        }

        @Override
        public void failed(Outcome outcome, Throwable error) {
          s.waitOutcome = outcome;
          s.waitError = error;
          s.ends++;
        }
      };
    }

    Seen only() {
      assertThat(seen).hasSize(1);
      return seen.get(0);
    }

    Seen last() {
      return seen.get(seen.size() - 1);
    }
  }

  private Recorder observed(Relock relock) {
    Recorder r = new Recorder();
    relock.addObserver(r);
    return r;
  }

  @Test
  void aWaitBeginsOnTheCallersThread_andItsHoldEndsReleased_afterTheReleaseIsAnswered() {
    Relock relock = client();
    Recorder r = observed(relock);
    LockLease lease = relock.lock("followed").acquire(Duration.ZERO);
    Seen s = r.only();
    assertThat(s.startedOn).isSameAs(Thread.currentThread());
    assertThat(s.kind).isEqualTo(Kind.LOCK);
    assertThat(s.name).isEqualTo("followed");
    assertThat(s.waitOutcome).isEqualTo(Outcome.ACQUIRED);
    assertThat(s.token).isEqualTo(lease.fencingToken());
    assertThat(s.handedOver).as("found free").isFalse();
    assertThat(s.holdOutcome).as("still held").isNull();
    lease.close();
    assertThat(s.holdOutcome).isEqualTo(Outcome.RELEASED);
    assertThat(s.holdError).isNull();
    assertThat(s.ends).as("one end for the wait, one for the hold").isEqualTo(2);
  }

  @Test
  void aLockPassedOnByARelease_isReportedHandedOver_withinTheClientAndFromAnother() throws Exception {
    Relock relock = client();
    Recorder r = observed(relock);
    LockLease first = relock.lock("passed").acquire(Duration.ZERO);
    CompletableFuture<LockLease> second = relock.lock("passed").acquireAsync(Duration.ofSeconds(30));
    await("the second waits in the client, following the first",
        () -> io.relock.internal.TestAccess.localWaiters(relock, lockKey("passed"), PATIENCE) == 1);
    first.close();
    LockLease secondLease = second.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    assertThat(r.seen.get(1).handedOver).as("passed within the client").isTrue();
    assertThat(r.seen.get(0).holdEndedAt).as("the first hold ends before the second wait does")
        .isPositive().isLessThanOrEqualTo(r.seen.get(1).acquiredAt);
    assertThat(r.seen.get(1).token).isEqualTo(secondLease.fencingToken());

    Relock other = client();
    Recorder o = observed(other);
    CompletableFuture<LockLease> third = other.lock("passed").acquireAsync(Duration.ofSeconds(30));
    await("the other client waits in Redis", () -> relock.inspect("passed").waiters().size() == 1);
    secondLease.close();
    third.get(PATIENCE.toSeconds(), TimeUnit.SECONDS).close();
    assertThat(o.only().handedOver).as("granted by another client's release").isTrue();
    assertThat(o.only().holdOutcome).isEqualTo(Outcome.RELEASED);
  }

  @Test
  void aWaitThatRunsOut_isATimeout_whetherThrownOrReturnedFalse() throws Exception {
    Relock relock = client();
    LockLease held = client().lock("busy").acquire(Duration.ZERO);
    Recorder r = observed(relock);
    assertThatThrownBy(() -> relock.lock("busy").acquire(Duration.ofMillis(50))).isInstanceOf(LockTimeoutException.class);
    assertThat(relock.lock("busy").tryLock(50, TimeUnit.MILLISECONDS)).isFalse();
    assertThat(relock.lock("busy").tryLock()).isFalse();
    assertThat(r.seen).hasSize(3).allSatisfy(s -> {
      assertThat(s.waitOutcome).isEqualTo(Outcome.TIMEOUT);
      assertThat(s.waitError).isInstanceOf(LockTimeoutException.class);
      assertThat(s.holdOutcome).isNull();
      assertThat(s.ends).isEqualTo(1);
    });
    held.close();
  }

  @Test
  void anInterruptedWait_isInterrupted_andACancelledOne_isCancelled() throws Exception {
    Relock relock = client();
    LockLease held = client().lock("blocked").acquire(Duration.ZERO);
    Recorder r = observed(relock);
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    Thread waiter = new Thread(() -> {
      try {
        relock.lock("blocked").lockInterruptibly();
      } catch (Throwable t) {
        thrown.set(t);
      }
    });
    waiter.start();
    await("the thread waits", () -> r.seen.size() == 1 && relock.inspect("blocked").waiters().size() == 1);
    waiter.interrupt();
    waiter.join(PATIENCE.toMillis());
    assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
    assertThat(r.only().waitOutcome).isEqualTo(Outcome.INTERRUPTED);

    CompletableFuture<LockLease> cancelled = relock.lock("blocked").acquireAsync(Duration.ofSeconds(30));
    await("the async acquisition waits", () -> relock.inspect("blocked").waiters().size() == 1);
    cancelled.cancel(false);
    await("the cancel is followed", () -> r.last().waitOutcome != null);
    assertThat(r.last().waitOutcome).isEqualTo(Outcome.CANCELLED);
    held.close();
  }

  @Test
  void aWaitEndedByTheClientClosing_isAnError() {
    Relock relock = client();
    LockLease held = client().lock("closing").acquire(Duration.ZERO);
    Recorder r = observed(relock);
    CompletableFuture<LockLease> waiting = relock.lock("closing").acquireAsync(Duration.ofSeconds(30));
    await("it waits", () -> relock.stats().acquiring() == 1 && r.seen.size() == 1);
    relock.close();
    await("the wait's end is followed", () -> r.only().waitOutcome != null);
    assertThat(r.only().waitOutcome).isEqualTo(Outcome.ERROR);
    assertThat(r.only().waitError).isInstanceOf(RelockException.class);
    assertThat(waiting).isCompletedExceptionally();
    held.close();
  }

  @Test
  void aHoldTakenByAForcedUnlock_endsLost_once() {
    Relock relock = client();
    Recorder r = observed(relock);
    LockLease lease = relock.lock("taken").acquire(Duration.ZERO);
    client().lock("taken").forceUnlock();
    await("the loss is followed", () -> r.only().holdOutcome != null);
    assertThat(r.only().holdOutcome).isEqualTo(Outcome.LOST);
    assertThat(r.only().holdError).isInstanceOf(LockLostException.class).hasMessageContaining("taken");
    assertThatThrownBy(lease::close).isInstanceOf(LockLostException.class);
    assertThat(r.only().ends).as("the close does not end the hold again").isEqualTo(2);
  }

  @Test
  void aReleaseThatFindsTheHoldLost_endsItLost() {
    Relock relock = client();
    Recorder r = observed(relock);
    LockLease lease = relock.lock("expired").acquire(Duration.ZERO, Duration.ofSeconds(30));
    redis("DEL", lockKey("expired")); // gone without a notice: only the release finds out
    assertThatThrownBy(lease::close).isInstanceOf(LockLostException.class);
    assertThat(r.only().holdOutcome).isEqualTo(Outcome.LOST);
  }

  @Test
  void aReentry_isAnAcquisitionWithoutAHoldOfItsOwn() {
    Relock relock = client();
    Recorder r = observed(relock);
    DistributedLock lock = relock.lock("again");
    lock.lock();
    lock.lock();
    assertThat(r.seen).hasSize(2);
    assertThat(r.seen.get(0).reentry).isFalse();
    assertThat(r.seen.get(1).reentry).isTrue();
    assertThat(r.seen.get(1).waitOutcome).isEqualTo(Outcome.ACQUIRED);
    lock.unlock();
    assertThat(r.seen.get(0).holdOutcome).as("the outer hold goes on").isNull();
    lock.unlock();
    assertThat(r.seen.get(0).holdOutcome).isEqualTo(Outcome.RELEASED);
    assertThat(r.seen.get(1).holdOutcome).as("a re-entry's hold is the outer one").isNull();
  }

  @Test
  void everyKindIsNamed_andAMultiLockIsOneAcquisition_inEveryStyle() throws Exception {
    Relock relock = client();
    Recorder r = observed(relock);
    relock.readWriteLock("rw").readLock().acquire(Duration.ZERO).close();
    relock.readWriteLock("rw").writeLock().acquire(Duration.ZERO).close();
    relock.semaphore("sem", 2).acquire(Duration.ZERO).close();
    assertThat(r.seen).extracting(s -> s.kind).containsExactly(Kind.READ, Kind.WRITE, Kind.SEMAPHORE);
    assertThat(r.seen).allSatisfy(s -> assertThat(s.holdOutcome).isEqualTo(Outcome.RELEASED));

    r.seen.clear();
    DistributedLock multi = relock.multiLock("m1", "m2");
    LockLease lease = multi.acquire(Duration.ZERO);
    multi.acquireAsync(Duration.ofMillis(50)).handle((l, e) -> e).get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    lease.close();
    multi.lock();
    assertThat(multi.tryLock(1, TimeUnit.SECONDS)).isTrue(); // a re-entry
    multi.unlock();
    multi.unlock();
    assertThat(r.seen).extracting(s -> s.kind).containsOnly(Kind.MULTI_LOCK).hasSize(4);
    assertThat(r.seen).extracting(s -> s.name).containsOnly("m1,m2");
    assertThat(r.seen.get(0).token).isEqualTo(lease.fencingToken());
    assertThat(r.seen.get(0).holdOutcome).isEqualTo(Outcome.RELEASED);
    assertThat(r.seen.get(1).waitOutcome).isEqualTo(Outcome.TIMEOUT);
    assertThat(r.seen.get(2).holdOutcome).isEqualTo(Outcome.RELEASED);
    assertThat(r.seen.get(3).reentry).isTrue();
    assertThat(r.seen).allSatisfy(s -> assertThat(s.ends).isEqualTo(s.holdOutcome == null ? 1 : 2));
  }

  @Test
  void aMultiLockHold_endsLost_whenAnyOfItsLocksIsLost() {
    Relock relock = client();
    Recorder r = observed(relock);
    LockLease lease = relock.multiLock("p1", "p2").acquire(Duration.ZERO);
    client().lock("p2").forceUnlock();
    assertThatThrownBy(lease::close).isInstanceOf(LockLostException.class);
    await("the multi-lock's hold ends", () -> r.only().holdOutcome != null);
    assertThat(r.only().holdOutcome).isEqualTo(Outcome.LOST);
    assertThat(r.only().ends).isEqualTo(2);
  }

  @Test
  void anObserverThatThrows_changesNothing_andARemovedOneFollowsNothingMore() {
    Relock relock = client();
    LockObserver broken = (kind, name) -> {
      throw new IllegalStateException("observer bug");
    };
    relock.addObserver(broken);
    Recorder r = observed(relock);
    String logged = stderrOf(() -> relock.lock("sturdy").acquire(Duration.ZERO).close());
    assertThat(logged).contains("LockObserver").contains("observer bug");
    assertThat(r.only().holdOutcome).isEqualTo(Outcome.RELEASED);
    relock.removeObserver(r);
    relock.lock("sturdy").acquire(Duration.ZERO).close();
    assertThat(r.seen).hasSize(1);
    assertThat(relock.lock("sturdy").isLocked()).isFalse();
  }
}

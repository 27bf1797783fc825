package io.relock.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.LockLease;
import io.relock.Relock;
import io.relock.testkit.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.integration.support.locks.LockRegistry;

/** RelockLockRegistry as a RedisLockRegistry user relies on it, on a real Redis. */
class RelockLockRegistryTest {
  @RegisterExtension static final RedisExtension redis = new RedisExtension();
  private static final Duration PATIENCE = Duration.ofSeconds(20);

  private final List<Relock> clients = new ArrayList<>();

  @BeforeEach
  void flush() {
    redis.server().execute("FLUSHALL");
  }

  @AfterEach
  void close() {
    clients.forEach(Relock::close);
    clients.clear();
  }

  private Relock client(UnaryOperator<Relock.Builder> custom) {
    Relock r = custom.apply(Relock.builder().uri(redis.server().uri())).build();
    clients.add(r);
    return r;
  }

  /** A registry on a client of its own: another process, as far as Redis can tell. */
  private RelockLockRegistry registry() {
    return new RelockLockRegistry(client(b -> b), "reg");
  }

  @Test
  void theSpringIntegrationOnTheClassPath_isTheLineThisRunIsFor() {
    String expected = System.getProperty("relock.expected.spring-integration");
    String jar = String.valueOf(LockRegistry.class.getProtectionDomain().getCodeSource().getLocation());
    assertThat(jar).contains("spring-integration-core-" + expected);
    assertThat(org.springframework.core.SpringVersion.getVersion()).startsWith(System.getProperty("relock.expected.spring"));
  }

  @Test
  void obtain_givesOneLockPerKey_untilExpireUnusedDropsIt_butNeverOneInUse() throws Exception {
    RelockLockRegistry registry = registry();
    Lock a = registry.obtain("a");
    assertThat(registry.obtain("a")).isSameAs(a);
    Lock b = registry.obtain("b");
    b.lock();
    Thread.sleep(5);
    registry.expireUnusedOlderThan(0);
    assertThat(registry.obtain("a")).as("dropped, so a new one").isNotSameAs(a);
    assertThat(registry.obtain("b")).as("held: kept").isSameAs(b);
    b.unlock();
    assertThatThrownBy(() -> registry.obtain(42)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("java.lang.Integer '42'");
    assertThatThrownBy(() -> new RelockLockRegistry(client(c -> c)).obtain("  "))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'  '");
    assertThatThrownBy(() -> new RelockLockRegistry(client(c -> c), "", Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT0S");
  }

  @Test
  void aLock_excludesOtherProcesses_andTryLockWaitsForItsRelease() throws Exception {
    Lock mine = registry().obtain("job");
    Lock theirs = registry().obtain("job");
    mine.lock();
    assertThat(redis.server().execute("EXISTS", "relock:{reg:job}")).isEqualTo(1L);
    assertThat(theirs.tryLock()).isFalse();
    assertThat(theirs.tryLock(100, TimeUnit.MILLISECONDS)).isFalse();
    CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> {
      try {
        boolean got = theirs.tryLock(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
        theirs.unlock();
        return got;
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
    });
    mine.unlock();
    assertThat(waiting.get()).isTrue();
  }

  @Test
  void aLock_isReentrantForItsThread_andOthersThreadsWait_andOnlyItsThreadUnlocks() throws Exception {
    Lock lock = registry().obtain("owned");
    lock.lock();
    assertThat(lock.tryLock()).as("re-entry").isTrue();
    lock.unlock();
    assertThat(CompletableFuture.supplyAsync(lock::tryLock).get()).as("another thread").isFalse();
    AtomicReference<Throwable> byOther = new AtomicReference<>();
    Thread other = new Thread(() -> {
      try {
        lock.unlock();
      } catch (Throwable t) {
        byOther.set(t);
      }
    });
    other.start();
    other.join();
    assertThat(byOther.get()).isInstanceOf(IllegalStateException.class).hasMessageContaining("reg:owned");
    assertThat(redis.server().execute("EXISTS", "relock:{reg:owned}")).as("still held").isEqualTo(1L);
    lock.unlock();
    assertThat(redis.server().execute("EXISTS", "relock:{reg:owned}")).isEqualTo(0L);
    assertThatThrownBy(lock::unlock).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void lockInterruptibly_stopsAtAnInterrupt_andLeavesNothingBehind() throws Exception {
    Lock held = registry().obtain("busy");
    held.lock();
    Lock waiter = registry().obtain("busy");
    AtomicReference<Throwable> outcome = new AtomicReference<>();
    Thread t = new Thread(() -> {
      try {
        waiter.lockInterruptibly();
        outcome.set(new AssertionError("got the lock"));
      } catch (Throwable e) {
        outcome.set(e);
      }
    });
    t.start();
    await("the waiter waits in Redis", () -> (Long) redis.server().execute("ZCARD", "relock:{reg:busy}:q") == 1L);
    t.interrupt();
    t.join(PATIENCE.toMillis());
    assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
    await("its queue entry is withdrawn", () -> (Long) redis.server().execute("EXISTS", "relock:{reg:busy}:q") == 0L);
    assertThat(waiter.tryLock()).as("nor held locally").isFalse();
    held.unlock();
    assertThat(waiter.tryLock()).isTrue();
    waiter.unlock();
  }

  @Test
  void byDefault_theWatchdogKeepsAHoldPastTheLease() throws Exception {
    RelockLockRegistry registry = new RelockLockRegistry(client(b -> b.defaultLease(Duration.ofMillis(600))));
    Lock lock = registry.obtain("watched");
    lock.lock();
    Thread.sleep(1500); // two and a half leases
    registry.renewLock("watched");
    assertThat(registry.lease("watched").isValid()).isTrue();
    lock.unlock();
    assertThat(registry.lease("watched")).isNull();
  }

  @Test
  void withALease_aHoldEndsUnlessRenewed_andRenewLockRenewsIt() {
    RelockLockRegistry registry = new RelockLockRegistry(client(b -> b), "fixed", Duration.ofSeconds(2));
    Lock lock = registry.obtain("k");
    lock.lock();
    assertThat((Long) redis.server().execute("PTTL", "relock:{fixed:k}")).isBetween(1L, 2000L);
    registry.renewLock("k", Duration.ofSeconds(30));
    assertThat((Long) redis.server().execute("PTTL", "relock:{fixed:k}")).isGreaterThan(20_000L);
    registry.renewLock("k");
    assertThat((Long) redis.server().execute("PTTL", "relock:{fixed:k}")).isBetween(1L, 2000L);
    assertThat(registry.lease("k").fencingToken()).isPositive();
    await("the lease ends, not renewed", () -> redis.server().execute("EXISTS", "relock:{fixed:k}").equals(0L));
    assertThatThrownBy(() -> registry.renewLock("k")).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(lock::unlock).isInstanceOf(ConcurrentModificationException.class)
        .hasCauseInstanceOf(io.relock.LockLostException.class);
    assertThatThrownBy(() -> registry.renewLock("other")).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("does not hold");
    assertThatThrownBy(() -> registry.renewLock("k", Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PT0S");
  }

  @Test
  void aReentrantTryLock_ofALostHold_takesTheLockAgainIfFree_elseFails() throws Exception {
    RelockLockRegistry registry = registry();
    Lock lock = registry.obtain("leader");
    lock.lock();
    LockLease first = registry.lease("leader");
    assertThat(client(b -> b).lock("reg:leader").forceUnlock()).isTrue();
    await("the loss is heard", () -> !first.isValid());
    assertThat(lock.tryLock(1, TimeUnit.SECONDS)).as("taken again: nobody else had it").isTrue();
    assertThat(registry.lease("leader").fencingToken()).isGreaterThan(first.fencingToken());
    lock.unlock();
    LockLease second = registry.lease("leader");
    client(b -> b).lock("reg:leader").forceUnlock();
    await("the loss is heard", () -> !second.isValid());
    Lock other = registry().obtain("leader");
    assertThat(CompletableFuture.supplyAsync(other::tryLock).get()).isTrue();
    assertThat(lock.tryLock(200, TimeUnit.MILLISECONDS)).as("another owner has it").isFalse();
    assertThatThrownBy(lock::unlock).isInstanceOf(ConcurrentModificationException.class);
  }

  @Test
  void executeLocked_runsUnderTheLock() throws Exception {
    RelockLockRegistry registry = registry();
    String seen = registry.executeLocked("task", () -> String.valueOf(redis.server().execute("EXISTS", "relock:{reg:task}")));
    assertThat(seen).isEqualTo("1");
    assertThat(redis.server().execute("EXISTS", "relock:{reg:task}")).isEqualTo(0L);
  }

  private static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out after " + PATIENCE + " waiting until " + what);
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }
}

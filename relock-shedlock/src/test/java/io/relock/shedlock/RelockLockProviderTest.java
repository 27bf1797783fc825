package io.relock.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.LockInfo;
import io.relock.Relock;
import io.relock.testkit.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockExtender;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * ShedLock's provider contract (what its {@code AbstractLockProviderIntegrationTest} and {@code
 * AbstractExtensibleLockProviderIntegrationTest} check, which are not published), on a real Redis;
 * run on ShedLock 6 and, by the shedlock-7 execution, on ShedLock 7.
 */
class RelockLockProviderTest {
  @RegisterExtension static final RedisExtension redis = new RedisExtension();
  private static final Duration PATIENCE = Duration.ofSeconds(20);

  private final List<Relock> clients = new ArrayList<>();
  private LockProvider provider;

  @BeforeEach
  void connect() {
    redis.server().execute("FLUSHALL");
    provider = new RelockLockProvider(client());
  }

  @AfterEach
  void close() {
    clients.forEach(Relock::close);
    clients.clear();
  }

  private Relock client() {
    Relock r = Relock.connect(redis.server().uri());
    clients.add(r);
    return r;
  }

  @Test
  void theShedLockOnTheClassPath_isTheLineThisRunIsFor() {
    String expected = System.getProperty("relock.expected.shedlock");
    String jar = String.valueOf(LockProvider.class.getProtectionDomain().getCodeSource().getLocation());
    assertThat(jar).contains("shedlock-core-" + expected + ".jar");
  }

  @Test
  void aLock_isHeldAndListedUnderItsName_andGoneAfterUnlock() {
    Optional<SimpleLock> lock = provider.lock(config("report", Duration.ofMinutes(5), Duration.ZERO));
    assertThat(lock).isPresent();
    assertLocked("report");
    Relock relock = clients.get(0);
    assertThat(relock.list("*")).extracting(LockInfo::name).containsExactly("shedlock:report");
    assertThat(((RelockSimpleLock) lock.get()).relockName()).isEqualTo("shedlock:report");
    lock.get().unlock();
    assertUnlocked("report");
    assertThat(relock.list("*")).isEmpty();
    assertThat(redis.server().execute("EXISTS", "relock:{shedlock:report}")).isEqualTo(0L);
  }

  @Test
  void aSecondLock_isRefused_inThisProcessAndAnother_andIndependentNamesAreNot() {
    SimpleLock first = provider.lock(config("job")).orElseThrow();
    assertThat(provider.lock(config("job"))).isEmpty();
    assertThat(new RelockLockProvider(client()).lock(config("job"))).isEmpty();
    SimpleLock other = provider.lock(config("job2")).orElseThrow();
    first.unlock();
    other.unlock();
  }

  @Test
  void aLock_canBeTakenRightAfterUnlock_manyTimesInARow() {
    for (int i = 0; i < 10; i++) {
      SimpleLock lock = provider.lock(config("again")).orElseThrow();
      assertThat(provider.lock(config("again"))).isEmpty();
      lock.unlock();
    }
  }

  @Test
  void lockAtMostFor_endsTheLock_withoutUnlock() {
    assertThat(provider.lock(config("short", Duration.ofMillis(200), Duration.ZERO))).isPresent();
    await("the lock ends by itself", () -> provider.lock(config("short")).map(l -> {
      l.unlock();
      return true;
    }).orElse(false));
  }

  @Test
  void lockAtLeastFor_keepsTheLockAfterUnlock_evenIfTheClientClosesRightAfter() {
    Relock own = client();
    LockProvider shortLived = new RelockLockProvider(own);
    SimpleLock lock = shortLived.lock(config("atLeast", Duration.ofSeconds(20), Duration.ofSeconds(2))).orElseThrow();
    lock.unlock();
    own.close();
    assertThat(provider.lock(config("atLeast"))).as("still held for lockAtLeastFor").isEmpty();
    assertThat((Long) redis.server().execute("PTTL", "relock:{shedlock:atLeast}")).isBetween(1L, 2000L);
    await("lockAtLeastFor has passed", () -> provider.lock(config("atLeast")).map(l -> {
      l.unlock();
      return true;
    }).orElse(false));
  }

  @Test
  void extend_keepsTheLockPastItsFirstEnd_andTheExtendedLockUnlocks() {
    SimpleLock lock = provider.lock(config("ext", Duration.ofSeconds(1), Duration.ZERO)).orElseThrow();
    Optional<SimpleLock> extended = lock.extend(Duration.ofSeconds(10), Duration.ZERO);
    assertThat(extended).isPresent();
    assertThat(((RelockSimpleLock) extended.get()).fencingToken()).isEqualTo(((RelockSimpleLock) lock).fencingToken());
    long firstEnd = System.nanoTime() + Duration.ofMillis(1500).toNanos();
    await("the first lockAtMostFor has passed", () -> System.nanoTime() - firstEnd > 0);
    assertLocked("ext");
    assertThatThrownBy(lock::unlock).as("the lock before the extension").isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> lock.extend(Duration.ofSeconds(10), Duration.ZERO)).isInstanceOf(IllegalStateException.class);
    extended.get().unlock();
    assertUnlocked("ext");
  }

  @Test
  void extend_ofAnUnlockedLock_throws_andOfAnExpiredOne_isEmpty() {
    SimpleLock unlocked = provider.lock(config("u")).orElseThrow();
    unlocked.unlock();
    assertThatThrownBy(() -> unlocked.extend(Duration.ofSeconds(10), Duration.ZERO))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("'u'");
    SimpleLock expiring = provider.lock(config("e", Duration.ofMillis(200), Duration.ZERO)).orElseThrow();
    await("it expired", () -> redis.server().execute("EXISTS", "relock:{shedlock:e}").equals(0L));
    assertThat(expiring.extend(Duration.ofSeconds(10), Duration.ZERO)).isEmpty();
    assertUnlocked("e");
  }

  @Test
  void extend_withLockAtLeastFor_keepsTheLockAfterUnlock() {
    SimpleLock lock = provider.lock(config("least", Duration.ofSeconds(10), Duration.ZERO)).orElseThrow();
    SimpleLock extended = lock.extend(Duration.ofSeconds(10), Duration.ofSeconds(9)).orElseThrow();
    extended.unlock();
    assertLocked("least");
  }

  @Test
  void lockExtender_extendsTheActiveLock_andTheTaskSeesItsFencingToken() {
    DefaultLockingTaskExecutor executor = new DefaultLockingTaskExecutor(provider);
    AtomicLong seen = new AtomicLong();
    AtomicLong afterExtension = new AtomicLong();
    executor.executeWithLock((Runnable) () -> {
      seen.set(RelockLockProvider.currentFencingToken().orElseThrow());
      LockExtender.extendActiveLock(Duration.ofSeconds(30), Duration.ZERO);
      afterExtension.set(RelockLockProvider.currentFencingToken().orElseThrow());
      assertThat((Long) redis.server().execute("PTTL", "relock:{shedlock:task}")).isGreaterThan(20_000);
    }, config("task", Duration.ofSeconds(2), Duration.ZERO));
    assertThat(seen.get()).isPositive().isEqualTo(afterExtension.get());
    assertThat(RelockLockProvider.currentFencingToken()).as("outside the task").isEqualTo(OptionalLong.empty());
    assertUnlocked("task");
  }

  @Test
  void fencingTokens_growFromLockToLock() {
    RelockSimpleLock first = (RelockSimpleLock) provider.lock(config("fenced")).orElseThrow();
    assertThat(RelockLockProvider.currentFencingToken()).hasValue(first.fencingToken());
    first.unlock();
    RelockSimpleLock second = (RelockSimpleLock) provider.lock(config("fenced")).orElseThrow();
    assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
    second.unlock();
    assertThat(RelockLockProvider.currentFencingToken()).isEmpty();
  }

  @Test
  void anExtensionOnAnotherThread_keepsTheTasksFencingToken() throws Exception {
    // ShedLock's KeepAliveLockProvider extends a task's lock from its own scheduler thread.
    SimpleLock lock = provider.lock(config("kept-alive", Duration.ofSeconds(2), Duration.ZERO)).orElseThrow();
    long token = ((RelockSimpleLock) lock).fencingToken();
    SimpleLock extended = java.util.concurrent.CompletableFuture
        .supplyAsync(() -> lock.extend(Duration.ofSeconds(30), Duration.ZERO).orElseThrow()).get();
    assertThat(RelockLockProvider.currentFencingToken()).as("in the task, after the extension").hasValue(token);
    extended.unlock();
    assertThat(RelockLockProvider.currentFencingToken()).isEmpty();
  }

  @Test
  void manyThreads_neverHoldOneLockAtOnce() throws Exception {
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    AtomicInteger ran = new AtomicInteger();
    ExecutorService threads = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        done.add(threads.submit(() -> {
          for (int i = 0; i < 50; i++) {
            Optional<SimpleLock> lock = provider.lock(config("fuzz"));
            if (lock.isPresent()) {
              most.accumulateAndGet(inside.incrementAndGet(), Math::max);
              ran.incrementAndGet();
              inside.decrementAndGet();
              lock.get().unlock();
            }
          }
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      threads.shutdownNow();
    }
    assertThat(most.get()).isEqualTo(1);
    assertThat(ran.get()).isPositive();
  }

  @Test
  void badInput_isRefused_namingTheValue() {
    assertThatThrownBy(() -> provider.lock(config("zero", Duration.ZERO, Duration.ZERO)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT0S").hasMessageContaining("'zero'");
    assertThatThrownBy(() -> provider.lock(config("   ")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'   '");
    String tooLong = "x".repeat(1100);
    assertThatThrownBy(() -> provider.lock(config(tooLong)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ShedLock lock name 'xxx");
    SimpleLock lock = provider.lock(config("bad-extend")).orElseThrow();
    assertThatThrownBy(() -> lock.extend(Duration.ofSeconds(-1), Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT-1S");
    assertThatThrownBy(() -> lock.extend(Duration.ofSeconds(1), Duration.ofSeconds(2)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT2S");
    lock.unlock(); // the refused extensions left it valid
    assertThatThrownBy(() -> new RelockLockProvider(null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void aNamePrefix_namesTheRelockLock() {
    SimpleLock lock = new RelockLockProvider(clients.get(0), "jobs/").lock(config("nightly")).orElseThrow();
    assertThat(clients.get(0).list("jobs/*")).extracting(LockInfo::name).containsExactly("jobs/nightly");
    lock.unlock();
  }

  private void assertLocked(String name) {
    assertThat(new RelockLockProvider(client()).lock(config(name))).as(name + " is locked").isEmpty();
  }

  private void assertUnlocked(String name) {
    SimpleLock lock = new RelockLockProvider(client()).lock(config(name)).orElse(null);
    assertThat(lock).as(name + " is free").isNotNull();
    lock.unlock();
  }

  private static LockConfiguration config(String name) {
    return config(name, Duration.ofMinutes(1), Duration.ZERO);
  }

  private static LockConfiguration config(String name, Duration atMost, Duration atLeast) {
    return new LockConfiguration(ClockProvider.now(), name, atMost, atLeast);
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

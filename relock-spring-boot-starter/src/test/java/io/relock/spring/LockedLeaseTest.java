package io.relock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.LockLease;
import io.relock.LockLostException;
import io.relock.LockTimeoutException;
import io.relock.Relock;
import io.relock.testkit.Await;
import io.relock.testkit.RedisExtension;
import io.relock.testkit.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The lease inside a @Locked method (parameter and CurrentLease), a fixed lease, holdAtLeast, and
 * how a lease lost while the method runs is reported.
 */
@ExtendWith(OutputCaptureExtension.class)
class LockedLeaseTest {

  @RegisterExtension static final RedisExtension redis = new RedisExtension();

  /** Takes the lock away from its holder, as an expired lease or an operator would. */
  static final class Thief {
    static void steal(String name) {
      try (Relock other = Relock.connect(redis.server().uri())) {
        if (!other.lock(name).forceUnlock()) {
          throw new AssertionError(name + " was not held");
        }
      }
    }
  }

  static class Leases {
    private final AtomicReference<LockLease> seen = new AtomicReference<>();
    private final Inner inner;

    /** The lease the last call saw (through a method: the tests hold a proxy, whose fields are empty). */
    public LockLease seen() {
      return seen.get();
    }

    Leases(Inner inner) {
      this.inner = inner;
    }

    @Locked("'param:' + #name")
    public long parameter(String name, LockLease lease) {
      seen.set(lease);
      if (CurrentLease.get() != lease || !lease.isValid() || !lease.lockName().equals("param:" + name)) {
        throw new AssertionError("the parameter is not the current, valid lease of param:" + name);
      }
      return lease.fencingToken();
    }

    @Locked("'outer'")
    public List<String> nested() {
      String before = CurrentLease.get().lockName();
      String during = inner.name();
      String after = CurrentLease.get().lockName();
      return List.of(before, during, after);
    }

    @Locked(value = "'fixed'", lease = "20s")
    public long fixedLease(RedisServer server) {
      return (Long) server.execute("PTTL", "relock:{fixed}");
    }

    @Locked(value = "'at-least-' + #name", holdAtLeast = "1h")
    public String heldAnHour(String name) {
      return "done";
    }

    @Locked(value = "'at-least-short'", holdAtLeast = "1s")
    public String heldASecond() {
      return "done";
    }

    @Locked(value = "'lost-' + #name", onLost = Locked.OnLost.THROW)
    public String losingAndThrowing(String name) {
      Thief.steal("lost-" + name);
      return "result";
    }

    @Locked(value = "'lost-' + #name", onLost = Locked.OnLost.THROW)
    public CompletableFuture<String> losingAsync(String name) {
      Thief.steal("lost-" + name);
      return CompletableFuture.completedFuture("async result");
    }

    @Locked(value = "'lost-' + #name", onLost = Locked.OnLost.THROW)
    public reactor.core.publisher.Mono<String> losingMono(String name) {
      return reactor.core.publisher.Mono.fromCallable(() -> {
        Thief.steal("lost-" + name);
        return "mono result";
      });
    }

    @Locked(value = "'lost-' + #name")
    public String losingAndLogging(String name) {
      Thief.steal("lost-" + name);
      return "result";
    }

    @Locked(value = "'lost-' + #name", onLost = Locked.OnLost.CALLBACK)
    public String losingQuietly(String name) {
      Thief.steal("lost-" + name);
      return "result";
    }

    @Locked(value = "'lost-' + #name", onLost = Locked.OnLost.THROW)
    public String losingAndFailing(String name) {
      Thief.steal("lost-" + name);
      throw new IllegalStateException("the method's own failure");
    }
  }

  static class Inner {
    @Locked("'inner'")
    public String name() {
      return CurrentLease.get().lockName();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class LeasesApp {
    final List<LostLease> lost = new CopyOnWriteArrayList<>();

    @Bean
    Inner inner() {
      return new Inner();
    }

    @Bean
    Leases leases(Inner inner) {
      return new Leases(inner);
    }

    @Bean
    LostLeaseHandler recordLostLeases() {
      return lost::add;
    }
  }

  @Test
  void aLockLeaseParameter_isFilledInWithTheCurrentLease_whichEndsWithTheCall() {
    Apps.on(redis.server()).withUserConfiguration(LeasesApp.class).run(context -> {
      Leases leases = context.getBean(Leases.class);
      long first = leases.parameter("a", null);
      LockLease used = leases.seen();
      assertThat(used.isValid()).as("closed after the call").isFalse();
      assertThat(Apps.isLockedInRedis(redis.server(), "param:a")).isFalse();
      assertThat(leases.parameter("a", null)).as("a newer token each time").isGreaterThan(first);
    });
  }

  @Test
  void currentLease_isTheInnermostLockedMethods_andNoneOutside() {
    Apps.on(redis.server()).withUserConfiguration(LeasesApp.class).run(context -> {
      assertThat(context.getBean(Leases.class).nested()).containsExactly("outer", "inner", "outer");
      assertThat(CurrentLease.find()).isEmpty();
      assertThatThrownBy(CurrentLease::get).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("no @Locked method");
    });
  }

  @Test
  void aFixedLease_isTheLocksTimeToLive() {
    Apps.on(redis.server()).withUserConfiguration(LeasesApp.class).withPropertyValues("relock.default-lease=60s")
        .run(context -> assertThat(context.getBean(Leases.class).fixedLease(redis.server()))
            .isPositive().isLessThanOrEqualTo(20_000));
  }

  @Test
  void holdAtLeast_keepsTheLockAfterTheMethodReturns_untilTheApplicationStops() {
    try (Relock other = Relock.connect(redis.server().uri())) {
      Apps.on(redis.server()).withUserConfiguration(LeasesApp.class).run(context -> {
        assertThat(context.getBean(Leases.class).heldAnHour("stop")).isEqualTo("done");
        assertThat(Apps.isLockedInRedis(redis.server(), "at-least-stop")).isTrue();
        assertThatThrownBy(() -> other.lock("at-least-stop").acquire(Duration.ZERO))
            .isInstanceOf(LockTimeoutException.class);
      });
      assertThat(Apps.isLockedInRedis(redis.server(), "at-least-stop")).as("released at shutdown").isFalse();
    }
  }

  @Test
  void holdAtLeast_releasesTheLockOnceTheTimeHasPassed() {
    Apps.on(redis.server()).withUserConfiguration(LeasesApp.class).run(context -> {
      long called = System.nanoTime();
      context.getBean(Leases.class).heldASecond();
      Await.until("the delayed release", () -> !Apps.isLockedInRedis(redis.server(), "at-least-short"));
      // Seen free no sooner than a second after the call began: the lock outlived the method, which
      // returned at once. (A lower bound only, so a slow machine cannot fail it.)
      assertThat(Duration.ofNanos(System.nanoTime() - called)).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
    });
  }

  @Test
  void onLostThrow_theCallerGetsLockedLeaseLostException_withTheResult_andHandlersHearIt() {
    Apps.on(redis.server()).withUserConfiguration(LeasesApp.class).run(context -> {
      LockedLeaseLostException e = org.junit.jupiter.api.Assertions.assertThrows(LockedLeaseLostException.class,
          () -> context.getBean(Leases.class).losingAndThrowing("t"));
      assertThat(e.returnValue()).isEqualTo("result");
      assertThat(e.lockName()).isEqualTo("lost-t");
      assertThat(e.method().getName()).isEqualTo("losingAndThrowing");
      assertThat(e).hasCauseInstanceOf(LockLostException.class);
      List<LostLease> lost = context.getBean(LeasesApp.class).lost;
      Await.until("the handler hears it", () -> lost.size() == 1);
      assertThat(lost.get(0).lockName()).isEqualTo("lost-t");
      assertThat(lost.get(0).method().getName()).isEqualTo("losingAndThrowing");
    });
  }

  @Test
  void onLostThrow_aFutureCompletesWithLockedLeaseLostException() {
    Apps.on(redis.server()).withUserConfiguration(LeasesApp.class).run(context -> {
      CompletableFuture<String> future = context.getBean(Leases.class).losingAsync("f");
      assertThat(future).failsWithin(30, TimeUnit.SECONDS).withThrowableOfType(ExecutionException.class)
          .havingCause().isInstanceOf(LockedLeaseLostException.class)
          .satisfies(e -> assertThat(((LockedLeaseLostException) e).returnValue()).isEqualTo("async result"));
    });
  }

  @Test
  void onLostThrow_aMonoErrorsWithLockedLeaseLostException_insteadOfItsValue() {
    Apps.on(redis.server()).withUserConfiguration(LeasesApp.class).run(context -> {
      assertThatThrownBy(() -> context.getBean(Leases.class).losingMono("m").block(Duration.ofSeconds(30)))
          .isInstanceOf(LockedLeaseLostException.class)
          .satisfies(e -> assertThat(((LockedLeaseLostException) e).returnValue()).isEqualTo("mono result"));
    });
  }

  @Test
  void onLostThrow_whenTheMethodThrowsToo_itsOwnExceptionCarriesTheLoss() {
    Apps.on(redis.server()).withUserConfiguration(LeasesApp.class).run(context -> {
      assertThatThrownBy(() -> context.getBean(Leases.class).losingAndFailing("x"))
          .isInstanceOf(IllegalStateException.class).hasMessage("the method's own failure")
          .satisfies(e -> assertThat(e.getSuppressed()).singleElement().isInstanceOf(LockLostException.class));
    });
  }

  @Test
  void onLostLog_byDefault_logsAWarning_returnsTheResult_andHandlersHearIt(CapturedOutput output) {
    Apps.on(redis.server()).withUserConfiguration(LeasesApp.class).run(context -> {
      assertThat(context.getBean(Leases.class).losingAndLogging("l")).isEqualTo("result");
      assertThat(output).contains("lease on lock 'lost-l'").contains("losingAndLogging");
      List<LostLease> lost = context.getBean(LeasesApp.class).lost;
      Await.until("the handler hears it", () -> lost.size() == 1);
    });
  }

  @Test
  void onLostCallback_onlyTheHandlersHearIt(CapturedOutput output) {
    Apps.on(redis.server()).withUserConfiguration(LeasesApp.class).run(context -> {
      assertThat(context.getBean(Leases.class).losingQuietly("c")).isEqualTo("result");
      List<LostLease> lost = context.getBean(LeasesApp.class).lost;
      Await.until("the handler hears it", () -> lost.size() == 1);
      assertThat(lost.get(0).lockName()).isEqualTo("lost-c");
      // The starter logs nothing of its own (its line names the method); relock-core's own warning
      // of a loss it found (here at once, told of the forced unlock) is the library's, not the starter's.
      assertThat(output).doesNotContain("losingQuietly").doesNotContain("was lost while it was held");
    });
  }

  @Test
  void theApplicationsOnLostSetting_appliesToMethodsWithoutTheirOwn() {
    Apps.on(redis.server()).withUserConfiguration(LeasesApp.class).withPropertyValues("relock.locked.on-lost=throw")
        .run(context -> assertThatThrownBy(() -> context.getBean(Leases.class).losingAndLogging("p"))
            .isInstanceOf(LockedLeaseLostException.class));
  }
}

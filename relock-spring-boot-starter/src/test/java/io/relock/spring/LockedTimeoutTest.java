package io.relock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.LockLease;
import io.relock.LockTimeoutException;
import io.relock.Relock;
import io.relock.testkit.RedisExtension;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** What a @Locked method does when another holder keeps its lock for the whole wait. */
class LockedTimeoutTest {

  @RegisterExtension static final RedisExtension redis = new RedisExtension();

  private static Relock holder;
  private static LockLease held;

  @BeforeAll
  static void someoneElseHoldsTheLock() {
    holder = Relock.connect(redis.server().uri());
    held = holder.lock("busy").acquire(Duration.ofSeconds(5));
  }

  @AfterAll
  static void release() {
    held.close();
    holder.close();
  }

  /**
   * Every method counts its runs; none should run while "busy" is held elsewhere. (Tests read the
   * count through a method: the bean they get is a proxy, whose own fields are empty.)
   */
  static class Busy {
    private final AtomicInteger runs = new AtomicInteger();

    public int runs() {
      return runs.get();
    }

    @Locked(value = "'busy'", waitTime = "50ms")
    public String throwing() {
      runs.incrementAndGet();
      return "ran";
    }

    @Locked(value = "'busy'", onTimeout = Locked.OnTimeout.SKIP)
    public void skippedVoid() {
      runs.incrementAndGet();
    }

    @Locked(value = "'busy'", onTimeout = Locked.OnTimeout.SKIP)
    public Optional<String> skippedOptional() {
      runs.incrementAndGet();
      return Optional.of("ran");
    }

    @Locked(value = "'busy'", onTimeout = Locked.OnTimeout.SKIP)
    public String skippedObject() {
      runs.incrementAndGet();
      return "ran";
    }

    @Locked(value = "'busy'", onTimeout = Locked.OnTimeout.SKIP)
    public CompletableFuture<Optional<String>> skippedFutureOfOptional() {
      runs.incrementAndGet();
      return CompletableFuture.completedFuture(Optional.of("ran"));
    }

    @Locked(value = "'busy'", onTimeout = Locked.OnTimeout.SKIP)
    public CompletableFuture<String> skippedFuture() {
      runs.incrementAndGet();
      return CompletableFuture.completedFuture("ran");
    }

    @Locked(value = "'busy'", onTimeout = Locked.OnTimeout.SKIP)
    public Mono<String> skippedMono() {
      return Mono.fromCallable(() -> {
        runs.incrementAndGet();
        return "ran";
      });
    }

    @Locked(value = "'busy'", onTimeout = Locked.OnTimeout.SKIP)
    public Flux<String> skippedFlux() {
      return Flux.defer(() -> {
        runs.incrementAndGet();
        return Flux.just("a", "b");
      });
    }

    @Locked(value = "'busy'")
    public CompletableFuture<String> throwingFuture() {
      runs.incrementAndGet();
      return CompletableFuture.completedFuture("ran");
    }

    @Locked(value = "'busy'")
    public Mono<String> throwingMono() {
      return Mono.fromCallable(() -> {
        runs.incrementAndGet();
        return "ran";
      });
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class BusyApp {
    @Bean
    Busy busy() {
      return new Busy();
    }
  }

  @Test
  void throwByDefault_theCallerGetsLockTimeoutException_andTheMethodDoesNotRun() {
    Apps.on(redis.server()).withUserConfiguration(BusyApp.class).run(context -> {
      Busy busy = context.getBean(Busy.class);
      assertThatThrownBy(busy::throwing).isInstanceOf(LockTimeoutException.class)
          .satisfies(e -> assertThat(((LockTimeoutException) e).waitTime()).isEqualTo(Duration.ofMillis(50)));
      assertThat(busy.throwingFuture()).failsWithin(30, TimeUnit.SECONDS)
          .withThrowableOfType(ExecutionException.class).withCauseInstanceOf(LockTimeoutException.class);
      assertThatThrownBy(() -> busy.throwingMono().block(Duration.ofSeconds(30)))
          .isInstanceOf(LockTimeoutException.class);
      assertThat(busy.runs()).isZero();
    });
  }

  @Test
  void skip_returnsNothingOfEachReturnType_andTheMethodDoesNotRun() {
    Apps.on(redis.server()).withUserConfiguration(BusyApp.class).run(context -> {
      Busy busy = context.getBean(Busy.class);
      busy.skippedVoid();
      assertThat(busy.skippedOptional()).isEmpty();
      assertThat(busy.skippedObject()).isNull();
      assertThat(busy.skippedFutureOfOptional().get(30, TimeUnit.SECONDS)).isEmpty();
      assertThat(busy.skippedFuture().get(30, TimeUnit.SECONDS)).isNull();
      assertThat(busy.skippedMono().blockOptional(Duration.ofSeconds(30))).isEmpty();
      assertThat(busy.skippedFlux().collectList().block(Duration.ofSeconds(30))).isEqualTo(List.of());
      assertThat(busy.runs()).isZero();
    });
  }

  @Test
  void onceTheLockIsFree_theSameMethodsRun() {
    Apps.on(redis.server()).withUserConfiguration(BusyApp.class).run(context -> {
      Busy busy = context.getBean(Busy.class);
      held.close();
      try {
        assertThat(busy.throwing()).isEqualTo("ran");
        assertThat(busy.skippedOptional()).contains("ran");
        assertThat(busy.skippedFuture().get(30, TimeUnit.SECONDS)).isEqualTo("ran");
        assertThat(busy.skippedMono().block(Duration.ofSeconds(30))).isEqualTo("ran");
        assertThat(busy.skippedFlux().collectList().block(Duration.ofSeconds(30))).isEqualTo(List.of("a", "b"));
        assertThat(busy.runs()).isEqualTo(5);
      } finally {
        held = holder.lock("busy").acquire(Duration.ofSeconds(30));
      }
    });
  }
}

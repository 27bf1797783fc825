package io.relock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.testkit.Await;
import io.relock.testkit.RedisExtension;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** A @Locked method of two applications on one Redis: one runs it at a time, in lock order. */
class LockedExclusionTest {

  @RegisterExtension static final RedisExtension redis = new RedisExtension();

  private final ExecutorService callers = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    callers.shutdownNow();
  }

  /** A method that stays inside until the test lets it leave. */
  static class Gate {
    private final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch mayLeave = new CountDownLatch(1);

    // Read through methods: the bean the tests get is a proxy, whose own fields are empty.
    public CountDownLatch entered() {
      return entered;
    }

    public CountDownLatch mayLeave() {
      return mayLeave;
    }

    @Locked(value = "'gate:' + #gate", waitTime = "30s")
    public long pass(String gate) {
      entered.countDown();
      Apps.await(mayLeave, "the test lets the caller leave");
      return CurrentLease.get().fencingToken();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class GateApp {
    @Bean
    Gate gate() {
      return new Gate();
    }
  }

  @Test
  void twoApplications_theSecondCallerWaitsUntilTheFirstHasLeft_andGetsANewerToken() {
    Apps.on(redis.server()).withUserConfiguration(GateApp.class).run(first ->
        Apps.on(redis.server()).withUserConfiguration(GateApp.class).run(second -> {
          Gate a = first.getBean(Gate.class);
          Gate b = second.getBean(Gate.class);

          Future<Long> inA = callers.submit(() -> a.pass("1"));
          Apps.await(a.entered(), "the first application's call is inside");
          Future<Long> inB = callers.submit(() -> b.pass("1"));
          Await.until("the second application's call waits in the lock's queue",
              () -> Apps.queued(redis.server(), "gate:1") == 1);
          assertThat(b.entered().getCount()).as("the second call is not inside").isEqualTo(1);

          a.mayLeave().countDown();
          long tokenA = inA.get(30, TimeUnit.SECONDS);
          Apps.await(b.entered(), "the second call gets in once the first has left");
          b.mayLeave().countDown();
          long tokenB = inB.get(30, TimeUnit.SECONDS);

          assertThat(tokenB).isGreaterThan(tokenA);
          assertThat(Apps.isLockedInRedis(redis.server(), "gate:1")).isFalse();
        }));
  }

  @Test
  void twoApplications_differentNames_doNotWaitForEachOther() {
    Apps.on(redis.server()).withUserConfiguration(GateApp.class).run(first ->
        Apps.on(redis.server()).withUserConfiguration(GateApp.class).run(second -> {
          Gate a = first.getBean(Gate.class);
          Gate b = second.getBean(Gate.class);
          CompletableFuture<Long> inA = CompletableFuture.supplyAsync(() -> a.pass("2"), callers);
          Apps.await(a.entered(), "the first call is inside");
          CompletableFuture<Long> inB = CompletableFuture.supplyAsync(() -> b.pass("3"), callers);
          Apps.await(b.entered(), "the second call, on another name, gets in while the first is inside");
          a.mayLeave().countDown();
          b.mayLeave().countDown();
          assertThat(inA.get(30, TimeUnit.SECONDS)).isPositive();
          assertThat(inB.get(30, TimeUnit.SECONDS)).isPositive();
        }));
  }
}

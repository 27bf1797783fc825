package io.relock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.Relock;
import io.relock.testkit.Await;
import io.relock.testkit.RedisExtension;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** {@code @Locked(interruptOnLost = true)}: a lost lease stops the method, not only reports it. */
class LockedInterruptOnLostTest {

  @RegisterExtension static final RedisExtension redis = new RedisExtension();

  /** Long enough that only the interrupt ends a call within the test's patience. */
  private static final long LONGER_THAN_PATIENCE = Await.GENEROUS.multipliedBy(3).toMillis();

  static class Jobs {
    private final CountDownLatch running = new CountDownLatch(1);
    private final CompletableFuture<String> work = new CompletableFuture<>();

    // Through methods: the tests hold the proxy, whose own fields are empty.
    public CountDownLatch running() {
      return running;
    }

    public CompletableFuture<String> work() {
      return work;
    }

    @Locked(value = "'interrupted'", interruptOnLost = true)
    public String sleepsUntilStopped() throws InterruptedException {
      running.countDown();
      Thread.sleep(LONGER_THAN_PATIENCE);
      return "ran to its end";
    }

    @Locked(value = "'cancelled'", interruptOnLost = true)
    public CompletableFuture<String> neverCompletes() {
      running.countDown();
      return work;
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class JobsApp {
    @Bean
    Jobs jobs() {
      return new Jobs();
    }
  }

  private static void forceUnlockWhen(CountDownLatch running, String name) {
    CompletableFuture.runAsync(() -> {
      Apps.await(running, "the method runs");
      try (Relock operator = Relock.connect(redis.server().uri())) {
        operator.lock(name).forceUnlock();
      }
    });
  }

  @Test
  void aLostLease_interruptsTheMethodsThread_andTheInterruptDoesNotOutliveTheCall() {
    Apps.on(redis.server()).withUserConfiguration(JobsApp.class)
        .withPropertyValues("relock.default-lease=10m").run(context -> {
          Jobs jobs = context.getBean(Jobs.class);
          forceUnlockWhen(jobs.running(), "interrupted");
          long began = System.nanoTime();
          assertThatThrownBy(jobs::sleepsUntilStopped).isInstanceOf(InterruptedException.class)
              .satisfies(e -> assertThat(e.getSuppressed()).singleElement().isInstanceOf(io.relock.LockLostException.class));
          assertThat(Duration.ofNanos(System.nanoTime() - began)).isLessThan(Await.GENEROUS);
          assertThat(Thread.interrupted()).as("the starter's interrupt is cleared").isFalse();
          assertThat(Apps.isLockedInRedis(redis.server(), "interrupted")).isFalse();
        });
  }

  @Test
  void aLostLease_cancelsTheMethodsFuture() {
    Apps.on(redis.server()).withUserConfiguration(JobsApp.class)
        .withPropertyValues("relock.default-lease=10m").run(context -> {
          Jobs jobs = context.getBean(Jobs.class);
          forceUnlockWhen(jobs.running(), "cancelled");
          CompletableFuture<String> call = jobs.neverCompletes();
          assertThatThrownBy(() -> call.get(Await.GENEROUS.toMillis(), TimeUnit.MILLISECONDS))
              .isInstanceOf(CancellationException.class);
          assertThat(jobs.work()).isCancelled();
          Await.until("the lock is released", () -> !Apps.isLockedInRedis(redis.server(), "cancelled"));
        });
  }
}

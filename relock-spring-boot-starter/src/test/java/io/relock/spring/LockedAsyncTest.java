package io.relock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.LockLease;
import io.relock.Relock;
import io.relock.testkit.Await;
import io.relock.testkit.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * @Locked methods returning CompletableFuture or Mono: the caller gets the future or Mono at once,
 * no thread waits for the lock (the starter's executor here has one thread, so a blocked one would
 * stop everything), and the lock is held until the future or Mono completes.
 */
@SuppressWarnings("try") // leases held by try-with-resources for their side effect
class LockedAsyncTest {

  @RegisterExtension static final RedisExtension redis = new RedisExtension();

  private static final int CALLS = 12;

  private final ExecutorService elsewhere = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    elsewhere.shutdownNow();
  }

  /** Work that completes on another thread, so that "held until complete" can be checked. */
  static class Jobs {
    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger mostInside = new AtomicInteger();
    private final AtomicInteger done = new AtomicInteger();
    private volatile Executor completer;

    // Reached through methods: the bean the tests get is a proxy, whose own fields are empty.
    public void completeOn(Executor executor) {
      completer = executor;
    }

    public int inside() {
      return inside.get();
    }

    public int mostInside() {
      return mostInside.get();
    }

    public int done() {
      return done.get();
    }

    private void enter() {
      mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
    }

    private long leave(long token) {
      inside.decrementAndGet();
      done.incrementAndGet();
      return token;
    }

    @Locked(value = "'jobs'", waitTime = "60s")
    public CompletableFuture<Long> future(LockLease lease) {
      enter();
      long token = CurrentLease.get().fencingToken();
      if (token != lease.fencingToken()) {
        throw new AssertionError("the parameter and CurrentLease disagree");
      }
      return CompletableFuture.supplyAsync(() -> leave(token), completer);
    }

    @Locked(value = "'jobs'", waitTime = "60s")
    public Mono<Long> mono() {
      return Mono.deferContextual(ctx -> {
        enter();
        return Mono.fromCallable(() -> leave(ctx.get(LockLease.class).fencingToken()))
            .subscribeOn(reactor.core.scheduler.Schedulers.fromExecutor(completer));
      });
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class JobsApp {
    @Bean
    Jobs jobs() {
      return new Jobs();
    }

    @Bean(LockedAutoConfiguration.EXECUTOR_BEAN)
    ExecutorService oneThread() {
      return Executors.newSingleThreadExecutor();
    }
  }

  @Test
  void futures_returnAtOnceWhileTheLockIsHeld_thenRunOneAtATime_eachHoldingUntilItsFutureCompletes() {
    Apps.on(redis.server()).withUserConfiguration(JobsApp.class).run(context -> {
      Jobs jobs = context.getBean(Jobs.class);
      jobs.completeOn(elsewhere);
      List<CompletableFuture<Long>> futures = new ArrayList<>();
      try (Relock other = Relock.connect(redis.server().uri())) {
        LockLease held = other.lock("jobs").acquire(Duration.ofSeconds(5));
        // From one thread: had a call waited for the lock, the next would never be made.
        futures = CompletableFuture.supplyAsync(() -> {
          List<CompletableFuture<Long>> made = new ArrayList<>();
          for (int i = 0; i < CALLS; i++) {
            made.add(jobs.future(null));
          }
          return made;
        }, elsewhere).get(30, TimeUnit.SECONDS);
        Await.until("a waiter is queued for the lock", () -> Apps.queued(redis.server(), "jobs") == 1);
        assertThat(futures).noneMatch(CompletableFuture::isDone);
        assertThat(jobs.inside()).isEqualTo(0);
        held.close();
      }
      List<Long> tokens = new ArrayList<>();
      for (CompletableFuture<Long> f : futures) {
        tokens.add(f.get(60, TimeUnit.SECONDS));
      }
      assertThat(jobs.done()).isEqualTo(CALLS);
      assertThat(jobs.mostInside()).as("one inside at a time, until its future completed").isEqualTo(1);
      assertThat(tokens).doesNotHaveDuplicates();
      Await.until("the last release", () -> !Apps.isLockedInRedis(redis.server(), "jobs"));
    });
  }

  @Test
  void monos_subscribeAtOnceWhileTheLockIsHeld_thenRunOneAtATime_eachHoldingUntilItTerminates() {
    Apps.on(redis.server()).withUserConfiguration(JobsApp.class).run(context -> {
      Jobs jobs = context.getBean(Jobs.class);
      jobs.completeOn(elsewhere);
      List<CompletableFuture<Long>> results = new ArrayList<>();
      try (Relock other = Relock.connect(redis.server().uri())) {
        LockLease held = other.lock("jobs").acquire(Duration.ofSeconds(5));
        for (int i = 0; i < CALLS; i++) {
          results.add(jobs.mono().toFuture()); // subscribes on this thread
        }
        Await.until("a waiter is queued for the lock", () -> Apps.queued(redis.server(), "jobs") == 1);
        assertThat(results).noneMatch(CompletableFuture::isDone);
        assertThat(jobs.inside()).isEqualTo(0);
        held.close();
      }
      List<Long> tokens = new ArrayList<>();
      for (CompletableFuture<Long> f : results) {
        tokens.add(f.get(60, TimeUnit.SECONDS));
      }
      assertThat(jobs.done()).isEqualTo(CALLS);
      assertThat(jobs.mostInside()).isEqualTo(1);
      assertThat(tokens).doesNotHaveDuplicates();
    });
  }

  @Test
  void cancellingWhileWaiting_withdrawsTheWaiter_andTheMethodNeverRuns() {
    Apps.on(redis.server()).withUserConfiguration(JobsApp.class).run(context -> {
      Jobs jobs = context.getBean(Jobs.class);
      jobs.completeOn(elsewhere);
      try (Relock other = Relock.connect(redis.server().uri())) {
        try (LockLease held = other.lock("jobs").acquire(Duration.ofSeconds(5))) {
          CompletableFuture<Long> future = jobs.future(null);
          Await.until("the future's waiter is queued", () -> Apps.queued(redis.server(), "jobs") == 1);
          future.cancel(true);
          Await.until("the future's waiter is withdrawn", () -> Apps.queued(redis.server(), "jobs") == 0);

          Disposable subscription = jobs.mono().subscribe();
          Await.until("the Mono's waiter is queued", () -> Apps.queued(redis.server(), "jobs") == 1);
          subscription.dispose();
          Await.until("the Mono's waiter is withdrawn", () -> Apps.queued(redis.server(), "jobs") == 0);
        }
        assertThat(other.lock("jobs").tryAcquire(Duration.ZERO)).as("nobody holds it").isPresent().get()
            .satisfies(LockLease::close);
      }
      assertThat(jobs.inside()).isEqualTo(0);
      assertThat(jobs.done()).isEqualTo(0);
    });
  }
}

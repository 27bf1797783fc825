package io.relock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.LockTimeoutException;
import io.relock.Relock;
import io.relock.RelockListener;
import io.relock.testkit.Await;
import io.relock.testkit.RedisExtension;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * @Locked with @Scheduled: three instances of an application on one Redis, their clocks apart by
 * up to 0.9 s, run each tick of a job once between them; a job longer than its lease keeps the
 * lock by the watchdog while the others skip their ticks.
 */
class ScheduledLockedTest {

  @RegisterExtension static final RedisExtension redis = new RedisExtension();

  /** One run of a job: which instance, which tick (by the real clock). */
  record Run(String instance, long tick) {}

  static final Queue<Run> RUNS = new ConcurrentLinkedQueue<>();
  static final long TICK_MILLIS = 2000;

  /** Every two seconds, held for at least 1.2 s so that a late instance finds the tick taken. */
  static class Report {
    private final String instance;

    Report(String instance) {
      this.instance = instance;
    }

    @Scheduled(cron = "*/2 * * * * *")
    @Locked(value = "'nightly-report'", holdAtLeast = "1200ms")
    public void run() {
      RUNS.add(new Run(instance, Math.round(System.currentTimeMillis() / (double) TICK_MILLIS)));
    }
  }

  /** An instance: its scheduler runs by a clock {@code test.clock-offset} milliseconds off. */
  @Configuration(proxyBeanMethods = false)
  @EnableScheduling
  static class Instance {
    @Bean
    TaskScheduler taskScheduler(@Value("${test.clock-offset}") long offsetMillis) {
      ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
      scheduler.setClock(Clock.offset(Clock.systemDefaultZone(), Duration.ofMillis(offsetMillis)));
      scheduler.setThreadNamePrefix("scheduler-" + offsetMillis + "-");
      return scheduler;
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class ReportApp {
    @Bean
    Report report(@Value("${test.instance}") String instance) {
      return new Report(instance);
    }
  }

  private static ApplicationContextRunner instance(String name, long clockOffsetMillis, Class<?> app) {
    return Apps.on(redis.server()).withUserConfiguration(Instance.class, app)
        .withPropertyValues("test.instance=" + name, "test.clock-offset=" + clockOffsetMillis);
  }

  /** Runs {@code test} with three instances up. */
  private static void threeInstances(Class<?> app, long[] offsets, Consumer<List<AssertableApplicationContext>> test) {
    instance("a", offsets[0], app).run(c1 ->
        instance("b", offsets[1], app).run(c2 ->
            instance("c", offsets[2], app).run(c3 -> test.accept(List.of(c1, c2, c3)))));
  }

  @Test
  void eachTickRunsOnExactlyOneInstance_thoughTheirClocksDiffer() {
    RUNS.clear();
    threeInstances(ReportApp.class, new long[] {0, -600, 300}, contexts -> {
      long firstWatched = Math.round(System.currentTimeMillis() / (double) TICK_MILLIS) + 1;
      Await.until("five ticks", () -> RUNS.stream().filter(r -> r.tick() >= firstWatched)
          .map(Run::tick).distinct().count() >= 5);
      Map<Long, List<String>> byTick = RUNS.stream().filter(r -> r.tick() >= firstWatched)
          .collect(Collectors.groupingBy(Run::tick, TreeMap::new,
              Collectors.mapping(Run::instance, Collectors.toList())));
      List<Long> ticks = List.copyOf(byTick.keySet());
      // The last tick may still be running on a late instance: judge the complete ones.
      List<Long> complete = ticks.subList(0, ticks.size() - 1);
      assertThat(complete).hasSizeGreaterThanOrEqualTo(4);
      assertThat(complete.get(complete.size() - 1) - complete.get(0)).as("no tick left out: %s", byTick)
          .isEqualTo(complete.size() - 1);
      for (long tick : complete) {
        assertThat(byTick.get(tick)).as("runs of tick %s: %s", tick, byTick).hasSize(1);
      }
    });
  }

  /** A job that runs until the test lets it finish, far longer than the client's lease. */
  static class LongJob {
    private final AtomicInteger runs = new AtomicInteger();
    private final CountDownLatch mayFinish = new CountDownLatch(1);
    private final CountDownLatch started = new CountDownLatch(1);
    private volatile boolean validAtTheEnd;

    public int runs() {
      return runs.get();
    }

    public CountDownLatch mayFinish() {
      return mayFinish;
    }

    public CountDownLatch started() {
      return started;
    }

    public boolean validAtTheEnd() {
      return validAtTheEnd;
    }

    @Scheduled(cron = "* * * * * *")
    @Locked("'long-job'")
    public void run() {
      runs.incrementAndGet();
      started.countDown();
      Apps.await(mayFinish, "the test lets the long job finish");
      validAtTheEnd = CurrentLease.get().isValid();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class LongJobApp {
    @Bean
    LongJob longJob() {
      return new LongJob();
    }
  }

  /** Counts one client's renewals and its acquisitions that found the lock taken. */
  static final class Counting implements RelockListener {
    final AtomicInteger renewals = new AtomicInteger();
    final AtomicInteger skipped = new AtomicInteger();

    @Override
    public void renewed(int leases) {
      renewals.addAndGet(leases);
    }

    @Override
    public void acquireFailed(String lockName, Duration waited, Throwable error) {
      if (error instanceof LockTimeoutException) {
        skipped.incrementAndGet();
      }
    }
  }

  @Test
  void aJobLongerThanItsLease_keepsTheLockByRenewal_whileTheOtherInstancesSkipTheirTicks() {
    Apps.on(redis.server()).withUserConfiguration(Instance.class, LongJobApp.class)
        .withPropertyValues("test.clock-offset=0", "relock.default-lease=900ms").run(a ->
            Apps.on(redis.server()).withUserConfiguration(Instance.class, LongJobApp.class)
                .withPropertyValues("test.clock-offset=0", "relock.default-lease=900ms").run(b -> {
                  Counting inA = new Counting();
                  Counting inB = new Counting();
                  a.getBean(Relock.class).addListener(inA);
                  b.getBean(Relock.class).addListener(inB);
                  LongJob jobA = a.getBean(LongJob.class);
                  LongJob jobB = b.getBean(LongJob.class);
                  Await.until("one instance runs the job", () -> jobA.runs() + jobB.runs() == 1);
                  LongJob running = jobA.runs() == 1 ? jobA : jobB;
                  Counting holder = running == jobA ? inA : inB;
                  Counting other = running == jobA ? inB : inA;

                  Await.until("four renewals of the job's lease (past its 900 ms)", () -> holder.renewals.get() >= 4);
                  Await.until("the other instance skipped two ticks", () -> other.skipped.get() >= 2);
                  assertThat(Apps.isLockedInRedis(redis.server(), "long-job")).isTrue();
                  running.mayFinish().countDown();
                  Await.until("the job ends holding a valid lease", running::validAtTheEnd);
                  LongJob idle = running == jobA ? jobB : jobA;
                  idle.mayFinish().countDown();
                }));
  }
}

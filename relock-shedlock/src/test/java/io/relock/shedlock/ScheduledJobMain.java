package io.relock.shedlock;

import io.relock.Relock;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * A child JVM of {@link SchedulerLockProcessesTest}: a Spring application whose one
 * {@code @SchedulerLock} job runs every two seconds, locked through {@link RelockLockProvider}. It
 * prints "ready" once started, then "ran &lt;tick&gt; &lt;fencing token&gt;" each time the job runs
 * here, the tick being the two-second slot of the wall clock the run started in.
 *
 * <p>Arguments: the Redis URI.
 */
public final class ScheduledJobMain {
  private ScheduledJobMain() {}

  public static void main(String[] args) {
    System.setProperty("relock.test.uri", args[0]);
    try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Jobs.class)) {
      System.out.println("ready");
      System.out.flush();
      Thread.sleep(Long.MAX_VALUE);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Configuration
  @EnableScheduling
  @EnableSchedulerLock(defaultLockAtMostFor = "PT10S")
  public static class Jobs {
    @Bean(destroyMethod = "close")
    public Relock relock() {
      return Relock.connect(System.getProperty("relock.test.uri"));
    }

    @Bean
    public LockProvider lockProvider(Relock relock) {
      return new RelockLockProvider(relock);
    }

    @Bean
    public Report report() {
      return new Report();
    }
  }

  /** The job. lockAtLeastFor covers the two processes' schedulers firing a little apart. */
  public static class Report {
    @Scheduled(cron = "*/2 * * * * *")
    @SchedulerLock(name = "report", lockAtLeastFor = "PT1.5S")
    public void run() {
      // The slot the tick belongs to, though the run may start a little late on a busy machine.
      long tick = (System.currentTimeMillis() + 1000) / 2000;
      System.out.println("ran " + tick + " " + RelockLockProvider.currentFencingToken().orElse(-1));
      System.out.flush();
    }
  }
}

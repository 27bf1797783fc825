package io.relock.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.Relock;
import io.relock.shedlock.RelockLockProvider;
import java.util.ArrayList;
import java.util.List;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.Scheduled;

/** The snippets of docs/migrating-from-shedlock.md, run by ShedLock's own Spring integration. */
class ShedLockMigrationTest {

  /** Where the job writes, with the token it wrote under. */
  static final class ReportStore {
    final List<Long> tokens = new ArrayList<>();

    void save(String report, long token) {
      tokens.add(token);
    }
  }

  @Configuration
  @EnableSchedulerLock(defaultLockAtMostFor = "PT1M")
  static class App {
    @Bean(destroyMethod = "close")
    Relock relock() {
      return Relock.connect(DocsRedis.uri());
    }

    // snippet:shedlock-bean
    @Bean
    LockProvider lockProvider(Relock relock) {
      return new RelockLockProvider(relock);           // was: new RedisLockProvider(connectionFactory, ENV)
    }
    // end:shedlock-bean

    @Bean
    ReportStore store() {
      return new ReportStore();
    }

    @Bean
    NightlyReport nightlyReport(ReportStore store) {
      return new NightlyReport(store);
    }
  }

  static class NightlyReport {
    private final ReportStore store;
    private final String report = "report";

    NightlyReport(ReportStore store) {
      this.store = store;
    }

    // snippet:shedlock-fenced-job
    @Scheduled(cron = "0 0 2 * * *")
    @SchedulerLock(name = "nightly-report", lockAtMostFor = "PT10M", lockAtLeastFor = "PT1M")
    public void run() {
      long token = RelockLockProvider.currentFencingToken().orElseThrow();
      store.save(report, token);                       // UPDATE ... WHERE token <= ?
    }
    // end:shedlock-fenced-job
  }

  @Test
  void theJob_runsUnderRelocksLock_withItsToken_andTheLockOutlivesItForLockAtLeastFor() {
    try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(App.class);
        Relock other = Relock.connect(DocsRedis.uri())) {
      context.getBean(NightlyReport.class).run();
      ReportStore store = context.getBean(ReportStore.class);
      assertThat(store.tokens).hasSize(1);
      assertThat(store.tokens.get(0)).isPositive();
      assertThat(RelockLockProvider.currentFencingToken()).as("outside the job").isEmpty();
      assertThat(other.list("*shedlock*nightly-report*")).as("kept for lockAtLeastFor").hasSize(1);
    }
  }
}

package com.example.reports;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.LockLease;
import io.relock.Relock;
import io.relock.shedlock.RelockLockProvider;
import io.relock.testkit.RedisExtension;
import java.time.Duration;
import net.javacrumbs.shedlock.core.LockProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The application against a real redis-server that relock's test kit starts on a free port. */
@SpringBootTest
class NightlyReportTest {

  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  @DynamicPropertySource
  static void redisUrl(DynamicPropertyRegistry registry) {
    registry.add("spring.data.redis.url", () -> redis.server().uri());
  }

  @Autowired NightlyReport job;
  @Autowired ReportStore store;
  @Autowired LockProvider lockProvider;

  @Test
  void theJob_runsUnderARelockLock_thatOutlivesTheRunForLockAtLeastFor() {
    assertThat(lockProvider).isInstanceOf(RelockLockProvider.class);
    redis.server().execute("FLUSHALL");
    int before = store.writes();
    job.run();
    assertThat(store.writes()).isEqualTo(before + 1);
    assertThat(store.report()).isEqualTo("report of the night");
    // lockAtLeastFor: the lock stays for a minute after the run, so no other instance runs the tick again.
    assertThat(redis.server().execute("EXISTS", "relock:{shedlock:nightly-report}")).isEqualTo(1L);
    job.run();
    assertThat(store.writes()).as("skipped: the lock is still held").isEqualTo(before + 1);
  }

  @Test
  void whileAnotherInstanceHoldsTheLock_theJobIsSkipped() {
    redis.server().execute("FLUSHALL");
    int before = store.writes();
    try (Relock otherInstance = Relock.connect(redis.server().uri());
        LockLease held = otherInstance.lock("shedlock:nightly-report").acquire(Duration.ZERO)) {
      job.run();
    }
    assertThat(store.writes()).isEqualTo(before);
  }
}

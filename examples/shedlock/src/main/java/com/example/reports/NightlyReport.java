package com.example.reports;

import io.relock.shedlock.RelockLockProvider;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A job that every instance schedules and one of them runs per tick. It writes with the fencing
 * token of the lock it runs under, so that a run that lost its lock (a long pause past
 * lockAtMostFor) cannot overwrite a newer run's report.
 */
@Component
public class NightlyReport {
  private final ReportStore store;

  public NightlyReport(ReportStore store) {
    this.store = store;
  }

  @Scheduled(cron = "${reports.nightly.cron:0 0 2 * * *}")
  @SchedulerLock(name = "nightly-report", lockAtMostFor = "PT10M", lockAtLeastFor = "PT1M")
  public void run() {
    long token = RelockLockProvider.currentFencingToken().orElseThrow();
    store.save("report of the night", token);
  }
}

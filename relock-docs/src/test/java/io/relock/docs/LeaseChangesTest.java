package io.relock.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.LockLease;
import io.relock.Relock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The snippet of docs/lease-changes.md. */
class LeaseChangesTest {
  private final List<Long> exported = new ArrayList<>();
  private boolean reportRan;

  @Test
  void extend_keepsTheExportsLock_andCloseAfter_keepsTheReportsLockAfterItsWork() {
    try (Relock relock = Relock.connect(DocsRedis.uri()); Relock other = Relock.connect(DocsRedis.uri())) {
      // snippet:lease-changes
      try (LockLease lease = relock.lock("export").acquire(Duration.ZERO, Duration.ofMinutes(2))) {
        exportFirstHalf(lease.fencingToken());
        lease.extend(Duration.ofMinutes(2));        // two more minutes from now
        exportSecondHalf(lease.fencingToken());
      }

      LockLease lease = relock.lock("report").acquire(Duration.ZERO);
      runReport();
      lease.closeAfter(Duration.ofMinutes(1));      // nobody else runs it within the minute
      // end:lease-changes
      assertThat(exported).hasSize(2);
      assertThat(reportRan).isTrue();
      assertThat(lease.isValid()).as("closed to the client").isFalse();
      assertThat(other.lock("report").tryLock()).as("still held in Redis for the minute").isFalse();
      assertThat(other.inspect("report").holder().orElseThrow().remainingLease())
          .isPositive().isLessThanOrEqualTo(Duration.ofMinutes(1));
      assertThat(other.lock("export").tryLock()).as("the export's lock, released").isTrue();
      other.lock("export").unlock();
    }
  }

  private void exportFirstHalf(long token) {
    exported.add(token);
  }

  private void exportSecondHalf(long token) {
    exported.add(token);
  }

  private void runReport() {
    reportRan = true;
  }
}

package io.relock.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.relock.LockInfo;
import io.relock.LockLease;
import io.relock.Relock;
import io.relock.RelockListener;
import io.relock.micrometer.RelockMetrics;
import io.relock.micrometer.RelockObservations;
import io.relock.testkit.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The snippets of docs/operations.md. */
class OperationsTest {

  private static final Logger log = LoggerFactory.getLogger(OperationsTest.class);

  private final Relock relock = Relock.connect(DocsRedis.uri());
  private final List<String> printed = new ArrayList<>();

  @AfterEach
  void close() {
    relock.close();
  }

  private void print(String line) {
    printed.add(line);
  }

  @Test
  void inspectAndList() {
    try (LockLease held = relock.lock("orders:17").acquire(Duration.ZERO)) {
      // snippet:inspect
      LockInfo info = relock.inspect("orders:17");              // one Redis call; changes nothing
      info.holder().ifPresent(h -> print(h.clientId() + " holds it with token " + h.fencingToken()
          + ", " + h.remainingLease().toMillis() + " ms of lease left, " + info.waiters().size() + " waiting"));

      for (LockInfo lock : relock.list("orders:*")) {           // SCAN pages, never KEYS
        print(lock.name() + " " + lock.holder().map(LockInfo.Holder::ownerId).orElse("-"));
      }
      // end:inspect
      assertThat(printed).hasSize(2);
      assertThat(printed.get(0)).startsWith(relock.clientId() + " holds it with token " + held.fencingToken());
    }
  }

  @Test
  void metricsAndObservations_withoutSpring() {
    MeterRegistry registry = new SimpleMeterRegistry();
    ObservationRegistry observationRegistry = ObservationRegistry.create();
    // snippet:metrics
    RelockMetrics metrics = RelockMetrics.builder(relock)
        .lockNameTag("(order|invoice):.*")           // optional: a bounded `lock` tag (its first group)
        .build();
    metrics.bindTo(registry);                        // metrics.close() removes the meters again

    RelockObservations observations = RelockObservations.install(relock, observationRegistry);
    // end:metrics
    try (metrics; observations) {
      relock.lock("order:1").acquire(Duration.ZERO).close();
      assertThat(registry.get(RelockMetrics.ACQUIRE).tag("lock", "order").timer().count()).isEqualTo(1);
    }
  }

  @Test
  void aListener() {
    // snippet:listener
    relock.addListener(new RelockListener() {
      @Override
      public void leaseLost(String lockName, String reason) {           // on a relock thread: return quickly
        log.warn("lease of {} lost: {}", lockName, reason);
      }

      @Override
      public void renewalFailed(int leases, Throwable error) {
        log.warn("{} leases not renewed this time: {}", leases, error.toString());
      }
    });
    // end:listener
    LockLease lease = relock.lock("listened").acquire(Duration.ZERO);
    relock.lock("listened").forceUnlock();
    Await.until("the holder hears of the forced unlock", () -> !lease.isValid());
  }
}

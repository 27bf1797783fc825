package io.relock.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.relock.DistributedLock;
import io.relock.LockLease;
import io.relock.LockTimeoutException;
import io.relock.Relock;
import io.relock.RelockException;
import io.relock.testkit.Await;
import io.relock.testkit.RedisExtension;
import io.relock.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Every meter of {@link RelockMetrics}, each moved by the event it counts, against a real Redis. */
@SuppressWarnings("try") // leases held by try-with-resources for their side effect
class RelockMetricsTest {

  @RegisterExtension static final RedisExtension redis = new RedisExtension();

  private final List<AutoCloseable> closeLast = new ArrayList<>();
  private final MeterRegistry registry = new SimpleMeterRegistry();

  @AfterEach
  void close() throws Exception {
    for (int i = closeLast.size() - 1; i >= 0; i--) {
      closeLast.get(i).close();
    }
  }

  private Relock client(Relock.Builder builder) {
    Relock relock = builder.build();
    closeLast.add(relock);
    return relock;
  }

  private Relock client() {
    return client(Relock.builder().uri(redis.server().uri()));
  }

  private RelockMetrics bind(RelockMetrics metrics) {
    metrics.bindTo(registry);
    closeLast.add(metrics);
    return metrics;
  }

  private long acquisitions(String outcome) {
    Timer t = registry.find(RelockMetrics.ACQUIRE).tag("outcome", outcome).timer();
    return t == null ? 0 : t.count();
  }

  private double gauge(String name) {
    return registry.get(name).gauge().value();
  }

  private double counter(String name) {
    Counter c = registry.find(name).counter();
    return c == null ? 0 : c.count();
  }

  @Test
  void acquisition_isTimedAsAcquired_countedAsAHold_andItsHoldTimedAtRelease() {
    Relock relock = client();
    bind(RelockMetrics.of(relock));

    try (LockLease lease = relock.lock("metrics-acquired").acquire(Duration.ofSeconds(5))) {
      assertThat(acquisitions("acquired")).isEqualTo(1);
      assertThat(gauge(RelockMetrics.HOLDS)).isEqualTo(1.0);
      assertThat(registry.get(RelockMetrics.HELD).timer().count()).isZero();
    }

    assertThat(gauge(RelockMetrics.HOLDS)).isZero();
    assertThat(registry.get(RelockMetrics.HELD).timer().count()).isEqualTo(1);
    assertThat(acquisitions("timeout")).isZero();
    assertThat(acquisitions("error")).isZero();
  }

  @Test
  void acquisitionWhoseWaitRunsOut_isTimedAsTimeout() {
    Relock holder = client();
    Relock relock = client();
    bind(RelockMetrics.of(relock));

    try (LockLease held = holder.lock("metrics-timeout").acquire(Duration.ofSeconds(5))) {
      assertThatThrownBy(() -> relock.lock("metrics-timeout").acquire(Duration.ofMillis(50)))
          .isInstanceOf(LockTimeoutException.class);
    }

    assertThat(acquisitions("timeout")).isEqualTo(1);
    assertThat(acquisitions("acquired")).isZero();
  }

  @Test
  void acquisitionWhileRedisIsDown_isTimedAsError_andItsRedisCallsAsErrors() {
    try (RedisServer own = RedisServer.start()) {
      Relock relock = client(Relock.builder().uri(own.uri()).commandTimeout(Duration.ofMillis(500)));
      bind(RelockMetrics.of(relock));
      own.stop();

      assertThatThrownBy(() -> relock.lock("metrics-error").acquire(Duration.ofMillis(200)))
          .isInstanceOf(RelockException.class)
          .isNotInstanceOf(LockTimeoutException.class);

      assertThat(acquisitions("error")).isEqualTo(1);
      assertThat(registry.find(RelockMetrics.REDIS_CALLS).tags("script", "acquire.lua", "outcome", "error")
          .timer().count()).isPositive();
    }
  }

  @Test
  void waiters_countAnAcquisitionWaitingForTheLock() {
    Relock holder = client();
    Relock relock = client();
    bind(RelockMetrics.of(relock));
    CompletableFuture<LockLease> waiting;
    try (LockLease held = holder.lock("metrics-waiters").acquire(Duration.ofSeconds(5))) {
      assertThat(gauge(RelockMetrics.WAITERS)).isZero();
      waiting = relock.lock("metrics-waiters").acquireAsync(Duration.ofSeconds(30));
      Await.until("the waiter is counted", () -> gauge(RelockMetrics.WAITERS) == 1.0);
      assertThat(waiting).isNotDone();
    }
    waiting.join().close();
    assertThat(gauge(RelockMetrics.WAITERS)).isZero();
  }

  @Test
  void renewals_countLeasesTheWatchdogRenewed() {
    Relock relock = client(Relock.builder().uri(redis.server().uri()).defaultLease(Duration.ofMillis(300)));
    bind(RelockMetrics.of(relock));

    try (LockLease lease = relock.lock("metrics-renewals").acquire(Duration.ofSeconds(5))) {
      Await.until("two renewals", () -> counter(RelockMetrics.RENEWALS) >= 2);
      assertThat(registry.find(RelockMetrics.REDIS_CALLS).tags("script", "renew.lua", "outcome", "success")
          .timer().count()).isPositive();
      assertThat(lease.isValid()).isTrue();
    }
    assertThat(counter(RelockMetrics.RENEWAL_FAILURES)).isZero();
  }

  @Test
  void leaseLost_isCounted_whenAnotherClientTakesTheLockAway() {
    Relock relock = client(Relock.builder().uri(redis.server().uri()).defaultLease(Duration.ofMillis(600)));
    Relock operator = client();
    bind(RelockMetrics.of(relock));
    LockLease lease = relock.lock("metrics-lost").acquire(Duration.ofSeconds(5));
    assertThat(counter(RelockMetrics.LEASES_LOST)).isZero();

    assertThat(operator.lock("metrics-lost").forceUnlock()).isTrue();

    Await.until("the next renewal finds the lease lost", () -> counter(RelockMetrics.LEASES_LOST) == 1.0);
    assertThat(lease.isValid()).isFalse();
    assertThatThrownBy(lease::close).isInstanceOf(io.relock.LockLostException.class);
    assertThat(counter(RelockMetrics.LEASES_LOST)).as("once per lease").isEqualTo(1.0);
  }

  @Test
  void renewalFailures_andLeasesAtRisk_whileRedisDoesNotAnswer() {
    try (RedisServer own = RedisServer.start()) {
      Relock relock = client(Relock.builder().uri(own.uri())
          .defaultLease(Duration.ofSeconds(6)).commandTimeout(Duration.ofMillis(300)));
      bind(RelockMetrics.of(relock));
      LockLease lease = relock.lock("metrics-at-risk").acquire(Duration.ofSeconds(5));
      try {
        assertThat(gauge(RelockMetrics.LEASES_AT_RISK)).isZero();
        own.pause();
        Await.until("a renewal fails", () -> counter(RelockMetrics.RENEWAL_FAILURES) >= 1);
        Await.until("the lease counts as at risk", () -> gauge(RelockMetrics.LEASES_AT_RISK) == 1.0);
        assertThat(registry.find(RelockMetrics.REDIS_CALLS).tags("script", "renew.lua", "outcome", "error")
            .timer().count()).isPositive();
      } finally {
        own.resume();
      }
      Await.until("a renewal succeeds again", () -> gauge(RelockMetrics.LEASES_AT_RISK) == 0.0);
      lease.close();
    }
  }

  @Test
  void noMeterCarriesALockTag_unlessAPatternIsGiven() {
    Relock relock = client();
    bind(RelockMetrics.builder(relock).tags(Tags.of("client", "plain")).build());

    relock.lock("order:1").acquire(Duration.ofSeconds(5)).close();

    assertThat(registry.getMeters()).isNotEmpty().allSatisfy(m -> {
      assertThat(m.getId().getTag("lock")).as(m.getId().toString()).isNull();
      assertThat(m.getId().getTag("client")).as(m.getId().toString()).isEqualTo("plain");
    });
  }

  @Test
  void lockNameTag_isThePatternsFirstGroup_orOtherForNamesItDoesNotMatch() {
    Relock relock = client();
    Relock operator = client(Relock.builder().uri(redis.server().uri()));
    bind(RelockMetrics.builder(relock).lockNameTag("(order|invoice):.*").build());

    relock.lock("order:1").acquire(Duration.ofSeconds(5)).close();
    relock.lock("order:2").acquire(Duration.ofSeconds(5)).close();
    relock.lock("invoice:7").acquire(Duration.ofSeconds(5)).close();
    relock.lock("report").acquire(Duration.ofSeconds(5)).close();
    try (LockLease held = operator.lock("order:3").acquire(Duration.ofSeconds(5))) {
      assertThatThrownBy(() -> relock.lock("order:3").acquire(Duration.ZERO))
          .isInstanceOf(LockTimeoutException.class);
    }

    assertThat(registry.get(RelockMetrics.ACQUIRE).tags("outcome", "acquired", "lock", "order").timer().count())
        .isEqualTo(2);
    assertThat(registry.get(RelockMetrics.ACQUIRE).tags("outcome", "acquired", "lock", "invoice").timer().count())
        .isEqualTo(1);
    assertThat(registry.get(RelockMetrics.ACQUIRE).tags("outcome", "acquired", "lock", "other").timer().count())
        .isEqualTo(1);
    assertThat(registry.get(RelockMetrics.ACQUIRE).tags("outcome", "timeout", "lock", "order").timer().count())
        .isEqualTo(1);
    assertThat(registry.get(RelockMetrics.HELD).tags("lock", "order").timer().count()).isEqualTo(2);
    assertThat(registry.find(RelockMetrics.ACQUIRE).meters()).extracting(m -> m.getId().getTag("lock"))
        .containsOnly("order", "invoice", "other");
  }

  @Test
  void lockNameTag_withoutAGroup_isTheWholeName() {
    Relock relock = client();
    bind(RelockMetrics.builder(relock).lockNameTag("nightly-.*").build());

    relock.lock("nightly-report").acquire(Duration.ofSeconds(5)).close();

    assertThat(registry.get(RelockMetrics.ACQUIRE).tags("lock", "nightly-report").timer().count()).isEqualTo(1);
  }

  @Test
  void lockNameTag_notARegularExpression_isRejectedNamingIt() {
    Relock relock = client();
    assertThatThrownBy(() -> RelockMetrics.builder(relock).lockNameTag("(order"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'(order'");
  }

  @Test
  void close_stopsListening_andRemovesTheMeters() {
    Relock relock = client();
    RelockMetrics metrics = bind(RelockMetrics.of(relock));
    DistributedLock lock = relock.lock("metrics-close");
    lock.acquire(Duration.ofSeconds(5)).close();
    Timer before = registry.get(RelockMetrics.ACQUIRE).tag("outcome", "acquired").timer();
    assertThat(before.count()).isEqualTo(1);

    metrics.close();
    lock.acquire(Duration.ofSeconds(5)).close();

    assertThat(before.count()).as("no longer listening").isEqualTo(1);
    assertThat(registry.getMeters()).extracting(Meter::getId).isEmpty();
  }
}

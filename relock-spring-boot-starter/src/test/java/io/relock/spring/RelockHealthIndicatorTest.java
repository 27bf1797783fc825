package io.relock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.LockLease;
import io.relock.LockLostException;
import io.relock.Relock;
import io.relock.testkit.Await;
import io.relock.testkit.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The "relock" health indicator: up while Redis answers and renewals succeed, down with details otherwise. */
class RelockHealthIndicatorTest {

  private static ApplicationContextRunner runner(RedisServer server) {
    return Apps.on(server).withConfiguration(AutoConfigurations.of(RelockHealthAutoConfiguration.class))
        .withPropertyValues("relock.command-timeout=300ms", "relock.default-lease=6s");
  }

  private static Health health(org.springframework.context.ApplicationContext context) {
    return context.getBean("relockHealthIndicator", HealthIndicator.class).health();
  }

  @Test
  void up_whileRedisAnswers_downWithTheErrorWhileItIsStopped_upAgainOnceItIsBack() {
    try (RedisServer server = RedisServer.builder().persistence(true).start()) {
      runner(server).run(context -> {
        Health up = health(context);
        assertThat(up.getStatus()).isEqualTo(Status.UP);
        assertThat(up.getDetails()).containsKeys("roundTrip").containsEntry("holds", 0).containsEntry("acquiring", 0)
            .containsEntry("leasesAtRisk", 0);

        server.stop();
        Health down = health(context);
        assertThat(down.getStatus()).isEqualTo(Status.DOWN);
        assertThat(down.getDetails()).containsKey("error").doesNotContainKey("roundTrip");

        server.restart();
        Await.until("up again once Redis is back", () -> health(context).getStatus().equals(Status.UP));
      });
    }
  }

  @Test
  void down_whileALeaseCouldNotBeRenewed_withTheCountInTheDetails() {
    try (RedisServer server = RedisServer.start()) {
      runner(server).run(context -> {
        LockLease lease = context.getBean(Relock.class).lock("health-at-risk").acquire(Duration.ofSeconds(5));
        assertThat(health(context).getDetails()).containsEntry("holds", 1);
        server.pause();
        try {
          Await.until("a renewal fails", () -> context.getBean(Relock.class).stats().leasesAtRisk() == 1);
          Health down = health(context);
          assertThat(down.getStatus()).isEqualTo(Status.DOWN);
          assertThat(down.getDetails()).containsEntry("leasesAtRisk", 1).containsKey("reason");
        } finally {
          server.resume();
        }
        // Renewed in time, or (on a slow machine) lost: either way no lease is at risk any more.
        Await.until("up again", () -> health(context).getStatus().equals(Status.UP));
        try {
          lease.close();
        } catch (LockLostException lostMeanwhile) {
          assertThat(lease.isValid()).isFalse();
        }
      });
    }
  }

  @Test
  void absent_whenTurnedOff_orWithoutActuator() {
    try (RedisServer server = RedisServer.start()) {
      runner(server).withPropertyValues("management.health.relock.enabled=false")
          .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RelockHealthIndicator.class));
      runner(server).withClassLoader(new FilteredClassLoader(HealthIndicator.class))
          .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("relockHealthIndicator"));
    }
  }
}

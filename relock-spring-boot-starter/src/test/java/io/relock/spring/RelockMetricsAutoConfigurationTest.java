package io.relock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.relock.LockLease;
import io.relock.LockTimeoutException;
import io.relock.Relock;
import io.relock.micrometer.RelockMetrics;
import io.relock.testkit.RedisExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The relock.* meters in the application's Micrometer registry, moved by @Locked methods. */
@SuppressWarnings("try") // leases held by try-with-resources for their side effect
class RelockMetricsAutoConfigurationTest {

  @RegisterExtension static final RedisExtension redis = new RedisExtension();

  private final ApplicationContextRunner runner = Apps.on(redis.server())
      .withConfiguration(AutoConfigurations.of(RelockMetricsAutoConfiguration.class, MetricsAutoConfiguration.class,
          SimpleMetricsExportAutoConfiguration.class))
      .withUserConfiguration(OrdersApp.class);

  /** Public: with a filtered class loader, the proxy class lives in another loader than this one. */
  public static class Orders {
    @Locked(value = "'order:' + #id", waitTime = "50ms")
    public long pay(long id) {
      return CurrentLease.get().fencingToken();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class OrdersApp {
    @Bean
    Orders orders() {
      return new Orders();
    }
  }

  private static long count(MeterRegistry registry, String name, String... tags) {
    Timer t = registry.find(name).tags(tags).timer();
    return t == null ? 0 : t.count();
  }

  @Test
  void lockedCalls_moveTheMetersOfTheApplicationsRegistry_untaggedByLockName() {
    runner.run(context -> {
      MeterRegistry registry = context.getBean(MeterRegistry.class);
      Orders orders = context.getBean(Orders.class);
      orders.pay(1);
      try (Relock other = Relock.connect(redis.server().uri());
          LockLease held = other.lock("order:2").acquire(Duration.ofSeconds(5))) {
        assertThatThrownBy(() -> orders.pay(2)).isInstanceOf(LockTimeoutException.class);
      }

      assertThat(count(registry, RelockMetrics.ACQUIRE, "outcome", "acquired")).isEqualTo(1);
      assertThat(count(registry, RelockMetrics.ACQUIRE, "outcome", "timeout")).isEqualTo(1);
      assertThat(count(registry, RelockMetrics.HELD)).isEqualTo(1);
      assertThat(count(registry, RelockMetrics.REDIS_CALLS, "script", "acquire.lua", "outcome", "success")).isPositive();
      assertThat(registry.get(RelockMetrics.HOLDS).gauge().value()).isZero();
      assertThat(registry.find(RelockMetrics.ACQUIRE).meters()).allSatisfy(m -> assertThat(m.getId().getTag("lock"))
          .isNull());
    });
  }

  @Test
  void aLockNamePattern_tagsTheMetersByLock() {
    runner.withPropertyValues("relock.metrics.lock-name-pattern=(order):.*").run(context -> {
      context.getBean(Orders.class).pay(3);
      MeterRegistry registry = context.getBean(MeterRegistry.class);
      assertThat(count(registry, RelockMetrics.ACQUIRE, "outcome", "acquired", "lock", "order")).isEqualTo(1);
    });
  }

  @Test
  void aLockNamePatternThatIsNoRegularExpression_failsStartupNamingTheProperty() {
    runner.withPropertyValues("relock.metrics.lock-name-pattern=(order").run(context -> {
      InvalidConfigurationPropertyValueException invalid = RelockPropertiesErrorsTest.find(
          context.getStartupFailure(), InvalidConfigurationPropertyValueException.class);
      assertThat(invalid.getName()).isEqualTo("relock.metrics.lock-name-pattern");
    });
  }

  @Test
  void absent_withoutMicrometer() {
    runner.withClassLoader(new FilteredClassLoader(MeterRegistry.class))
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RelockMetrics.class));
  }

  @Test
  void backsOff_forTheApplicationsOwnRelockMetrics() {
    runner.withUserConfiguration(OwnMetrics.class)
        .run(context -> {
          assertThat(context).hasNotFailed().hasSingleBean(RelockMetrics.class);
          assertThat(context).hasBean("ownMetrics").doesNotHaveBean("relockMetrics");
        });
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnMetrics {
    @Bean
    RelockMetrics ownMetrics(Relock relock) {
      return RelockMetrics.builder(relock).tags(io.micrometer.core.instrument.Tags.of("client", "own")).build();
    }
  }
}

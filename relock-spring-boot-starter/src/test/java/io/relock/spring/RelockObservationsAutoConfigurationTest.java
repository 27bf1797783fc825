package io.relock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.relock.micrometer.RelockObservations;
import io.relock.testkit.RedisExtension;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The starter observes @Locked waits and holds in the application's ObservationRegistry, unless turned off. */
@SuppressWarnings("try") // scopes opened for their side effect only
class RelockObservationsAutoConfigurationTest {

  @RegisterExtension static final RedisExtension redis = new RedisExtension();

  private final ApplicationContextRunner runner = Apps.on(redis.server())
      .withConfiguration(AutoConfigurations.of(RelockObservationsAutoConfiguration.class,
          ObservationAutoConfiguration.class))
      .withUserConfiguration(OrdersApp.class);

  /** Public: the proxy class must see it. */
  public static class Orders {
    @Locked("'order:' + #id")
    public long pay(long id) {
      return CurrentLease.get().fencingToken();
    }
  }

  /** Records the name of every observation stopped. */
  static final class Stopped implements ObservationHandler<Observation.Context> {
    final List<Observation.Context> contexts = new CopyOnWriteArrayList<>();

    @Override
    public void onStop(Observation.Context context) {
      contexts.add(context);
    }

    @Override
    public boolean supportsContext(Observation.Context context) {
      return true;
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class OrdersApp {
    @Bean
    Orders orders() {
      return new Orders();
    }

    @Bean
    Stopped stopped() {
      return new Stopped();
    }
  }

  @Test
  void aLockedCall_isAWaitAndAHold_nestedInTheCallersObservation() {
    runner.run(context -> {
      assertThat(context).hasSingleBean(RelockObservations.class);
      ObservationRegistry registry = context.getBean(ObservationRegistry.class);
      Observation request = Observation.start("request", registry);
      try (Observation.Scope ignored = request.openScope()) {
        context.getBean(Orders.class).pay(1);
      }
      request.stop();
      List<Observation.Context> stopped = context.getBean(Stopped.class).contexts;
      assertThat(stopped).extracting(Observation.Context::getName)
          .containsExactly(RelockObservations.WAIT, RelockObservations.HOLD, "request");
      assertThat(stopped.subList(0, 2)).allSatisfy(c -> assertThat(c.getParentObservation()).isSameAs(request));
      assertThat(stopped.get(0).getHighCardinalityKeyValue(RelockObservations.LOCK_NAME).getValue()).isEqualTo("order:1");
    });
  }

  @Test
  void observationsTurnedOff_observeNothing() {
    runner.withPropertyValues("relock.observations.enabled=false").run(context -> {
      assertThat(context).doesNotHaveBean(RelockObservations.class);
      context.getBean(Orders.class).pay(2);
      assertThat(context.getBean(Stopped.class).contexts).isEmpty();
    });
  }

  @Test
  void withoutAnObservationRegistry_thereIsNothingToObserveIn() {
    Apps.on(redis.server()).withConfiguration(AutoConfigurations.of(RelockObservationsAutoConfiguration.class))
        .withUserConfiguration(OrdersApp.class)
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RelockObservations.class));
  }
}

package io.relock.spring;

import io.micrometer.observation.ObservationRegistry;
import io.relock.Relock;
import io.relock.micrometer.RelockObservations;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer Observations of the application's lock waits and holds ({@link RelockObservations}),
 * when the application has an {@link ObservationRegistry} (Spring Boot's Actuator makes one; with
 * micrometer-tracing, each wait and hold is then a span in the request that waited). {@code
 * relock.observations.enabled=false} turns them off.
 */
@AutoConfiguration(after = RelockAutoConfiguration.class,
    afterName = "org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration")
@ConditionalOnClass({ObservationRegistry.class, RelockObservations.class})
@ConditionalOnBean(ObservationRegistry.class)
@ConditionalOnSingleCandidate(Relock.class)
@ConditionalOnProperty(prefix = "relock.observations", name = "enabled", havingValue = "true", matchIfMissing = true)
public class RelockObservationsAutoConfiguration {

  /** Created by Spring Boot when the auto-configuration applies. */
  public RelockObservationsAutoConfiguration() {}

  /**
   * Observes the application's client in the application's registry; stops when the application
   * does. Backs off when the application defines a {@link RelockObservations} bean of its own.
   *
   * @param relock the application's only (or primary) {@link Relock} client
   * @param registry the application's observation registry
   * @return the installed observations
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public RelockObservations relockObservations(Relock relock, ObservationRegistry registry) {
    return RelockObservations.install(relock, registry);
  }
}

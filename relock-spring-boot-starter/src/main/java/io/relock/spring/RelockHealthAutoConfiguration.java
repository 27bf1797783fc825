package io.relock.spring;

import io.relock.Relock;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;

/**
 * The Actuator health indicator {@code relock} ({@link RelockHealthIndicator}) when Spring Boot
 * Actuator is present; {@code management.health.relock.enabled=false} turns it off.
 */
@AutoConfiguration(after = RelockAutoConfiguration.class)
@ConditionalOnClass(name = {"org.springframework.boot.actuate.health.HealthIndicator",
    "org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator"})
@ConditionalOnSingleCandidate(Relock.class)
public class RelockHealthAutoConfiguration {

  /** Created by Spring Boot when the auto-configuration applies. */
  public RelockHealthAutoConfiguration() {}


  /**
   * The {@code relock} health indicator. Backs off when the application defines a bean named
   * {@code relockHealthIndicator}.
   *
   * @param relock the application's only (or primary) {@link Relock} client
   * @return the indicator of {@code relock}
   */
  @Bean
  @ConditionalOnMissingBean(name = "relockHealthIndicator")
  @ConditionalOnEnabledHealthIndicator("relock")
  public RelockHealthIndicator relockHealthIndicator(Relock relock) {
    return new RelockHealthIndicator(relock);
  }
}

package io.relock.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.relock.Relock;
import io.relock.micrometer.RelockMetrics;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;

/**
 * The {@code relock.*} meters ({@link RelockMetrics}) of the application's {@link Relock}, when
 * Micrometer is on the class path: Spring Boot binds the bean to its registries. {@code
 * relock.metrics.lock-name-pattern} opts in to a {@code lock} tag.
 */
@AutoConfiguration(after = RelockAutoConfiguration.class)
@ConditionalOnClass({MeterRegistry.class, RelockMetrics.class})
@ConditionalOnSingleCandidate(Relock.class)
@EnableConfigurationProperties(RelockProperties.class)
public class RelockMetricsAutoConfiguration {

  /** Created by Spring Boot when the auto-configuration applies. */
  public RelockMetricsAutoConfiguration() {}


  /**
   * The meters of the application's client; closed when the application stops. Backs off when
   * the application defines a {@link RelockMetrics} bean of its own.
   *
   * @param relock the application's only (or primary) {@link Relock} client
   * @param properties the {@code relock.*} settings, for {@code relock.metrics.lock-name-pattern}
   * @return the meters, not yet bound to a registry (Spring Boot binds them)
   * @throws InvalidConfigurationPropertyValueException if {@code relock.metrics.lock-name-pattern}
   *     is not a valid pattern
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public RelockMetrics relockMetrics(Relock relock, RelockProperties properties) {
    String pattern = properties.getMetrics().getLockNamePattern();
    RelockMetrics.Builder builder = RelockMetrics.builder(relock);
    if (pattern != null && !pattern.isEmpty()) {
      try {
        builder.lockNameTag(pattern);
      } catch (IllegalArgumentException e) {
        throw new InvalidConfigurationPropertyValueException("relock.metrics.lock-name-pattern", pattern,
            e.getMessage());
      }
    }
    return builder.build();
  }
}

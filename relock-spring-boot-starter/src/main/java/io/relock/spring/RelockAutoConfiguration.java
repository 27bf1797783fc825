package io.relock.spring;

import io.relock.Relock;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.data.redis.RedisProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * A {@link Relock} client connected to the application's Redis ({@code spring.data.redis.*}: url,
 * host/port/username/password/database/ssl, sentinel, cluster; or {@code relock.redlock.nodes}),
 * set up by {@code relock.*}; closed when the application stops. Backs off when the application
 * defines a {@link Relock} bean of its own, and when {@code relock.enabled=false}.
 *
 * <p>The client connects when the application starts: a setting that cannot work fails startup
 * naming the property, and an unreachable Redis fails it naming the address and the properties it
 * came from.
 */
@AutoConfiguration
@ConditionalOnClass(Relock.class)
@ConditionalOnProperty(prefix = "relock", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties({RelockProperties.class, RedisProperties.class})
public class RelockAutoConfiguration {

  /** Created by Spring Boot when the auto-configuration applies. */
  public RelockAutoConfiguration() {}


  /**
   * The client, connected before this returns; closed when the application stops.
   *
   * @param relock the {@code relock.*} settings
   * @param redis the {@code spring.data.redis.*} settings, for where to connect (unused when
   *     {@code relock.redlock.nodes} is set)
   * @return the connected client
   * @throws org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException
   *     for a setting that cannot work, naming the property
   * @throws io.relock.RelockException if Redis cannot be reached; the message names the address and
   *     the properties it came from
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public Relock relock(RelockProperties relock, RedisProperties redis) {
    return RelockConnector.connect(relock, redis);
  }
}

package io.relock.spring;

import io.relock.Relock;
import io.relock.shedlock.RelockLockProvider;
import net.javacrumbs.shedlock.core.LockProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;

/**
 * ShedLock's {@link LockProvider} on the application's {@link Relock}, when ShedLock's Spring
 * module ({@code shedlock-spring}) and {@code relock-shedlock} are on the class path and the
 * application defines no {@code LockProvider} of its own: {@code @SchedulerLock} jobs then lock
 * through relock with nothing more than {@code @EnableSchedulerLock}.
 */
@AutoConfiguration(after = RelockAutoConfiguration.class)
@ConditionalOnClass(name = {"net.javacrumbs.shedlock.spring.annotation.SchedulerLock",
    "io.relock.shedlock.RelockLockProvider"})
@ConditionalOnSingleCandidate(Relock.class)
public class RelockShedLockAutoConfiguration {

  /** Created by Spring Boot when the auto-configuration applies. */
  public RelockShedLockAutoConfiguration() {}

  /**
   * The provider, naming each ShedLock lock {@code shedlock:<name>} in relock.
   *
   * @param relock the application's only (or primary) {@link Relock} client
   * @return a {@link RelockLockProvider} on it
   */
  @Bean
  @ConditionalOnMissingBean(LockProvider.class)
  public RelockLockProvider relockLockProvider(Relock relock) {
    return new RelockLockProvider(relock);
  }
}

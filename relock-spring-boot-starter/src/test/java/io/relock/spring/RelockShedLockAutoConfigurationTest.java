package io.relock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.shedlock.RelockLockProvider;
import io.relock.testkit.RedisExtension;
import java.time.Duration;
import java.util.Optional;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** ShedLock's LockProvider bean, offered on the application's Relock when ShedLock's Spring module is there. */
class RelockShedLockAutoConfigurationTest {

  @RegisterExtension static final RedisExtension redis = new RedisExtension();

  private final ApplicationContextRunner runner = Apps.on(redis.server())
      .withConfiguration(AutoConfigurations.of(RelockShedLockAutoConfiguration.class));

  @Test
  void withShedLocksSpringModule_theLockProviderIsRelocks_andLocksInRedis() {
    runner.run(context -> {
      LockProvider provider = context.getBean(LockProvider.class);
      assertThat(provider).isInstanceOf(RelockLockProvider.class);
      Optional<SimpleLock> lock = provider.lock(new LockConfiguration(ClockProvider.now(), "nightly",
          Duration.ofSeconds(30), Duration.ZERO));
      assertThat(lock).isPresent();
      assertThat(Apps.isLockedInRedis(redis.server(), "shedlock:nightly")).isTrue();
      lock.get().unlock();
      assertThat(Apps.isLockedInRedis(redis.server(), "shedlock:nightly")).isFalse();
    });
  }

  @Test
  void anApplicationsOwnLockProvider_isKept() {
    runner.withUserConfiguration(OwnProvider.class).run(context -> {
      assertThat(context.getBeansOfType(LockProvider.class)).containsOnlyKeys("ownLockProvider");
    });
  }

  @Test
  void withoutShedLocksSpringModule_noLockProviderIsOffered() {
    runner.withClassLoader(new FilteredClassLoader(SchedulerLock.class)).run(context -> {
      assertThat(context.getBeansOfType(LockProvider.class)).isEmpty();
    });
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnProvider {
    @Bean
    LockProvider ownLockProvider() {
      return config -> Optional.empty();
    }
  }
}

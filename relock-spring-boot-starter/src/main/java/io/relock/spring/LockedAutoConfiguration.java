package io.relock.spring;

import io.relock.Relock;
import java.util.concurrent.Executor;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnThreading;
import org.springframework.boot.autoconfigure.thread.Threading;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

/**
 * {@link Locked} methods: the post-processor that proxies their beans, and the executor that runs
 * the asynchronous ones once their lock is granted and releases their locks.
 *
 * <p>The executor (bean {@value #EXECUTOR_BEAN}) runs virtual threads when {@code
 * spring.threads.virtual.enabled=true} on Java 21+, and otherwise a pool of as many daemon threads
 * as processors (at least two). Define an {@link Executor} bean of that name to use your own; its
 * tasks start async {@link Locked} methods (up to the future or publisher they return), release
 * locks (one Redis round trip each) and call {@link LostLeaseHandler}s.
 */
@AutoConfiguration(after = RelockAutoConfiguration.class)
@ConditionalOnClass(Relock.class)
@EnableConfigurationProperties(RelockProperties.class)
public class LockedAutoConfiguration {

  /** Created by Spring Boot when the auto-configuration applies. */
  public LockedAutoConfiguration() {}


  /** The name of the executor bean of asynchronous {@link Locked} methods. */
  public static final String EXECUTOR_BEAN = "relockLockedExecutor";

  /**
   * The post-processor that checks and proxies beans with {@link Locked} methods; static, so that
   * it is registered before the beans it processes are created. Backs off when the application
   * defines a {@link LockedMethodPostProcessor} of its own.
   *
   * @return a new post-processor
   */
  @Bean
  @ConditionalOnMissingBean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  public static LockedMethodPostProcessor lockedMethodPostProcessor() {
    return new LockedMethodPostProcessor();
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnThreading(Threading.VIRTUAL)
  static class VirtualThreadsExecutor {

    @Bean(name = EXECUTOR_BEAN)
    @ConditionalOnMissingBean(name = EXECUTOR_BEAN)
    SimpleAsyncTaskExecutor relockLockedExecutor() {
      SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor("relock-locked-");
      executor.setVirtualThreads(true);
      return executor;
    }
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnThreading(Threading.PLATFORM)
  static class PlatformThreadsExecutor {

    @Bean(name = EXECUTOR_BEAN)
    @ConditionalOnMissingBean(name = EXECUTOR_BEAN)
    ThreadPoolTaskExecutor relockLockedExecutor() {
      int threads = Math.max(2, Runtime.getRuntime().availableProcessors());
      ThreadPoolTaskExecutor executor = new ThreadPoolTaskExecutor();
      executor.setThreadNamePrefix("relock-locked-");
      executor.setCorePoolSize(threads);
      executor.setMaxPoolSize(threads);
      executor.setAllowCoreThreadTimeOut(true);
      executor.setDaemon(true);
      // Pending releases finish before the client closes (and would release them anyway).
      executor.setWaitForTasksToCompleteOnShutdown(true);
      executor.setAwaitTerminationSeconds(5);
      return executor;
    }
  }
}

package io.relock.demo.service;

import io.micrometer.observation.ObservationRegistry;
import io.relock.demo.guard.ItemLocks;
import io.relock.demo.guard.NoGuard;
import io.relock.demo.guard.PurchaseGuard;
import io.relock.demo.guard.RelockGuard;
import io.relock.demo.guard.SeedSetnxGuard;
import io.relock.demo.production.ProductionSale;
import io.relock.demo.store.RedisInventory;
import io.relock.spring.LockedAutoConfiguration;
import io.relock.spring.RelockAutoConfiguration;
import io.relock.spring.RelockObservationsAutoConfiguration;
import java.util.List;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.autoconfigure.http.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration;
import org.springframework.boot.autoconfigure.web.embedded.EmbeddedWebServerFactoryCustomizerAutoConfiguration;
import org.springframework.boot.autoconfigure.web.servlet.DispatcherServletAutoConfiguration;
import org.springframework.boot.autoconfigure.web.servlet.ServletWebServerFactoryAutoConfiguration;
import org.springframework.boot.autoconfigure.web.servlet.WebMvcAutoConfiguration;
import org.springframework.boot.autoconfigure.web.servlet.error.ErrorMvcAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.context.WebServerInitializedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * The seckill service, one Spring Boot web application per process. Only the auto-configuration a
 * JSON web service needs is imported, because the demo starts several of these and startup time is
 * most of its cost; relock's comes from its Spring Boot starter: the {@link io.relock.Relock} bean
 * from {@code spring.data.redis.url} (set to {@code demo.redis-uri} in application.properties) and
 * the {@link io.relock.spring.Locked @Locked} method of {@link ItemLocks}.
 *
 * <p>Run it alone with {@code java -cp ... io.relock.demo.service.ServiceApplication
 * --server.port=8080 --demo.redis-uri=redis://localhost:6379}. When it is ready it prints {@value
 * #READY_LINE} followed by the port; the demo's fleet waits for that line.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@ImportAutoConfiguration({
  PropertyPlaceholderAutoConfiguration.class,
  ServletWebServerFactoryAutoConfiguration.class,
  EmbeddedWebServerFactoryCustomizerAutoConfiguration.class,
  DispatcherServletAutoConfiguration.class,
  WebMvcAutoConfiguration.class,
  HttpMessageConvertersAutoConfiguration.class,
  JacksonAutoConfiguration.class,
  ErrorMvcAutoConfiguration.class,
  RelockAutoConfiguration.class,
  LockedAutoConfiguration.class,
  RelockObservationsAutoConfiguration.class
})
@EnableConfigurationProperties(ServiceSettings.class)
@Import({ItemController.class, SaleController.class, TimingsController.class, ApiErrorHandler.class})
public class ServiceApplication {

  /** Printed, followed by the port, once the service accepts requests. */
  public static final String READY_LINE = "relock-demo service listening on port ";

  public static void main(String[] args) {
    application().run(args);
  }

  /** The application, not yet run; tests add their own beans and properties to it. */
  public static SpringApplication application(Class<?>... extraSources) {
    Class<?>[] sources = new Class<?>[extraSources.length + 1];
    sources[0] = ServiceApplication.class;
    System.arraycopy(extraSources, 0, sources, 1, extraSources.length);
    SpringApplication app = new SpringApplication(sources);
    app.setBannerMode(Banner.Mode.OFF);
    app.setLogStartupInfo(false);
    return app;
  }

  @Bean
  PurchaseTimings purchaseTimings() {
    return new PurchaseTimings();
  }

  /**
   * The observations of purchases and of the relock strategy's lock waits (the starter installs
   * relock's when this bean exists), timed by {@link PurchaseTimings}.
   */
  @Bean
  ObservationRegistry observationRegistry(PurchaseTimings timings) {
    ObservationRegistry registry = ObservationRegistry.create();
    registry.observationConfig().observationHandler(timings);
    return registry;
  }

  @Bean(destroyMethod = "close")
  RedisInventory inventory(ServiceSettings settings) {
    return RedisInventory.connect(settings.redisUri(), settings.redisTimeout());
  }

  /** Strategy {@code production}: stock taken in Redis, orders queued on streams for the order writers. */
  @Bean(destroyMethod = "close")
  ProductionSale productionSale(ServiceSettings settings) {
    return ProductionSale.connect(settings.redisUri(), settings.redisTimeout(), settings.partitions(),
        settings.instance());
  }

  /** The relock strategy's critical section; the starter proxies it to take the item's lock. */
  @Bean
  ItemLocks itemLocks() {
    return new ItemLocks();
  }

  @Bean(destroyMethod = "close")
  SeedSetnxGuard seedSetnxGuard(ServiceSettings settings) {
    ServiceSettings.Setnx recipe = settings.setnx();
    return new SeedSetnxGuard(
        settings.redisUri(), settings.redisTimeout(), recipe.expiry(), recipe.waitTime(), recipe.pollPause());
  }

  /** The simulated work; a test source may declare a {@code @Primary} step to replace it. */
  @Bean
  ProcessingStep processingStep(ServiceSettings settings) {
    return new SimulatedWork(settings.processingTime());
  }

  @Bean
  PurchaseService purchaseService(
      RedisInventory inventory,
      ItemLocks itemLocks,
      SeedSetnxGuard seedSetnxGuard,
      ProcessingStep step,
      ServiceSettings settings) {
    List<PurchaseGuard> guards =
        List.of(new NoGuard(), seedSetnxGuard, new RelockGuard(itemLocks));
    return new PurchaseService(inventory, guards, step, settings.instance());
  }

  @Bean
  ApplicationListener<WebServerInitializedEvent> announceReady() {
    return event -> {
      System.out.println(READY_LINE + event.getWebServer().getPort());
      System.out.flush();
    };
  }
}

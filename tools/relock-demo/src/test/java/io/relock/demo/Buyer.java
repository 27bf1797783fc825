package io.relock.demo;

import io.relock.Relock;
import io.relock.demo.guard.ItemLocks;
import io.relock.demo.guard.NoGuard;
import io.relock.demo.guard.RelockGuard;
import io.relock.demo.guard.SeedSetnxGuard;
import io.relock.demo.service.ProcessingStep;
import io.relock.demo.service.PurchaseResult;
import io.relock.demo.service.PurchaseService;
import io.relock.demo.store.RedisInventory;
import io.relock.spring.LockedAutoConfiguration;
import io.relock.spring.RelockAutoConfiguration;
import java.time.Duration;
import java.util.List;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * One buyer as a service process would be, without the HTTP layer: its own store connection, its
 * own relock client (in a small Spring application of its own, as the service's @Locked method
 * needs) and its own recipe connection, so two buyers share nothing but Redis.
 */
public final class Buyer implements AutoCloseable {

  public final RedisInventory inventory;
  public final Relock relock;
  public final SeedSetnxGuard seedSetnx;
  public final PurchaseService service;
  private final ConfigurableApplicationContext locks;

  /** The relock strategy's part of the service: the Relock bean and the @Locked ItemLocks. */
  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration({RelockAutoConfiguration.class, LockedAutoConfiguration.class})
  static class Locks {
    @Bean
    ItemLocks itemLocks() {
      return new ItemLocks();
    }
  }

  private Buyer(String redisUri, ProcessingStep step, String name, Duration setnxWait) {
    Duration timeout = Duration.ofSeconds(5);
    this.inventory = RedisInventory.connect(redisUri, timeout);
    this.locks = new SpringApplicationBuilder(Locks.class).web(WebApplicationType.NONE)
        .bannerMode(Banner.Mode.OFF).logStartupInfo(false)
        .run("--demo.redis-uri=" + redisUri, "--demo.lock-wait=30s");
    this.relock = locks.getBean(Relock.class);
    this.seedSetnx = new SeedSetnxGuard(redisUri, timeout, Duration.ofMillis(200), setnxWait, Duration.ofMillis(1));
    this.service =
        new PurchaseService(
            inventory,
            List.of(new NoGuard(), seedSetnx, new RelockGuard(locks.getBean(ItemLocks.class))),
            step,
            name);
  }

  /** A buyer whose purchases run {@code step} between read and write; the recipe waits up to 10 s. */
  public static Buyer connect(String redisUri, ProcessingStep step, String name) {
    return new Buyer(redisUri, step, name, Duration.ofSeconds(10));
  }

  public PurchaseResult buy(String item, String strategy) {
    return service.purchase(item, strategy);
  }

  @Override
  public void close() {
    seedSetnx.close();
    locks.close();
    inventory.close();
  }
}

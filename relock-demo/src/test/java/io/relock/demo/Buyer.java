package io.relock.demo;

import io.relock.Relock;
import io.relock.demo.guard.NoGuard;
import io.relock.demo.guard.RelockGuard;
import io.relock.demo.guard.SeedSetnxGuard;
import io.relock.demo.service.ProcessingStep;
import io.relock.demo.service.PurchaseResult;
import io.relock.demo.service.PurchaseService;
import io.relock.demo.store.RedisInventory;
import java.time.Duration;
import java.util.List;

/**
 * One buyer as a service process would be, without the HTTP layer: its own store connection, its
 * own relock client and its own recipe connection, so two buyers share nothing but Redis.
 */
public final class Buyer implements AutoCloseable {

  public final RedisInventory inventory;
  public final Relock relock;
  public final SeedSetnxGuard seedSetnx;
  public final PurchaseService service;

  private Buyer(String redisUri, ProcessingStep step, String name, Duration setnxWait) {
    Duration timeout = Duration.ofSeconds(5);
    this.inventory = RedisInventory.connect(redisUri, timeout);
    this.relock = Relock.connect(redisUri);
    this.seedSetnx = new SeedSetnxGuard(redisUri, timeout, Duration.ofMillis(200), setnxWait, Duration.ofMillis(1));
    this.service =
        new PurchaseService(
            inventory,
            List.of(new NoGuard(), seedSetnx, new RelockGuard(relock, Duration.ofSeconds(30))),
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
    relock.close();
    inventory.close();
  }
}

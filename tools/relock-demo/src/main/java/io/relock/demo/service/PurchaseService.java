package io.relock.demo.service;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.relock.demo.guard.Guarded;
import io.relock.demo.guard.LockBusyException;
import io.relock.demo.guard.PurchaseGuard;
import io.relock.demo.store.RedisInventory;
import io.relock.demo.store.RedisUnavailableException;
import io.relock.demo.store.SaleWrite;
import io.relock.demo.store.StockRead;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The seckill purchase: under the chosen strategy's guard, read the stock, do the processing step,
 * write the stock minus one and append the order. The read and the write are separate round trips
 * on purpose; only the guard keeps two buyers from reading the same stock.
 */
public final class PurchaseService {

  private static final Logger log = LoggerFactory.getLogger(PurchaseService.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final RedisInventory inventory;
  private final Map<String, PurchaseGuard> guards = new LinkedHashMap<>();
  private final ProcessingStep processing;
  private final String instance;

  /**
   * @param inventory the shared store
   * @param guards the strategies this service offers, by {@link PurchaseGuard#name()}
   * @param processing what happens between read and write
   * @param instance this process's name, recorded in each order
   */
  public PurchaseService(
      RedisInventory inventory, List<PurchaseGuard> guards, ProcessingStep processing, String instance) {
    this.inventory = inventory;
    for (PurchaseGuard guard : guards) {
      this.guards.put(guard.name(), guard);
    }
    this.processing = processing;
    this.instance = instance;
  }

  /** The names of the strategies offered, in order. */
  public List<String> strategies() {
    return List.copyOf(guards.keySet());
  }

  /**
   * Buys one unit of {@code item} under {@code strategy}.
   *
   * @throws UnknownStrategyException if there is no such strategy
   * @throws LockBusyException if the guard could not be entered within its wait; nothing written
   * @throws RedisUnavailableException if Redis failed; no partial sale is ever recorded
   */
  public PurchaseResult purchase(String item, String strategy) {
    PurchaseGuard guard = guards.get(strategy);
    if (guard == null) {
      throw new UnknownStrategyException(strategy, guards.keySet());
    }
    Guarded<PurchaseResult> guarded = guard.run(item, token -> buyHolding(item, guard.name(), token));
    PurchaseResult result = guarded.result();
    guarded.releaseProblem().ifPresent(p -> log.warn("purchase of {} ({}): {}", item, result.status(), p));
    return result.withReleaseProblem(guarded.releaseProblem());
  }

  private PurchaseResult buyHolding(String item, String strategy, OptionalLong token) {
    StockRead read = inventory.readStock(item, token);
    switch (read.status()) {
      case UNKNOWN_ITEM:
        return PurchaseResult.of(PurchaseResult.Status.UNKNOWN_ITEM, item, strategy, token);
      case STALE_TOKEN:
        return refusedAsStale(item, strategy, token, read.fence(), "read");
      case READ:
      default:
        break;
    }
    if (read.stock() <= 0) {
      return PurchaseResult.of(PurchaseResult.Status.SOLD_OUT, item, strategy, token);
    }
    processing.afterRead(item, read.stock());
    long left = read.stock() - 1;
    SaleWrite write = inventory.recordSale(item, left, token, orderRecord(strategy, token, read.stock()));
    switch (write.status()) {
      case UNKNOWN_ITEM:
        return PurchaseResult.of(PurchaseResult.Status.UNKNOWN_ITEM, item, strategy, token);
      case STALE_TOKEN:
        return refusedAsStale(item, strategy, token, write.fence(), "write");
      case RECORDED:
      default:
        return new PurchaseResult(
            PurchaseResult.Status.SOLD, item, strategy, write.orderNumber(), left, token, 0, Optional.empty());
    }
  }

  private PurchaseResult refusedAsStale(String item, String strategy, OptionalLong token, long fence, String what) {
    log.warn(
        "lease on item {} lost: the store refused the {} of fencing token {}, it has seen {}",
        item, what, token.orElse(0), fence);
    return new PurchaseResult(PurchaseResult.Status.STALE_TOKEN, item, strategy, 0, 0, token, fence, Optional.empty());
  }

  private String orderRecord(String strategy, OptionalLong token, long stockSeen) {
    ObjectNode order = JSON.createObjectNode();
    order.put("instance", instance);
    order.put("strategy", strategy);
    if (token.isPresent()) {
      order.put("token", token.getAsLong());
    } else {
      order.putNull("token");
    }
    order.put("stockSeen", stockSeen);
    order.put("at", System.currentTimeMillis());
    return order.toString();
  }
}

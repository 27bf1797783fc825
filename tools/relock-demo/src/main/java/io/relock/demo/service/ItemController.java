package io.relock.demo.service;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.TextNode;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.relock.demo.production.FlashSale;
import io.relock.demo.production.ProductionSale;
import io.relock.demo.store.ItemView;
import io.relock.demo.store.RedisInventory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The seckill HTTP API.
 *
 * <ul>
 *   <li>{@code PUT /items/{id}} with {@code {"stock": n}}: start a sale of n units (creates or
 *       resets the item, clears its orders)
 *   <li>{@code GET /items/{id}}: stock, initial stock, sold, oversold and the orders
 *   <li>{@code POST /items/{id}/purchase[?strategy=none|seed-setnx|relock|production]}: buy one
 *       unit; {@code production} buys from the item's production sale (see {@link SaleController})
 * </ul>
 */
@RestController
@RequestMapping(path = "/items", produces = MediaType.APPLICATION_JSON_VALUE)
public class ItemController {

  /** Above this a stock is surely a typo; it also keeps every count well inside a long. */
  static final long MAX_STOCK = 1_000_000_000L;

  private final PurchaseService purchases;
  private final RedisInventory inventory;
  private final ServiceSettings settings;
  private final ObjectMapper json;
  private final ObservationRegistry observations;
  private final ProductionSale production;

  public ItemController(PurchaseService purchases, RedisInventory inventory, ServiceSettings settings, ObjectMapper json,
      ObservationRegistry observations, ProductionSale production) {
    this.observations = observations;
    this.production = production;
    this.purchases = purchases;
    this.inventory = inventory;
    this.settings = settings;
    this.json = json;
  }

  @GetMapping("/{id}")
  public Map<String, Object> get(@PathVariable("id") String id) {
    requireValidId(id);
    return itemBody(inventory.view(id).orElseThrow(() -> ApiException.unknownItem(id)));
  }

  @PutMapping("/{id}")
  public Map<String, Object> put(@PathVariable("id") String id, @RequestBody(required = false) String body) {
    requireValidId(id);
    return itemBody(inventory.restock(id, parseStock(json, body)));
  }

  @PostMapping("/{id}/purchase")
  public ResponseEntity<Map<String, Object>> purchase(
      @PathVariable("id") String id, @RequestParam(name = "strategy", required = false) String strategy) {
    requireValidId(id);
    String chosen = strategy == null || strategy.isEmpty() ? settings.defaultStrategy() : strategy;
    if (ProductionSale.STRATEGY.equals(chosen)) {
      ProductionSale.Purchase bought = Observation.createNotStarted(PurchaseTimings.PURCHASE, observations)
          .lowCardinalityKeyValue(PurchaseTimings.STRATEGY, chosen)
          .observe(() -> production.buy(id));
      return productionAnswer(id, bought);
    }
    List<String> known = new ArrayList<>(purchases.strategies());
    known.add(ProductionSale.STRATEGY);
    if (!known.contains(chosen)) {
      throw new UnknownStrategyException(chosen, known);
    }
    // Observed, so that the relock strategy's lock wait nests in it (see PurchaseTimings).
    PurchaseResult result = Observation.createNotStarted(PurchaseTimings.PURCHASE, observations)
        .lowCardinalityKeyValue(PurchaseTimings.STRATEGY, chosen)
        .observe(() -> purchases.purchase(id, chosen));
    Map<String, Object> body = new LinkedHashMap<>();
    HttpStatus status;
    switch (result.status()) {
      case SOLD:
        status = HttpStatus.OK;
        body.put("item", id);
        body.put("order", result.orderNumber());
        body.put("stockLeft", result.stockLeft());
        break;
      case SOLD_OUT:
        status = HttpStatus.CONFLICT;
        body = ErrorBody.of("sold_out", "sold out: " + id);
        break;
      case UNKNOWN_ITEM:
        throw ApiException.unknownItem(id);
      case STALE_TOKEN:
      default:
        status = HttpStatus.CONFLICT;
        body =
            ErrorBody.of(
                "stale_token",
                "lease lost during the purchase: the store refused fencing token "
                    + result.fencingToken().orElse(0)
                    + " because it has seen the newer token "
                    + result.newestToken()
                    + "; nothing was written");
        body.put("newestToken", result.newestToken());
        break;
    }
    body.put("strategy", result.strategy());
    body.put("fencingToken", result.fencingToken().isPresent() ? result.fencingToken().getAsLong() : null);
    body.put("instance", settings.instance());
    // A sale recorded by a fenced write stays valid even if the release then found the lease lost:
    // the store had seen no newer holder. The problem is reported alongside.
    if (result.releaseProblem().isPresent()) {
      body.put("lockRelease", result.releaseProblem().get());
    }
    return ResponseEntity.status(status).body(body);
  }

  /**
   * The production strategy's answer: 200 with the order id once the unit is taken and its order
   * queued (the order writers store it in the database soon after); 409 sold_out, saying whether
   * this process answered from its in-memory flag; 404 if the item has no production sale.
   */
  private ResponseEntity<Map<String, Object>> productionAnswer(String id, ProductionSale.Purchase bought) {
    FlashSale.Take take = bought.take();
    Map<String, Object> body;
    HttpStatus status;
    switch (take.status()) {
      case QUEUED:
        status = HttpStatus.OK;
        body = new LinkedHashMap<>();
        body.put("item", id);
        body.put("order", take.orderId());
        body.put("unit", take.unit());
        body.put("stockLeft", take.stockLeft());
        body.put("queued", Map.of("partition", take.partition(), "entry", take.entryId()));
        break;
      case SOLD_OUT:
        status = HttpStatus.CONFLICT;
        body = ErrorBody.of("sold_out", "sold out: " + id);
        body.put("answeredFrom", bought.fromMemory() ? "memory" : "redis");
        break;
      case NO_SALE:
      default:
        throw new ApiException(HttpStatus.NOT_FOUND, "unknown_item",
            "no production sale of item " + id + "; start one with PUT /sales/" + id, Map.of("item", id));
    }
    body.put("strategy", ProductionSale.STRATEGY);
    body.put("instance", settings.instance());
    return ResponseEntity.status(status).body(body);
  }

  private Map<String, Object> itemBody(ItemView item) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("item", item.item());
    body.put("stock", item.stock());
    body.put("initialStock", item.initialStock());
    body.put("sold", item.sold());
    body.put("oversold", item.oversold());
    body.put("lastToken", item.lastToken());
    List<JsonNode> orders = new ArrayList<>(item.orders().size());
    for (String order : item.orders()) {
      orders.add(parseOrder(order));
    }
    body.put("orders", orders);
    return body;
  }

  private JsonNode parseOrder(String order) {
    try {
      return json.readTree(order);
    } catch (JsonProcessingException e) {
      return TextNode.valueOf(order);
    }
  }

  static void requireValidId(String id) {
    if (!RedisInventory.isValidItemId(id)) {
      throw new ApiException(
          HttpStatus.BAD_REQUEST,
          "bad_item_id",
          "item id must be 1 to 64 of A-Z a-z 0-9 . _ -: " + id,
          Map.of("item", id));
    }
  }

  static long parseStock(ObjectMapper json, String body) {
    if (body == null || body.isBlank()) {
      throw ApiException.badRequest("malformed_body", "body required: {\"stock\": <non-negative integer>}");
    }
    JsonNode root;
    try {
      root = json.readTree(body);
    } catch (JsonProcessingException e) {
      throw ApiException.badRequest(
          "malformed_body", "body is not JSON: " + e.getOriginalMessage() + "; expected {\"stock\": <n>}");
    }
    if (root == null || !root.isObject()) {
      throw ApiException.badRequest("malformed_body", "body must be a JSON object: {\"stock\": <n>}");
    }
    JsonNode stock = root.get("stock");
    if (stock == null || stock.isNull()) {
      throw ApiException.badRequest("bad_stock", "field \"stock\" is missing");
    }
    if (!stock.isIntegralNumber()) {
      throw new ApiException(
          HttpStatus.BAD_REQUEST,
          "bad_stock",
          "stock must be a non-negative integer, got " + stock,
          Map.of("stock", stock.toString()));
    }
    if (!stock.canConvertToLong() || stock.asLong() < 0 || stock.asLong() > MAX_STOCK) {
      throw new ApiException(
          HttpStatus.BAD_REQUEST,
          "bad_stock",
          "stock must be between 0 and " + MAX_STOCK + ", got " + stock,
          Map.of("stock", stock.toString()));
    }
    return stock.asLong();
  }
}

package io.relock.demo.store;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * The shared store of the flash sale: each item's stock and its orders, in Redis, used by every
 * service process at once. A purchase is a read-modify-write: {@link #readStock} then {@link
 * #recordSale} with the stock it read minus one. Nothing here serialises two purchases; that is the
 * lock's job. What the store does check is the fencing token: a fenced read or write whose token is
 * older than the newest the item has seen is refused, so a holder whose lease was lost cannot
 * overwrite the work of the holder after it.
 *
 * <p>Keys, with the item id as hash tag: {@code relock-demo:item:{<id>}} (hash: stock, initial,
 * fence) and {@code relock-demo:item:{<id>}:orders} (list of JSON order records). Thread-safe: one
 * multiplexed connection.
 */
public final class RedisInventory implements AutoCloseable {

  /** Prefix of every key the demo's store and its SETNX recipe create. */
  public static final String KEY_PREFIX = "relock-demo:";

  private static final Pattern ITEM_ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");

  private static final LuaScript READ_STOCK = LuaScript.load("read_stock.lua");
  private static final LuaScript RECORD_SALE = LuaScript.load("record_sale.lua");
  private static final LuaScript RESTOCK = LuaScript.load("restock.lua");
  private static final LuaScript VIEW_ITEM = LuaScript.load("view_item.lua");

  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final RedisCommands<String, String> redis;

  private RedisInventory(RedisClient client, StatefulRedisConnection<String, String> connection) {
    this.client = client;
    this.connection = connection;
    this.redis = connection.sync();
  }

  /**
   * Connects to the store.
   *
   * @param redisUri {@code redis://host:port[/db]}
   * @param commandTimeout how long one command may take before the request fails with 503
   * @throws RedisUnavailableException if Redis cannot be reached now
   */
  public static RedisInventory connect(String redisUri, Duration commandTimeout) {
    RedisClient client = RedisClient.create(RedisURI.create(redisUri));
    client.setOptions(failFastOptions(commandTimeout));
    try {
      return new RedisInventory(client, client.connect());
    } catch (RedisException e) {
      client.shutdown();
      throw new RedisUnavailableException("cannot connect to Redis: " + rootMessage(e), e, false);
    }
  }

  /**
   * Options shared by the demo's Lettuce connections: commands fail at once while disconnected (a
   * request gets its 503 now rather than after a queue drains), and each command has a deadline.
   */
  public static ClientOptions failFastOptions(Duration commandTimeout) {
    return ClientOptions.builder()
        .autoReconnect(true)
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
        .build();
  }

  /** Whether {@code item} is a valid item id: 1 to 64 of {@code A-Z a-z 0-9 . _ -}. */
  public static boolean isValidItemId(String item) {
    return item != null && ITEM_ID.matcher(item).matches();
  }

  /** The key of the item's hash. */
  public static String itemKey(String item) {
    return KEY_PREFIX + "item:{" + item + "}";
  }

  /** The key of the item's order list. */
  public static String ordersKey(String item) {
    return itemKey(item) + ":orders";
  }

  /**
   * Reads the stock. With a token, the read is fenced: it is refused if the item has seen a newer
   * token, and otherwise raises the item's fence to this token.
   */
  public StockRead readStock(String item, OptionalLong fencingToken) {
    List<Object> reply = call(false, () -> READ_STOCK.run(redis, keys(item), token(fencingToken)));
    long code = (Long) reply.get(0);
    long n = (Long) reply.get(1);
    if (code == 1) {
      return new StockRead(StockRead.Status.READ, n, 0);
    }
    if (code == 0) {
      return new StockRead(StockRead.Status.STALE_TOKEN, 0, n);
    }
    return new StockRead(StockRead.Status.UNKNOWN_ITEM, 0, 0);
  }

  /**
   * Writes the new stock and appends the order, atomically. With a token, the write is refused
   * (nothing written) if the item has seen a newer token.
   *
   * @throws RedisUnavailableException if Redis failed; see {@link
   *     RedisUnavailableException#writeOutcomeUnknown()}
   */
  public SaleWrite recordSale(String item, long newStock, OptionalLong fencingToken, String order) {
    Objects.requireNonNull(order, "order");
    List<Object> reply =
        call(true, () -> RECORD_SALE.run(redis, keys(item), Long.toString(newStock), token(fencingToken), order));
    long code = (Long) reply.get(0);
    long n = (Long) reply.get(1);
    if (code == 1) {
      return new SaleWrite(SaleWrite.Status.RECORDED, n, 0);
    }
    if (code == 0) {
      return new SaleWrite(SaleWrite.Status.STALE_TOKEN, 0, n);
    }
    return new SaleWrite(SaleWrite.Status.UNKNOWN_ITEM, 0, 0);
  }

  /** Starts a new sale: creates or resets the item with {@code stock} units and no orders. */
  public ItemView restock(String item, long stock) {
    if (stock < 0) {
      throw new IllegalArgumentException("stock must not be negative: " + stock);
    }
    call(false, () -> RESTOCK.run(redis, keys(item), Long.toString(stock)));
    return view(item).orElseThrow(() -> new IllegalStateException("item " + item + " vanished after restock"));
  }

  /** The item now, or empty if there is no such item. */
  public Optional<ItemView> view(String item) {
    List<Object> reply = call(false, () -> VIEW_ITEM.run(redis, keys(item)));
    if (reply.isEmpty()) {
      return Optional.empty();
    }
    List<String> orders = new ArrayList<>();
    for (Object order : (List<?>) reply.get(3)) {
      orders.add((String) order);
    }
    return Optional.of(new ItemView(item, (Long) reply.get(0), (Long) reply.get(1), (Long) reply.get(2), orders));
  }

  @Override
  public void close() {
    connection.close();
    client.shutdown();
  }

  private static String[] keys(String item) {
    if (!isValidItemId(item)) {
      throw new IllegalArgumentException("invalid item id: " + item);
    }
    return new String[] {itemKey(item), ordersKey(item)};
  }

  private static String token(OptionalLong fencingToken) {
    return fencingToken.isPresent() ? Long.toString(fencingToken.getAsLong()) : "";
  }

  private static <T> T call(boolean isWrite, Supplier<T> command) {
    try {
      return command.get();
    } catch (RedisCommandExecutionException e) {
      // An error reply (LOADING, BUSY, OOM, READONLY...): Redis did not run the script.
      throw new RedisUnavailableException("Redis refused the command: " + e.getMessage(), e, false);
    } catch (RedisCommandTimeoutException e) {
      throw new RedisUnavailableException("Redis did not answer in time: " + e.getMessage(), e, isWrite);
    } catch (RedisException e) {
      boolean neverSent = String.valueOf(e.getMessage()).contains("not connected");
      throw new RedisUnavailableException(
          "Redis is unreachable: " + rootMessage(e), e, isWrite && !neverSent);
    }
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t == e ? String.valueOf(e.getMessage()) : e.getMessage() + " (" + t.getMessage() + ")";
  }
}

package io.relock.demo.production;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.relock.demo.store.RedisInventory;
import io.relock.demo.store.RedisUnavailableException;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Strategy {@code production}, as the seckill article's closing advice builds a real sale: a
 * sold-out flag in memory, the stock taken in Redis by one script that also queues the order on a
 * Redis Stream, and the order writers ({@link OrderWriter} processes) storing the orders in
 * PostgreSQL from there. No lock is on the buyer's path: taking a unit is one atomic script, so
 * buyers never wait for one another, and once the stock is gone each process answers from memory.
 *
 * <p>The service processes learn of a new sale on {@link SaleKeys#SALES_CHANNEL}: the process that
 * starts one announces it, and every process clears its flag for the item. One instance per
 * service process; thread-safe.
 */
public final class ProductionSale implements AutoCloseable {

  /** The strategy's name in {@code ?strategy=}. */
  public static final String STRATEGY = "production";

  private static final Logger log = LoggerFactory.getLogger(ProductionSale.class);

  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final StatefulRedisPubSubConnection<String, String> announcements;
  private final FlashSale sale;
  private final SoldOutFlags flags = new SoldOutFlags();
  private final String instance;

  private ProductionSale(RedisClient client, StatefulRedisConnection<String, String> connection,
      StatefulRedisPubSubConnection<String, String> announcements, int partitions, String instance) {
    this.client = client;
    this.connection = connection;
    this.announcements = announcements;
    this.sale = new FlashSale(connection.sync(), partitions);
    this.instance = instance;
  }

  /**
   * Connects and subscribes to the sale announcements.
   *
   * @param redisUri the Redis of the sales
   * @param commandTimeout deadline of one command
   * @param partitions order streams per sale; the order writers must be started with the same
   * @param instance this process's name, recorded in each order
   * @throws RedisUnavailableException if Redis cannot be reached now
   */
  public static ProductionSale connect(String redisUri, Duration commandTimeout, int partitions, String instance) {
    RedisClient client = RedisClient.create(RedisURI.create(redisUri));
    client.setOptions(RedisInventory.failFastOptions(commandTimeout));
    try {
      StatefulRedisConnection<String, String> connection = client.connect();
      StatefulRedisPubSubConnection<String, String> announcements = client.connectPubSub();
      ProductionSale production = new ProductionSale(client, connection, announcements, partitions, instance);
      announcements.addListener(new RedisPubSubAdapter<>() {
        @Override
        public void message(String channel, String message) {
          production.announced(message);
        }
      });
      announcements.sync().subscribe(SaleKeys.SALES_CHANNEL);
      return production;
    } catch (RedisException e) {
      client.shutdown();
      throw new RedisUnavailableException("cannot connect to Redis: " + e.getMessage(), e, false);
    }
  }

  /**
   * Starts a sale of {@code stock} units of {@code item} and announces it to every service
   * process, which clears its sold-out flag.
   */
  public FlashSale.SaleView start(String item, long stock) {
    long id = sale.start(item, stock);
    flags.saleStarted(item, id);
    connection.sync().publish(SaleKeys.SALES_CHANNEL, item + " " + id);
    return view(item).orElseThrow(() -> new IllegalStateException("sale of " + item + " vanished after its start"));
  }

  /**
   * One buyer: answered from memory once this process knows the sale is sold out, else by the
   * take script.
   *
   * @throws RedisUnavailableException if Redis failed; the unit was taken and queued together or
   *     not at all
   */
  public Purchase buy(String item) {
    if (flags.isSoldOut(item)) {
      return Purchase.soldOut(true);
    }
    FlashSale.Take take = sale.take(item, instance);
    if (take.status() == FlashSale.Take.Status.SOLD_OUT) {
      flags.markSoldOut(item, take.sale());
      return Purchase.soldOut(false);
    }
    return new Purchase(take, false);
  }

  /** The sale of {@code item} in Redis, if any. */
  public Optional<FlashSale.SaleView> view(String item) {
    return sale.view(item);
  }

  /** Whether this process answers {@code item}'s buyers "sold out" from memory now. */
  public boolean soldOutHere(String item) {
    return flags.isSoldOut(item);
  }

  public int partitions() {
    return sale.partitions();
  }

  @Override
  public void close() {
    announcements.close();
    connection.close();
    client.shutdown();
  }

  private void announced(String message) {
    String[] parts = message.split(" ", 2);
    try {
      flags.saleStarted(parts[0], Long.parseLong(parts[1]));
    } catch (RuntimeException e) {
      log.warn("ignoring a malformed sale announcement: {}", message);
    }
  }

  /**
   * A production purchase.
   *
   * @param take what the take script did; its status is {@code SOLD_OUT} when answered from memory
   * @param fromMemory whether the sold-out answer came from this process's flag, without Redis
   */
  public record Purchase(FlashSale.Take take, boolean fromMemory) {
    static Purchase soldOut(boolean fromMemory) {
      return new Purchase(new FlashSale.Take(FlashSale.Take.Status.SOLD_OUT, 0, 0, 0, -1, null, null), fromMemory);
    }
  }
}

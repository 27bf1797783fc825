package io.relock.demo.production;

import io.lettuce.core.Consumer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XAutoClaimArgs;
import io.lettuce.core.XGroupCreateArgs;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.models.stream.ClaimedMessages;
import io.relock.LockLease;
import io.relock.LockLostException;
import io.relock.Relock;
import io.relock.RelockException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * One partition's order writer inside an {@link OrderWriter} process: a loop that takes the
 * partition's relock lock, and while it holds it, stores the partition's queued orders in the
 * database and acknowledges them on the stream.
 *
 * <p>Why a lock here, when the buyers need none: a partition must have one writer at a time, so
 * that its orders are applied in stream order and its checkpoint (the last entry applied) only
 * moves forward; and when that writer dies, another must take over what it left unacknowledged.
 * The lock's lease gives both: the holder renews it while alive, and when it stops (killed, frozen,
 * cut off) the lease runs out and a waiting writer of another process takes the partition, first
 * claiming the entries the old owner had read (XAUTOCLAIM). A lease cannot stop an old owner that
 * was only frozen from writing when it wakes; the fencing token can: every batch is written in a
 * transaction that first raises the partition's fence row to the writer's token, on condition that
 * no newer token wrote there (see {@link OrderLedger#write}), so the database refuses the old owner.
 * No order is stored twice whatever happens, because orders are keyed by order id; the fence is
 * what keeps the partition single-writer.
 */
final class PartitionWriter implements Runnable {

  /** How long one attempt to take the partition's lock waits before looking at the stop flag again. */
  private static final Duration ACQUIRE_WAIT = Duration.ofSeconds(2);
  /** How long one read of the stream blocks when nothing is queued. */
  private static final Duration READ_BLOCK = Duration.ofMillis(200);
  /** Pause before a writer that failed (Redis or the database unreachable) starts over. */
  private static final Duration RETRY_PAUSE = Duration.ofSeconds(1);

  private final String writer;
  private final String item;
  private final int partition;
  private final String stream;
  private final Relock relock;
  private final RedisClient redisClient;
  private final String jdbcUrl;
  private final int batchSize;
  private final FaultPoints faults;
  private final AtomicBoolean running;

  PartitionWriter(String writer, String item, int partition, Relock relock, RedisClient redisClient, String jdbcUrl,
      int batchSize, FaultPoints faults, AtomicBoolean running) {
    this.writer = writer;
    this.item = item;
    this.partition = partition;
    this.stream = SaleKeys.stream(item, partition);
    this.relock = relock;
    this.redisClient = redisClient;
    this.jdbcUrl = jdbcUrl;
    this.batchSize = batchSize;
    this.faults = faults;
    this.running = running;
  }

  @Override
  public void run() {
    while (running.get()) {
      try (StatefulRedisConnection<String, String> connection = redisClient.connect();
          OrderLedger ledger = OrderLedger.open(jdbcUrl)) {
        RedisCommands<String, String> redis = connection.sync();
        createGroup(redis);
        ledger.ensurePartition(stream);
        while (running.get()) {
          Optional<LockLease> taken = relock.lock(SaleKeys.partitionLock(item, partition)).tryAcquire(ACQUIRE_WAIT);
          if (taken.isPresent()) {
            ownWhileHeld(taken.get(), redis, ledger);
          }
        }
      } catch (RuntimeException e) {
        if (!running.get()) {
          return;
        }
        say("error: writer=" + writer + " stream=" + stream + " " + e + "; starting over");
        LockSupport.parkNanos(RETRY_PAUSE.toNanos());
      }
    }
  }

  /** Stores the partition's orders while the lease holds; releases it (or notes it lost) at the end. */
  private void ownWhileHeld(LockLease lease, RedisCommands<String, String> redis, OrderLedger ledger) {
    try {
      say("owner: writer=" + writer + " stream=" + stream + " token=" + lease.fencingToken());
      if (claimPending(lease, redis, ledger)) {
        while (running.get() && lease.isValid()) {
          List<StreamMessage<String, String>> read = redis.xreadgroup(Consumer.from(SaleKeys.GROUP, writer),
              XReadArgs.Builder.block(READ_BLOCK).count(batchSize), XReadArgs.StreamOffset.lastConsumed(stream));
          if (!read.isEmpty() && !store(read, lease, redis, ledger)) {
            break;
          }
        }
      }
    } finally {
      try {
        lease.close();
      } catch (LockLostException e) {
        say("lost: writer=" + writer + " stream=" + stream + " token=" + lease.fencingToken());
      } catch (RelockException e) {
        say("release failed: writer=" + writer + " stream=" + stream + " " + e.getMessage());
      }
    }
  }

  /**
   * Takes over every entry earlier owners read and did not acknowledge, and stores them. Claims
   * them whatever their idle time: holding the lock means no one else owns the partition now.
   *
   * @return false if the fence refused a batch or the lease ran out: ownership is gone
   */
  private boolean claimPending(LockLease lease, RedisCommands<String, String> redis, OrderLedger ledger) {
    String cursor = "0-0";
    do {
      ClaimedMessages<String, String> claimed = redis.xautoclaim(stream, new XAutoClaimArgs<String>()
          .consumer(Consumer.from(SaleKeys.GROUP, writer)).minIdleTime(0).startId(cursor).count(batchSize));
      cursor = claimed.getId();
      List<StreamMessage<String, String>> entries = claimed.getMessages();
      if (!entries.isEmpty()) {
        WriterCounters.add(redis, item, WriterCounters.CLAIMED, entries.size());
        say("claimed: writer=" + writer + " stream=" + stream + " entries=" + entries.size());
        if (!store(entries, lease, redis, ledger)) {
          return false;
        }
      }
    } while (!"0-0".equals(cursor) && running.get() && lease.isValid());
    return lease.isValid();
  }

  /**
   * Stores one batch fenced by the lease's token, then acknowledges it.
   *
   * @return false if the fence refused it or the lease had run out: ownership is gone
   */
  private boolean store(List<StreamMessage<String, String>> entries, LockLease lease,
      RedisCommands<String, String> redis, OrderLedger ledger) {
    List<OrderEntry> orders = new ArrayList<>(entries.size());
    for (StreamMessage<String, String> entry : entries) {
      orders.add(OrderEntry.of(entry.getId(), entry.getBody()));
    }
    // A careful writer checks its lease first; that narrows the window, it cannot close it: a pause
    // right after the check outlives the lease all the same. The fence in the write closes it.
    if (!lease.isValid()) {
      return false;
    }
    faults.beforeWrite(redis, writer, item, partition, stream, lease, orders.size());
    long token = lease.fencingToken();
    OrderLedger.Write write = ledger.write(stream, token, writer, orders);
    if (!write.accepted()) {
      WriterCounters.add(redis, item, WriterCounters.FENCED_BATCHES, 1);
      WriterCounters.add(redis, item, WriterCounters.FENCED_ORDERS, orders.size());
      say("fenced: writer=" + writer + " stream=" + stream + " token=" + token + " newer=" + write.fence()
          + " orders=" + orders.size());
      return false;
    }
    WriterCounters.add(redis, item, WriterCounters.BATCHES, 1);
    WriterCounters.add(redis, item, WriterCounters.STORED, write.inserted());
    WriterCounters.add(redis, item, WriterCounters.ALREADY_STORED, orders.size() - write.inserted());
    faults.afterCommit(redis, writer, item, partition, stream, token, orders.size());
    redis.xack(stream, SaleKeys.GROUP, entries.stream().map(StreamMessage::getId).toArray(String[]::new));
    return true;
  }

  private void createGroup(RedisCommands<String, String> redis) {
    try {
      redis.xgroupCreate(XReadArgs.StreamOffset.from(stream, "0"), SaleKeys.GROUP, XGroupCreateArgs.Builder.mkstream());
    } catch (RedisCommandExecutionException e) {
      if (!String.valueOf(e.getMessage()).startsWith("BUSYGROUP")) {
        throw e;
      }
      // The sale's start or another writer made it.
    }
  }

  private static void say(String line) {
    System.out.println(line);
    System.out.flush();
  }
}

package io.relock.demo.production;

import io.lettuce.core.api.sync.RedisCommands;
import io.relock.LockLease;
import io.relock.demo.store.LuaScript;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * Where the demo's faults strike an order writer, when its fault plan ({@link SaleKeys#faults})
 * names the writer's partition (see claim_fault.lua): a writer that claims one prints a line
 * ({@value #KILL_POINT} or {@value #PAUSE_POINT}, then {@code key=value} fields) and stays at that
 * point, so that the demo, which reads the writer's output, strikes it there:
 *
 * <ul>
 *   <li>kill point: the batch is committed in the database and not yet acknowledged on the stream.
 *       The demo kills the process ({@code kill -9}); the partition's next owner gets the entries
 *       again.
 *   <li>pause point: the writer has checked that its lease is valid and is about to write. The demo
 *       freezes the process (SIGSTOP) past its lease, lets a successor take the partition and write,
 *       then thaws it; it writes with its old token, which the database refuses.
 * </ul>
 *
 * <p>A writer stays at a point until struck, or at most {@link #HOLD} (then carries on, and the demo
 * reports the fault as not having happened). Writers started without fault points never look at the
 * plan.
 */
public final class FaultPoints {

  /** The start of the line a writer prints at the kill point. */
  public static final String KILL_POINT = "fault: kill point";
  /** The start of the line a writer prints at the pause point. */
  public static final String PAUSE_POINT = "fault: pause point";

  /** How long a writer stays at a point it claimed, waiting to be struck. */
  static final Duration HOLD = Duration.ofSeconds(30);

  private static final LuaScript CLAIM_FAULT = LuaScript.load(FaultPoints.class, "claim_fault.lua");

  private final boolean enabled;

  /** @param enabled whether this writer looks at the fault plans at all */
  public FaultPoints(boolean enabled) {
    this.enabled = enabled;
  }

  /**
   * Arms the plan of {@code item}'s current sale: kill the first writer to commit a batch of
   * {@code partition}, then pause the next writer about to write a batch of it.
   */
  public static void arm(RedisCommands<String, String> redis, String item, int partition) {
    redis.hset(SaleKeys.faults(item), java.util.Map.of("partition", Integer.toString(partition), "state", "kill"));
  }

  /** After the commit of a batch, before its acknowledgement: the kill point. */
  void afterCommit(RedisCommands<String, String> redis, String writer, String item, int partition, String stream,
      long token, int orders) {
    if (!claim(redis, "after-commit", item, partition, writer, "kill")) {
      return;
    }
    announce(KILL_POINT + " writer=" + writer + " stream=" + stream + " token=" + token + " orders=" + orders);
    long until = System.nanoTime() + HOLD.toNanos();
    while (System.nanoTime() - until < 0) {
      LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
    }
    announce("fault: kill point passed, not killed: writer=" + writer);
  }

  /** After the lease check, before the batch's transaction: the pause point. */
  void beforeWrite(RedisCommands<String, String> redis, String writer, String item, int partition, String stream,
      LockLease lease, int orders) {
    if (!claim(redis, "before-write", item, partition, writer, "pause")) {
      return;
    }
    announce(PAUSE_POINT + " writer=" + writer + " stream=" + stream + " token=" + lease.fencingToken()
        + " orders=" + orders);
    // Stays here while the lease holds: the watchdog keeps it valid until the process is frozen
    // past it, and then the freeze itself ends it.
    long until = System.nanoTime() + HOLD.toNanos();
    while (lease.isValid() && System.nanoTime() - until < 0) {
      LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
    }
  }

  private boolean claim(RedisCommands<String, String> redis, String point, String item, int partition, String writer,
      String fault) {
    if (!enabled) {
      return false;
    }
    List<Object> claimed = CLAIM_FAULT.run(redis, new String[] {SaleKeys.faults(item)}, point,
        Integer.toString(partition), writer);
    return !claimed.isEmpty() && fault.equals(claimed.get(0));
  }

  private static void announce(String line) {
    System.out.println(line);
    System.out.flush();
  }
}

package io.relock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.LockLease;
import io.relock.Relock;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;
import io.relock.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

/**
 * Base of the lock contract tests, written once and run for every driver: a driver module
 * subclasses each contract and says how to connect. Every test talks to a real redis-server
 * started by relock-testkit for the test class.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class RelockContract {
  /** Generous deadline for conditions a test waits for; never a timing assertion. */
  protected static final Duration PATIENCE = Duration.ofSeconds(20);
  protected static final DriverSettings DRIVER_SETTINGS =
      new DriverSettings(Duration.ofSeconds(2), Duration.ofSeconds(2), "relock-test");

  protected RedisServer redis;
  private final List<Relock> clients = new ArrayList<>();

  /** Connects this module's driver. */
  protected abstract RedisDriver connectDriver(String uri, DriverSettings settings);

  @BeforeAll
  void startRedis() {
    redis = startServer();
  }

  /** The server the tests of this class use; overridable to add options (persistence). */
  protected RedisServer startServer() {
    return RedisServer.start();
  }

  @AfterAll
  void stopRedis() {
    redis.close();
  }

  @BeforeEach
  void cleanSlate() {
    if (!redis.isRunning()) {
      redis.restart();
    }
    redis.execute("FLUSHALL");
    redis.execute("CONFIG", "RESETSTAT");
  }

  @AfterEach
  void closeClients() {
    for (Relock c : clients) {
      c.close();
    }
    clients.clear();
  }

  /**
   * A builder connected to {@code uri}, before the test's own settings. Overridden to run a
   * contract on another topology (see {@link RedlockTopology}).
   */
  protected Relock.Builder builderFor(String uri, DriverSettings settings) {
    return Relock.builder().driver(connectDriver(uri, settings));
  }

  protected Relock client() {
    return client(b -> b);
  }

  protected Relock client(UnaryOperator<Relock.Builder> custom) {
    return client(redis.uri(), DRIVER_SETTINGS, custom);
  }

  protected Relock client(String uri, DriverSettings settings, UnaryOperator<Relock.Builder> custom) {
    Relock c = custom.apply(builderFor(uri, settings)).build();
    clients.add(c);
    return c;
  }

  /** A client over {@code driver} (a test's network around this module's driver), closed after the test. */
  protected Relock clientOver(RedisDriver driver, UnaryOperator<Relock.Builder> custom) {
    Relock c = custom.apply(Relock.builder().driver(driver)).build();
    clients.add(c);
    return c;
  }

  protected Object redis(String... args) {
    return redis.execute(args);
  }

  /**
   * Calls of every command INFO commandstats recorded since the last CONFIG RESETSTAT, script
   * commands included, but for the test's own CONFIG and INFO.
   */
  protected java.util.SortedMap<String, Long> commandsSinceReset() {
    java.util.SortedMap<String, Long> calls = new java.util.TreeMap<>();
    for (String line : ((String) redis.execute("INFO", "commandstats")).split("\r?\n")) {
      if (line.startsWith("cmdstat_") && !line.startsWith("cmdstat_config") && !line.startsWith("cmdstat_info")) {
        String n = line.substring(line.indexOf("calls=") + 6);
        calls.put(line.substring("cmdstat_".length(), line.indexOf(':')), Long.parseLong(n.substring(0, n.indexOf(','))));
      }
    }
    return calls;
  }

  /** Calls of one command recorded by INFO commandstats since the last CONFIG RESETSTAT. */
  protected long commandCalls(String command) {
    String stats = (String) redis.execute("INFO", "commandstats");
    for (String line : stats.split("\r?\n")) {
      if (line.startsWith("cmdstat_" + command + ":calls=")) {
        String n = line.substring(("cmdstat_" + command + ":calls=").length());
        return Long.parseLong(n.substring(0, n.indexOf(',')));
      }
    }
    return 0;
  }

  /** Script calls sent by clients: EVALSHA plus SCRIPT LOAD after NOSCRIPT. */
  protected long scriptCalls() {
    return commandCalls("evalsha") + commandCalls("eval");
  }

  protected static void await(String what, BooleanSupplier condition) {
    await(what, PATIENCE, condition);
  }

  protected static void await(String what, Duration patience, BooleanSupplier condition) {
    long deadline = System.nanoTime() + patience.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out after " + patience + " waiting until " + what);
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting until " + what, e);
      }
    }
  }

  /**
   * Holds every write command (relock's scripts included) in Redis for {@code d} or until {@link
   * #unpause()}: calls reach Redis and wait there, as when it is slow. Reads still answer.
   */
  protected void pauseWrites(Duration d) {
    redis("CLIENT", "PAUSE", Long.toString(d.toMillis()), "WRITE");
  }

  protected void unpause() {
    redis("CLIENT", "UNPAUSE");
  }

  /** Waits until {@code n} calls have reached Redis and are held there by {@link #pauseWrites}. */
  protected void awaitCallsHeldByThePause(int n) {
    await(n + " call(s) held in Redis by the pause", () -> {
      String info = (String) redis("INFO", "clients");
      for (String line : info.split("\r?\n")) {
        if (line.startsWith("blocked_clients:")) {
          return Long.parseLong(line.substring("blocked_clients:".length()).trim()) >= n;
        }
      }
      return false;
    });
  }

  /** Waits until nothing of lock {@code name} is left in Redis but its fence. */
  protected void awaitNothingLeftOf(String name) {
    await("lock '" + name + "' is free with nothing queued", () -> redis("EXISTS", lockKey(name)).equals(0L)
        && redis("EXISTS", lockKey(name) + ":q").equals(0L) && redis("EXISTS", lockKey(name) + ":qi").equals(0L));
  }

  /** How many lock names {@code client} keeps local state for (read from its engine, for tests only). */
  public static int localStates(Relock client) {
    return io.relock.internal.TestAccess.localStates(client);
  }

  /** What {@code action} printed on standard error (where slf4j-simple logs). */
  protected static String stderrOf(Runnable action) {
    java.io.PrintStream original = System.err;
    java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
    System.setErr(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      action.run();
    } finally {
      System.setErr(original);
    }
    return captured.toString(java.nio.charset.StandardCharsets.UTF_8);
  }

  /** Lock {@code name} as Redis stores it now, or null if it is free. */
  protected StoredLock stored(String name) {
    return StoredLock.read(redis, lockKey(name));
  }

  /** The owner id holding lock {@code name} in Redis, or null if it is free. */
  protected String holderInRedis(String name) {
    return StoredLock.holder(redis, lockKey(name));
  }

  /**
   * Ends a semaphore's or read-write lock's hold in Redis as its lease running out would: its key
   * {@code lockKey(name) + ":h:" + owner} is gone, and the end it was granted (its score in its
   * holder index) has passed.
   */
  protected void endSharedHold(String holdKey) {
    int at = holdKey.indexOf("}:h:");
    String name = holdKey.substring(0, at + 1);
    String owner = holdKey.substring(at + 4);
    redis("DEL", holdKey);
    for (String index : List.of(":held", ":readers", ":writers")) {
      redis("ZADD", name + index, "XX", "1", owner);
    }
  }

  protected static String lockKey(String name) {
    return "relock:{" + name + "}";
  }

  /**
   * One client's 4 threads take and release with {@code take} as fast as they can; once they have
   * 50 times, another client takes once with {@code take} too. Returns how many times the busy
   * client took while the other waited: what passing within a client lets through ahead of it.
   */
  protected long takenByABusyClientWhileAnotherWaits(BiFunction<Relock, Duration, LockLease> take)
      throws InterruptedException {
    Relock busy = client();
    AtomicLong taken = new AtomicLong();
    AtomicBoolean stop = new AtomicBoolean();
    List<Thread> loopers = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      Thread t = new Thread(() -> {
        while (!stop.get()) {
          try (LockLease lease = take.apply(busy, PATIENCE)) {
            taken.incrementAndGet();
          }
        }
      });
      t.start();
      loopers.add(t);
    }
    try {
      await("the busy client is taking it again and again", () -> taken.get() > 50);
      Relock other = client(b -> b.recheckInterval(Duration.ofMinutes(1)));
      long queuedAt = taken.get();
      LockLease got = take.apply(other, PATIENCE);
      long servedAt = taken.get();
      got.close();
      return servedAt - queuedAt;
    } finally {
      stop.set(true);
      for (Thread t : loopers) {
        t.join(PATIENCE.toMillis());
      }
    }
  }

  /**
   * One client holds {@code name} (whose local state is {@code stateKey}) and has a waiter that
   * follows the hold in the client; another client's waiter queues in Redis. The first client then
   * keeps releasing, each time with a new waiter of its own that asked after the other client's.
   * Returns how many times a release passed within the first client before the other client's
   * waiter got its turn (asserting that it did, within twice the bound of passes ahead), once
   * nothing is left queued.
   */
  protected int passesBeforeAnotherClientsEarlierWaiter(String name, String stateKey,
      BiFunction<Relock, Duration, java.util.concurrent.CompletableFuture<LockLease>> ask) throws Exception {
    int bound = io.relock.internal.TestAccess.passesAhead();
    Relock busy = client(b -> b.recheckInterval(Duration.ofMinutes(1)));
    LockLease held = ask.apply(busy, Duration.ZERO).get(PATIENCE.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    java.util.concurrent.CompletableFuture<LockLease> head = ask.apply(busy, PATIENCE);
    await("our first waiter waits in the client",
        () -> io.relock.internal.TestAccess.localWaiters(busy, stateKey, PATIENCE) == 1);
    java.util.concurrent.CompletableFuture<LockLease> theirs =
        ask.apply(client(b -> b.recheckInterval(Duration.ofMinutes(1))), PATIENCE);
    await("their waiter queued", () -> redis("ZCARD", lockKey(name) + ":q").equals(1L));
    List<java.util.concurrent.CompletableFuture<LockLease>> ours = new ArrayList<>(List.of(head));
    int passes = 0;
    while (passes <= 2 * bound) {
      ours.add(ask.apply(busy, PATIENCE)); // asks after theirs: waits in our client
      await("our next waiter waits in the client",
          () -> io.relock.internal.TestAccess.localWaiters(busy, stateKey, PATIENCE) == 2);
      held.close();
      java.util.concurrent.CompletableFuture.anyOf(head, theirs)
          .get(PATIENCE.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
      if (theirs.isDone()) {
        break;
      }
      held = head.join();
      passes++;
      head = ours.get(ours.size() - 1);
    }
    assertThat(theirs).as("their waiter, after %d passes within our client", passes).isDone();
    theirs.join().close();
    for (java.util.concurrent.CompletableFuture<LockLease> f : ours) {
      if (!f.cancel(true)) {
        f.join().close();
      }
    }
    await("nothing left queued", () -> redis("EXISTS", lockKey(name) + ":q").equals(0L));
    return passes;
  }

  protected void assertNoWaiters(String name) {
    assertThat(redis("ZCARD", lockKey(name) + ":q")).as("queued waiters of " + name).isEqualTo(0L);
    assertThat(redis("HLEN", lockKey(name) + ":qi")).as("waiter entries of " + name).isEqualTo(0L);
  }
}

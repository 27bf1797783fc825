package io.relock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.LockLease;
import io.relock.LockLostException;
import io.relock.LockTimeoutException;
import io.relock.Relock;
import io.relock.RelockException;
import io.relock.internal.TestAccess;
import io.relock.spi.CommandNotSentException;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;
import io.relock.testkit.TcpProxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Connections cut under a client: notifications published while the pub/sub connection is down
 * are lost, so the driver must tell core when it is back, and core re-checks at once.
 */
public abstract class ConnectionLossContract extends RelockContract {
  /** Far longer than the test's patience: only the reconnect can wake the waiter in time. */
  private static final Duration NO_RECHECK = Duration.ofMinutes(2);

  @Test
  void grantLostWhileTheConnectionWasCut_reachesTheWaiterWhenItReconnects_notAtItsNextRecheck() throws Exception {
    try (TcpProxy proxy = TcpProxy.start(redis.host(), redis.port())) {
      Relock holder = client();
      Relock waiter = client(proxy.uri(), DRIVER_SETTINGS, b -> b.recheckInterval(NO_RECHECK));
      LockLease held = holder.lock("cut").acquire(Duration.ZERO);
      CompletableFuture<LockLease> next = waiter.lock("cut").acquireAsync(PATIENCE);
      await("the waiter is queued", () -> redis("ZCARD", lockKey("cut") + ":q").equals(1L));

      proxy.cut();
      held.close(); // grants the lock to the waiter and publishes to a client that cannot hear it
      assertThat(holderInRedis("cut")).as("granted while cut").isNotNull();
      long restored = System.nanoTime();
      proxy.restore();

      LockLease got = next.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
      long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restored);
      System.out.println("connection restored to lock held by the waiter: " + tookMs + " ms");
      assertThat(got.isValid()).isTrue();
      got.close();
    }
    awaitNothingLeftOf("cut");
  }

  /**
   * A release that could not be sent (the holder's connection was down) and then, sent at last,
   * finds the lock held by another owner must report the loss: the failed attempt cannot have
   * released the lock itself, so someone else took it while the lease was believed held (after a
   * restart without persistence, say). A release whose first attempt may have run is different:
   * it could have freed the lock and lost only its reply.
   */
  @Test
  void releaseThatCouldNotBeSent_thenFindsTheLockTaken_reportsTheLoss() throws Exception {
    try (TcpProxy proxy = TcpProxy.start(redis.host(), redis.port())) {
      Relock holder = client(proxy.uri(), DRIVER_SETTINGS, b -> b.commandTimeout(Duration.ofSeconds(5)));
      LockLease lease = holder.lock("unsent").acquire(Duration.ZERO);
      proxy.cut();
      await("the holder's driver knows the connection is down and sends nothing", () -> {
        try {
          holder.lock("probe").isLocked();
          return false;
        } catch (RelockException e) {
          for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof CommandNotSentException) {
              return true;
            }
          }
          return false;
        }
      });
      StoredLock.plant(redis, lockKey("unsent"), "someone-else", 1, Duration.ofMinutes(1));

      CompletableFuture<Throwable> closing = new CompletableFuture<>();
      Thread closer = new Thread(() -> {
        try {
          lease.close();
          closing.complete(null);
        } catch (Throwable t) {
          closing.complete(t);
        }
      }, "closer");
      closer.start();
      await("the release is under way", () -> closer.getState() == Thread.State.WAITING
          || closer.getState() == Thread.State.TIMED_WAITING || closing.isDone());
      proxy.restore();

      assertThat(closing.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).as("what close() threw")
          .isInstanceOf(LockLostException.class);
      assertThat(holderInRedis("unsent")).as("the new owner's hold").isEqualTo("someone-else");
    }
  }

  /**
   * A client closed while Redis cannot be reached returns within its bound, and does not leave its
   * locks to their leases: once Redis can be reached again, the releases it could not get
   * confirmed are made in the background. The lease here (5 minutes) far outlasts the test's
   * patience, so only that release can free the lock in time.
   */
  @Test
  void clientClosedWhileRedisIsUnreachable_releasesItsLocksOnceRedisIsBack() throws Exception {
    try (TcpProxy proxy = TcpProxy.start(redis.host(), redis.port())) {
      Relock holder = client(proxy.uri(), DRIVER_SETTINGS, b -> b.commandTimeout(Duration.ofMillis(300)));
      holder.lock("closed-unreachable").acquire(Duration.ZERO, Duration.ofMinutes(5));
      proxy.cut();
      CompletableFuture<Void> closing = CompletableFuture.runAsync(holder::close);
      closing.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS); // returns with Redis still cut off
      assertThat(holderInRedis("closed-unreachable")).as("nothing reached Redis while it was cut off").isNotNull();
      proxy.restore();
      awaitNothingLeftOf("closed-unreachable");
    }
  }

  /**
   * A hold handed over by another client first lasts its claim time; its confirmation extends it in
   * Redis to the whole lease. Here the network goes down once the confirmation has run, before its
   * reply arrives, and the client is closed: the client's own deadline for the hold is still the
   * claim's end, but Redis holds the lock for the lease. The release must go on trying until then,
   * not give up at the claim's end and leave the lock held for a client that is gone.
   */
  @Test
  void clientClosedAfterAHandOversConfirmationRanButBeforeItsReply_releasesTheLockOnceRedisIsBack()
      throws Exception {
    String name = "confirmed-then-cut";
    Duration recheck = Duration.ofSeconds(3); // a claim of 6 s, confirmed 2 s in
    Duration claim = recheck.multipliedBy(2);
    Duration commandTimeout = Duration.ofMillis(500);
    SteeredNetwork network = new SteeredNetwork(connectDriver(redis.uri(), DRIVER_SETTINGS));
    Relock waiter = clientOver(network, b -> b.recheckInterval(recheck).defaultLease(Duration.ofMinutes(1))
        .commandTimeout(commandTimeout));
    // The only renewal of the lock before the watchdog's first tick (20 s on) is the confirmation.
    SteeredNetwork.Held confirmation = network.outageAfter(c -> c.runs(io.relock.internal.Scripts.RENEW)
        && c.on(lockKey(name)));
    LockLease held = client().lock(name).acquire(Duration.ZERO);
    CompletableFuture<LockLease> next = waiter.lock(name).acquireAsync(PATIENCE);
    await("the waiter is queued", () -> redis("ZCARD", lockKey(name) + ":q").equals(1L));
    held.close(); // hands the lock over for the claim time
    next.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    long handedOver = System.nanoTime();
    await("the hand-over's confirmation ran in Redis", confirmation::ranInRedis);
    assertThat(network.isDown()).isTrue();
    assertThat((Long) redis("PTTL", lockKey(name))).as("extended to the lease").isGreaterThan(claim.toMillis());

    waiter.close(); // returns within its bound, the network still down
    long claimOver = handedOver + claim.plusSeconds(1).toNanos();
    await("the claim has run out, with a second to spare", () -> System.nanoTime() - claimOver > 0);
    assertThat(holderInRedis(name)).as("nothing reached Redis while the network was down").isNotNull();
    network.endOutage();
    awaitNothingLeftOf(name);
  }

  /**
   * A watchdog renewal that ran in Redis, its reply lost with the connection, extended the lock
   * there for a whole lease from when it ran, past the holder's own deadline (which counts from
   * the renewal before). The lease is closed meanwhile: its release must go on trying until Redis
   * may have let the lock go, not give up at the holder's deadline and leave the lock to expire.
   */
  @Test
  void leaseClosedAfterARenewalRanButBeforeItsReply_releasesTheLockOnceRedisIsBack() throws Exception {
    String name = "renewed-then-cut";
    Duration lease = Duration.ofSeconds(6); // a tick every 2 s
    SteeredNetwork network = new SteeredNetwork(connectDriver(redis.uri(), DRIVER_SETTINGS));
    Relock holder = clientOver(network, b -> b.defaultLease(lease).commandTimeout(Duration.ofMillis(300)));
    LockLease held = holder.lock(name).acquire(Duration.ZERO);
    long acquired = System.nanoTime();
    SteeredNetwork.Held renewal = network.outageAfter(c -> c.runs(io.relock.internal.Scripts.RENEW)
        && c.on(lockKey(name)));
    await("a renewal ran in Redis", renewal::ranInRedis);
    assertThat(network.isDown()).isTrue();
    org.assertj.core.api.Assertions.catchThrowable(held::close); // Redis cannot be reached to confirm
    // Past the holder's own deadline (its last renewal, or the acquisition, plus the lease) and the
    // drift allowance, with half a second to spare; Redis holds the lock a while longer.
    long localEnd = acquired + lease.plusMillis(500).toNanos();
    await("the holder's deadline has passed", () -> System.nanoTime() - localEnd > 0);
    long left = (Long) redis("PTTL", lockKey(name));
    assertThat(left).as("Redis holds the lock still").isGreaterThan(500L);
    network.endOutage();
    await("the lock is released before Redis would have let it go", Duration.ofMillis(left - 200),
        () -> redis("EXISTS", lockKey(name)).equals(0L));
  }

  /** A lease known to be lost says so at close(), even if Redis cannot be reached to release it. */
  @Test
  void leaseKnownLost_closedWhileRedisIsUnreachable_throwsLockLost() throws Exception {
    try (TcpProxy proxy = TcpProxy.start(redis.host(), redis.port())) {
      Relock holder = client(proxy.uri(), DRIVER_SETTINGS,
          b -> b.defaultLease(Duration.ofMillis(900)).commandTimeout(Duration.ofMillis(300)));
      LockLease lease = holder.lock("known-lost").acquire(Duration.ZERO);
      CompletableFuture<Void> told = new CompletableFuture<>();
      lease.onLost(() -> told.complete(null));
      StoredLock.plant(redis, lockKey("known-lost"), "someone-else", 1, Duration.ofMinutes(1));
      told.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS); // a renewal found it taken
      proxy.cut();
      Throwable thrown = null;
      try {
        lease.close();
      } catch (RuntimeException e) {
        thrown = e;
      }
      assertThat(thrown).as("what close() threw").isInstanceOf(LockLostException.class);
    }
  }

  /**
   * A grant whose reply reaches the client only after the lease it began would have run out is
   * not handed to the caller: by then the lock may be another's. Every reply here comes 2 x 400 ms
   * after its call, longer than the 300 ms lease, so no grant can ever be live: the caller must get
   * its timeout, never a lease that is lost on arrival, and nothing may be left in Redis.
   */
  @Test
  void aGrantWhoseReplyCameAfterItsLease_isNotHandedToTheCaller() throws Exception {
    try (TcpProxy proxy = TcpProxy.start(redis.host(), redis.port())) {
      Relock slow = client(proxy.uri(), DRIVER_SETTINGS, b -> b.commandTimeout(Duration.ofSeconds(5)));
      slow.lock("warm-up").acquire(Duration.ZERO).close(); // connected, scripts loaded
      proxy.delay(Duration.ofMillis(400));

      assertThatThrownBy(() -> slow.lock("late").acquire(Duration.ofMillis(2500), Duration.ofMillis(300)).close())
          .as("what acquire gave for grants that were over before their replies came")
          .isInstanceOf(LockTimeoutException.class);
      proxy.restore();
    }
    awaitNothingLeftOf("late");
  }

  /** A command timeout that a pause of Redis outlasts, as on a busy machine (the stress suite's). */
  private static final Duration SHORT_COMMANDS = Duration.ofMillis(400);

  /**
   * A client built while Redis is paused: its subscription is not confirmed within the command
   * timeout, yet the client builds, subscribes once Redis is back (once: each message is heard
   * once), and its waiters are woken by notification. Their own re-checks are turned off, so only
   * a notification can wake them in time.
   */
  @Test
  void aClientBuiltWhileRedisIsPaused_builds_andHearsGrantsOnceRedisIsBack() throws Exception {
    Relock holder = client();
    LockLease held = holder.lock("paused-build").acquire(Duration.ZERO);
    HeardNotifications network = new HeardNotifications(connectDriver(redis.uri(),
        new DriverSettings(SHORT_COMMANDS, DRIVER_SETTINGS.connectTimeout(), DRIVER_SETTINGS.clientName())));
    Relock.Builder builder = Relock.builder().driver(network).commandTimeout(SHORT_COMMANDS).recheckInterval(NO_RECHECK);
    Relock built;
    redis.pause();
    try {
      built = builder.build();
    } finally {
      redis.resume();
    }
    try (Relock waiter = built) {
      String channel = "relock:client:" + waiter.clientId();
      await("the client subscribed once Redis was back", () -> subscribers(channel) == 1
          && TestAccess.notificationsSubscribed(waiter));
      CompletableFuture<LockLease> next = waiter.lock("paused-build").acquireAsync(PATIENCE);
      await("the waiter is queued", () -> redis("ZCARD", lockKey("paused-build") + ":q").equals(1L));
      held.close();
      try (LockLease got = next.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)) {
        assertThat(got.isValid()).isTrue();
      }
      assertThat(network.heard()).as("notifications heard: the grant").hasSize(1);

      redis("PUBLISH", channel, "probe 1");
      redis("PUBLISH", channel, "probe 2");
      await("both probes heard", () -> network.heard().contains("probe 2"));
      assertThat(network.heard()).as("each message heard once").containsOnlyOnce("probe 1", "probe 2");
      assertThat(subscribers(channel)).isEqualTo(1L);
    }
  }

  /**
   * Redis paused while the driver itself connects, for longer than a command timeout but within
   * the connect timeout: the driver's handshake and first check wait it out instead of failing, as
   * they fail at once only when Redis cannot be reached or refuses the credentials.
   */
  @Test
  void aDriverConnectingWhileRedisIsPausedForLongerThanACommandTimeout_connectsOnceRedisIsBack() throws Exception {
    DriverSettings settings = new DriverSettings(SHORT_COMMANDS, Duration.ofSeconds(10), DRIVER_SETTINGS.clientName());
    CompletableFuture<RedisDriver> connecting;
    redis.pause();
    try {
      connecting = CompletableFuture.supplyAsync(() -> connectDriver(redis.uri(), settings));
      // The pause must outlast several command timeouts for the test to mean anything; longer is fine.
      Thread.sleep(SHORT_COMMANDS.multipliedBy(3).toMillis());
      assertThat(connecting).as("still connecting while Redis is paused").isNotDone();
    } finally {
      redis.resume();
    }
    RedisDriver driver = connecting.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    try (Relock relock = Relock.builder().driver(driver).commandTimeout(SHORT_COMMANDS).build()) {
      assertThat(relock.lock("paused-connect").tryLock()).isTrue();
      relock.lock("paused-connect").unlock();
    }
  }

  /**
   * A client closed while it still tries to subscribe (Redis paused since before it was built)
   * stops trying, and once Redis is back nothing of it is subscribed or connected.
   */
  @Test
  void aClientClosedWhileItsSubscriptionIsTriedAgain_leavesNothingBehind() {
    String name = "relock-closed-early";
    RedisDriver driver = connectDriver(redis.uri(), new DriverSettings(SHORT_COMMANDS, DRIVER_SETTINGS.connectTimeout(),
        name));
    Relock.Builder builder = Relock.builder().driver(driver).commandTimeout(SHORT_COMMANDS);
    String clientId;
    redis.pause();
    try {
      Relock client = builder.build();
      clientId = client.clientId();
      client.close();
    } finally {
      redis.resume();
    }
    await("nothing of the closed client is subscribed or connected", () -> subscribers("relock:client:" + clientId) == 0
        && !String.valueOf(redis("CLIENT", "LIST")).contains("name=" + name));
    await("the closed client's threads have ended", () -> Thread.getAllStackTraces().keySet().stream()
        .noneMatch(t -> t.getName().endsWith(clientId.substring(0, 8))));
  }

  private long subscribers(String channel) {
    return (Long) ((List<?>) redis("PUBSUB", "NUMSUB", channel)).get(1);
  }

  /** The real driver, recording every message the client hears on its channel. */
  private static final class HeardNotifications implements RedisDriver {
    private final RedisDriver real;
    private final List<String> heard = new CopyOnWriteArrayList<>();

    HeardNotifications(RedisDriver real) {
      this.real = real;
    }

    List<String> heard() {
      return heard;
    }

    @Override
    public CompletableFuture<List<Object>> evalSha(String sha1, List<String> keys, List<String> args) {
      return real.evalSha(sha1, keys, args);
    }

    @Override
    public CompletableFuture<String> scriptLoad(String script) {
      return real.scriptLoad(script);
    }

    @Override
    public CompletableFuture<Void> subscribe(String channel, Consumer<String> listener) {
      return real.subscribe(channel, message -> {
        heard.add(message);
        listener.accept(message);
      });
    }

    @Override
    public void onReconnect(Runnable listener) {
      real.onReconnect(listener);
    }

    @Override
    public boolean timesOutCommands() {
      return real.timesOutCommands();
    }

    @Override
    public void close() {
      real.close();
    }
  }
}

package io.relock.internal;

import io.relock.Relock;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Lets the contract tests read engine constants and state they assert against. */
public final class TestAccess {
  private TestAccess() {}

  public static int passesAhead() {
    return LockEngine.PASSES_AHEAD;
  }

  /** The fewest holds a renewal call looks at (when Redis is slowest, its budget cuts it there). */
  public static int fewestRenewedPerCall() {
    return WatchdogRenewer.BUDGET_STEP;
  }

  /** Whether {@code client} has its subscription to its notification channel confirmed. */
  public static boolean notificationsSubscribed(Relock client) {
    try {
      return engine(client).isSubscribed();
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot read the engine", e);
    }
  }

  /** How many lock names {@code client} keeps local state for. */
  public static int localStates(Relock client) {
    return states(client).size();
  }

  /**
   * Whether an acquisition of {@code client} is queued in Redis for the lock stored at {@code
   * lockKey} and has no call in flight (every reply it got so far is handled): it waits for a
   * grant or its next recheck. Read inside the state's mailbox.
   */
  public static boolean waitsForGrant(Relock client, String lockKey, Duration patience) throws Exception {
    LockState state = states(client).get(lockKey);
    if (state == null) {
      return false;
    }
    CompletableFuture<Boolean> answer = new CompletableFuture<>();
    state.post(() -> answer.complete(state.waitsForGrant()));
    return answer.get(patience.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** How many releases {@code client} has in flight for its local state {@code stateKey}; read inside its mailbox. */
  public static int releasesInFlight(Relock client, String stateKey, Duration patience) {
    return countInMailbox(client, stateKey, patience, LockState::releasesInFlight);
  }

  /**
   * Makes {@code client}'s next release of {@code stateKey} pass the lock within the client only if
   * nobody else waits, as after {@link #passesAhead} passes in a row; inside its mailbox.
   */
  public static void usePassesAhead(Relock client, String stateKey, Duration patience) {
    countInMailbox(client, stateKey, patience, state -> {
      state.usePassesAhead();
      return 0;
    });
  }

  /** How many acquisitions of {@code client} wait in its local queue for {@code stateKey}; read inside its mailbox. */
  public static int localWaiters(Relock client, String stateKey, Duration patience) {
    return countInMailbox(client, stateKey, patience, LockState::localWaiters);
  }

  private static int countInMailbox(Relock client, String stateKey, Duration patience,
      java.util.function.ToIntFunction<LockState> count) {
    LockState state = states(client).get(stateKey);
    if (state == null) {
      return 0;
    }
    CompletableFuture<Integer> answer = new CompletableFuture<>();
    state.post(() -> answer.complete(count.applyAsInt(state)));
    return answer.orTimeout(patience.toMillis(), TimeUnit.MILLISECONDS).join();
  }

  /**
   * Hands {@code message} to {@code client} as if its notification connection had delivered it,
   * and waits until the lock state it names has handled it.
   */
  public static void deliverNotification(Relock client, String message, Duration patience) throws Exception {
    Field notifications = LockEngine.class.getDeclaredField("notifications");
    notifications.setAccessible(true);
    ((Notifications) notifications.get(engine(client))).onNotification(message);
    LockState state = states(client).get(message.substring(message.lastIndexOf(' ') + 1));
    if (state != null) {
      CompletableFuture<Void> handled = new CompletableFuture<>();
      state.post(() -> handled.complete(null));
      handled.get(patience.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /**
   * A Redlock client of masters {@code uris} whose engine reaches them through {@code network}: a
   * wrapper of the Redlock driver the builder would have given it, so that a test steers whole
   * Redlock calls (every master's answer, merged) as the engine sees them. The engine then cannot
   * tell it runs on Redlock where it asks (multi-locks' joint attempts, shared kinds, inspection):
   * for exclusive locks' acquire, release and notices only.
   */
  public static Relock redlockThrough(String[] uris, Duration commandTimeout, Duration defaultLease,
      java.util.function.UnaryOperator<io.relock.spi.RedisDriver> network) throws ReflectiveOperationException {
    RelockSettings.Mutable m = RelockSettings.defaults().toMutable();
    m.commandTimeout = commandTimeout;
    m.defaultLease = defaultLease;
    RelockSettings settings = Topologies.redlockSettings(m.freeze());
    io.relock.spi.RedisDriver redlock = Topologies.connectRedlock(Topologies.redlockNodes(uris), settings);
    LockEngine engine = LockEngine.start(network.apply(redlock), settings, "redlock (steered)");
    java.lang.reflect.Constructor<Relock> make = Relock.class.getDeclaredConstructor(LockEngine.class, String.class);
    make.setAccessible(true);
    return make.newInstance(engine, "redlock");
  }

  /**
   * Holds {@code client}'s timer thread (expiry checks, renewals' schedule, retries' backoff) until
   * the returned handle is closed: what a timer that comes round late (a busy or paused process)
   * lets other threads do first.
   */
  public static AutoCloseable holdTimer(Relock client) throws Exception {
    java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    engine(client).timer.schedule(0, () -> {
      held.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    if (!held.await(30, java.util.concurrent.TimeUnit.SECONDS)) {
      throw new IllegalStateException("the client's timer did not come round");
    }
    return release::countDown;
  }

  private static LockEngine engine(Relock client) throws ReflectiveOperationException {
    Field engineField = Relock.class.getDeclaredField("engine");
    engineField.setAccessible(true);
    return (LockEngine) engineField.get(client);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, LockState> states(Relock client) {
    try {
      Field states = LockEngine.class.getDeclaredField("states");
      states.setAccessible(true);
      return (Map<String, LockState>) states.get(engine(client));
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot read the engine's local state", e);
    }
  }
}

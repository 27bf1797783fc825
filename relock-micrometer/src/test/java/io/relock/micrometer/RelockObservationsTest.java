package io.relock.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.common.KeyValue;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.relock.DistributedLock;
import io.relock.LockLease;
import io.relock.LockLostException;
import io.relock.LockTimeoutException;
import io.relock.Relock;
import io.relock.testkit.Await;
import io.relock.testkit.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link RelockObservations} against a real Redis: every kind and every outcome, their key values,
 * and the nesting under the caller's observation.
 */
@SuppressWarnings("try") // scopes opened for their side effect only
class RelockObservationsTest {

  @RegisterExtension static final RedisExtension redis = new RedisExtension();

  private final List<AutoCloseable> closeLast = new ArrayList<>();
  private final TestObservationRegistry registry = TestObservationRegistry.create();
  /** Every observation started, and those stopped, in order. */
  private final List<Observation.Context> started = new CopyOnWriteArrayList<>();
  private final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

  {
    registry.observationConfig().observationHandler(new ObservationHandler<>() {
      @Override
      public void onStart(Observation.Context context) {
        started.add(context);
      }

      @Override
      public void onStop(Observation.Context context) {
        stopped.add(context);
      }

      @Override
      public boolean supportsContext(Observation.Context context) {
        return true;
      }
    });
  }

  @AfterEach
  void close() throws Exception {
    for (int i = closeLast.size() - 1; i >= 0; i--) {
      closeLast.get(i).close();
    }
  }

  private Relock client() {
    Relock relock = Relock.builder().uri(redis.server().uri()).build();
    closeLast.add(relock);
    return relock;
  }

  private Relock observed() {
    Relock relock = client();
    closeLast.add(RelockObservations.install(relock, registry));
    return relock;
  }

  /** The contexts of the observations called {@code name}, stopped or not, in the order they started. */
  private List<RelockObservationContext> contexts(String name) {
    return started.stream().filter(c -> name.equals(c.getName()) && c instanceof RelockObservationContext)
        .map(RelockObservationContext.class::cast).toList();
  }

  private static String low(Observation.Context c, String key) {
    KeyValue v = c.getLowCardinalityKeyValue(key);
    return v == null ? null : v.getValue();
  }

  private static String high(Observation.Context c, String key) {
    KeyValue v = c.getHighCardinalityKeyValue(key);
    return v == null ? null : v.getValue();
  }

  private void awaitStopped(String what, int observations) {
    Await.until(what, () -> stopped.size() >= observations);
  }

  @Test
  void aWaitAndItsHold_nestUnderTheCallersObservation_withTheirKeyValues() {
    Relock relock = observed();
    Observation request = Observation.start("http.server.requests", registry);
    LockLease lease;
    try (Observation.Scope ignored = request.openScope()) {
      lease = relock.lock("order-42").acquire(Duration.ZERO);
    }
    lease.close();
    request.stop();

    RelockObservationContext wait = contexts(RelockObservations.WAIT).get(0);
    RelockObservationContext hold = contexts(RelockObservations.HOLD).get(0);
    assertThat(wait.getParentObservation()).isSameAs(request);
    assertThat(hold.getParentObservation()).as("a sibling of its wait").isSameAs(request);
    assertThat(low(wait, RelockObservations.KIND)).isEqualTo("lock");
    assertThat(low(wait, RelockObservations.OUTCOME)).isEqualTo("acquired");
    assertThat(low(wait, RelockObservations.TOPOLOGY)).isEqualTo("single");
    assertThat(low(wait, RelockObservations.HANDED_OVER)).isEqualTo("false");
    assertThat(low(wait, RelockObservations.REENTRY)).isEqualTo("false");
    assertThat(high(wait, RelockObservations.LOCK_NAME)).isEqualTo("order-42");
    assertThat(high(wait, RelockObservations.FENCING_TOKEN)).isEqualTo(Long.toString(lease.fencingToken()));
    assertThat(low(hold, RelockObservations.OUTCOME)).isEqualTo("released");
    assertThat(high(hold, RelockObservations.FENCING_TOKEN)).isEqualTo(Long.toString(lease.fencingToken()));
    TestObservationRegistryAssert.assertThat(registry)
        .hasNumberOfObservationsWithNameEqualTo(RelockObservations.WAIT, 1)
        .hasNumberOfObservationsWithNameEqualTo(RelockObservations.HOLD, 1)
        .doesNotHaveAnyRemainingCurrentObservation();
    assertThat(stopped).containsExactlyInAnyOrderElementsOf(started);
  }

  @Test
  void aHandedOverLock_isMarkedSo_andTheWaitCoversTheHoldItWaitedFor() throws Exception {
    Relock relock = observed();
    LockLease first = relock.lock("queue").acquire(Duration.ZERO);
    CompletableFuture<LockLease> second = relock.lock("queue").acquireAsync(Duration.ofSeconds(30));
    // The first's client holds the lock: the second waits in the client, following that hold.
    Await.until("the second waits", () -> relock.stats().acquiring() == 1);
    first.close();
    second.get(30, TimeUnit.SECONDS).close();
    awaitStopped("both waits and holds", 4);
    List<RelockObservationContext> waits = contexts(RelockObservations.WAIT);
    assertThat(low(waits.get(1), RelockObservations.HANDED_OVER)).isEqualTo("true");
    assertThat(low(contexts(RelockObservations.HOLD).get(1), RelockObservations.HANDED_OVER)).isEqualTo("true");
  }

  @Test
  void everyWaitOutcome_isItsOwnValue() throws Exception {
    Relock relock = observed();
    Relock holder = client();
    LockLease held = holder.lock("busy").acquire(Duration.ZERO);

    assertThatThrownBy(() -> relock.lock("busy").acquire(Duration.ofMillis(50))).isInstanceOf(LockTimeoutException.class);

    AtomicReference<Throwable> thrown = new AtomicReference<>();
    Thread waiter = new Thread(() -> {
      try {
        relock.lock("busy").lockInterruptibly();
      } catch (Throwable t) {
        thrown.set(t);
      }
    });
    waiter.start();
    Await.until("the thread waits", () -> relock.inspect("busy").waiters().size() == 1);
    waiter.interrupt();
    waiter.join(30_000);
    assertThat(thrown.get()).isInstanceOf(InterruptedException.class);

    CompletableFuture<LockLease> cancelled = relock.lock("busy").acquireAsync(Duration.ofSeconds(30));
    Await.until("the async acquisition waits", () -> relock.inspect("busy").waiters().size() == 1);
    cancelled.cancel(false);
    awaitStopped("three waits", 3);

    relock.lock("busy").acquireAsync(Duration.ofSeconds(30));
    Await.until("the last acquisition waits", () -> relock.stats().acquiring() == 1);
    relock.close();
    awaitStopped("four waits", 4);
    held.close();

    assertThat(contexts(RelockObservations.WAIT)).extracting(c -> low(c, RelockObservations.OUTCOME))
        .containsExactly("timeout", "interrupted", "cancelled", "error");
    assertThat(contexts(RelockObservations.WAIT)).extracting(c -> low(c, RelockObservations.HANDED_OVER))
        .containsOnly("none");
    assertThat(contexts(RelockObservations.WAIT).get(3).getError()).as("an error is the span's error").isNotNull();
    assertThat(contexts(RelockObservations.WAIT).get(0).getError()).as("a timeout is not").isNull();
    assertThat(contexts(RelockObservations.HOLD)).isEmpty();
  }

  @Test
  void aHoldLost_endsLost_withTheLossAsItsError() {
    Relock relock = observed();
    LockLease lease = relock.lock("taken").acquire(Duration.ZERO);
    client().lock("taken").forceUnlock();
    awaitStopped("the wait and the hold", 2);
    RelockObservationContext hold = contexts(RelockObservations.HOLD).get(0);
    assertThat(low(hold, RelockObservations.OUTCOME)).isEqualTo("lost");
    assertThat(hold.getError()).isInstanceOf(LockLostException.class);
    assertThatThrownBy(lease::close).isInstanceOf(LockLostException.class);
  }

  @Test
  void everyKind_isItsOwnValue_andAReentryHasNoHold() throws Exception {
    Relock relock = observed();
    relock.readWriteLock("rw").readLock().acquire(Duration.ZERO).close();
    relock.readWriteLock("rw").writeLock().acquire(Duration.ZERO).close();
    relock.semaphore("sem", 3).acquire(Duration.ZERO).close();
    relock.multiLock("a", "b").acquire(Duration.ZERO).close();
    DistributedLock lock = relock.lock("again");
    lock.lock();
    lock.lock();
    lock.unlock();
    lock.unlock();

    List<RelockObservationContext> waits = contexts(RelockObservations.WAIT);
    assertThat(waits).extracting(c -> low(c, RelockObservations.KIND))
        .containsExactly("read", "write", "semaphore", "multi_lock", "lock", "lock");
    assertThat(waits).extracting(c -> low(c, RelockObservations.REENTRY))
        .containsExactly("false", "false", "false", "false", "false", "true");
    assertThat(high(waits.get(3), RelockObservations.LOCK_NAME)).isEqualTo("a,b");
    assertThat(contexts(RelockObservations.HOLD)).extracting(c -> low(c, RelockObservations.KIND))
        .containsExactly("read", "write", "semaphore", "multi_lock", "lock");
    assertThat(contexts(RelockObservations.HOLD)).extracting(c -> low(c, RelockObservations.OUTCOME))
        .containsOnly("released");
  }

  @Test
  void asTimers_theLockNameAndTokenAreNeverTags() {
    MeterRegistry meters = new SimpleMeterRegistry();
    ObservationRegistry timed = ObservationRegistry.create();
    timed.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
    Relock relock = client();
    closeLast.add(RelockObservations.install(relock, timed));
    relock.lock("order-7").acquire(Duration.ZERO).close();

    Timer waits = meters.get(RelockObservations.WAIT).tag(RelockObservations.OUTCOME, "acquired").timer();
    assertThat(waits.count()).isEqualTo(1);
    assertThat(waits.getId().getTags()).extracting(t -> t.getKey())
        .contains(RelockObservations.KIND, RelockObservations.TOPOLOGY, RelockObservations.HANDED_OVER)
        .doesNotContain(RelockObservations.LOCK_NAME, RelockObservations.FENCING_TOKEN);
    assertThat(meters.get(RelockObservations.HOLD).tag(RelockObservations.OUTCOME, "released").timer().count())
        .isEqualTo(1);
  }

  @Test
  void aHandlerThatChoosesByName_seesBothObservations() {
    List<String> seen = new CopyOnWriteArrayList<>();
    ObservationRegistry byName = ObservationRegistry.create();
    byName.observationConfig().observationHandler(new ObservationHandler<>() {
      @Override
      public boolean supportsContext(Observation.Context context) {
        return RelockObservations.WAIT.equals(context.getName()) || RelockObservations.HOLD.equals(context.getName());
      }

      @Override
      public void onStop(Observation.Context context) {
        seen.add(context.getName());
      }
    });
    Relock relock = client();
    closeLast.add(RelockObservations.install(relock, byName));
    relock.lock("named").acquire(Duration.ZERO).close();
    assertThat(seen).containsExactly(RelockObservations.WAIT, RelockObservations.HOLD);
  }

  @Test
  void aNoopRegistry_followsNothing_andAClosedHandleStopsFollowing() {
    Relock relock = client();
    closeLast.add(RelockObservations.install(relock, ObservationRegistry.NOOP));
    relock.lock("quiet").acquire(Duration.ZERO).close();

    RelockObservations handle = RelockObservations.install(relock, registry);
    relock.lock("quiet").acquire(Duration.ZERO).close();
    handle.close();
    relock.lock("quiet").acquire(Duration.ZERO).close();
    TestObservationRegistryAssert.assertThat(registry)
        .hasNumberOfObservationsWithNameEqualTo(RelockObservations.WAIT, 1);
  }
}

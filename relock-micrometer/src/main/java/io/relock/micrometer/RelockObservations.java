package io.relock.micrometer;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import io.relock.LockObserver;
import io.relock.Relock;
import java.util.Locale;
import java.util.Objects;

/**
 * Micrometer Observations of one {@link Relock} client's lock waits and holds: with
 * micrometer-tracing, each wait and each hold is a span inside the request that waited; with a
 * meter handler, each is a timer too.
 *
 * <pre>{@code
 * RelockObservations observations = RelockObservations.install(relock, observationRegistry);
 * ...
 * observations.close();   // stops observing acquisitions that start from now on
 * }</pre>
 *
 * <h2>Observations</h2>
 * <ul>
 *   <li>{@value #WAIT}: from the call that acquires until it holds the lock, or gave up. It
 *       starts on the caller's thread, so it is a child of the caller's current observation (the
 *       request's span); it stops on whatever thread learns the outcome (for {@code acquireAsync},
 *       when the future completes).
 *   <li>{@value #HOLD}: from the grant until the release is answered, or the lock is found lost.
 *       A sibling of its wait, under the same parent (it may end on another thread, or after the
 *       caller's own observation, so it is never opened in scope).
 * </ul>
 * A multi-lock is one wait and one hold. A re-entry ({@code lock()} by a thread that holds the
 * lock) is a wait with {@code relock.reentry=true} and no hold of its own.
 *
 * <h2>Key values</h2>
 * <table>
 *   <caption>low cardinality (tags of the timers, attributes of the spans)</caption>
 *   <tr><th>key</th><th>values</th></tr>
 *   <tr><td>{@value #KIND}</td><td>{@code lock}, {@code read}, {@code write}, {@code semaphore},
 *       {@code multi_lock}</td></tr>
 *   <tr><td>{@value #OUTCOME}</td><td>wait: {@code acquired}, {@code timeout}, {@code
 *       interrupted}, {@code cancelled}, {@code error}; hold: {@code released}, {@code lost},
 *       {@code error}</td></tr>
 *   <tr><td>{@value #TOPOLOGY}</td><td>{@code single}, {@code sentinel}, {@code cluster}, {@code
 *       redlock}, {@code driver}</td></tr>
 *   <tr><td>{@value #HANDED_OVER}</td><td>{@code true} if the lock came by hand-over from a
 *       previous holder's release, {@code false} if found free ({@code none} for a wait that
 *       got no lock)</td></tr>
 *   <tr><td>{@value #REENTRY}</td><td>{@code true} for a re-entry (waits only)</td></tr>
 * </table>
 * High cardinality (span attributes only, never meter tags): {@value #LOCK_NAME}, the lock's name,
 * and {@value #FENCING_TOKEN}, the hold's token.
 *
 * <p>A registry that {@link ObservationRegistry#isNoop() is a no-op} records nothing and costs an
 * acquisition one check. Thread-safe.
 */
public final class RelockObservations implements AutoCloseable {

  /** The observation of a lock wait. */
  public static final String WAIT = "relock.lock.wait";
  /** The observation of a hold. */
  public static final String HOLD = "relock.lock.hold";
  /** Low-cardinality key: what was acquired. */
  public static final String KIND = "relock.kind";
  /** Low-cardinality key: how the wait or hold ended. */
  public static final String OUTCOME = "relock.outcome";
  /** Low-cardinality key: the client's topology. */
  public static final String TOPOLOGY = "relock.topology";
  /** Low-cardinality key: whether the lock came by hand-over. */
  public static final String HANDED_OVER = "relock.handed.over";
  /** Low-cardinality key: whether the wait was a re-entry. */
  public static final String REENTRY = "relock.reentry";
  /** High-cardinality key: the lock's name. */
  public static final String LOCK_NAME = "relock.lock.name";
  /** High-cardinality key: the hold's fencing token. */
  public static final String FENCING_TOKEN = "relock.fencing.token";

  private static final Convention WAITS = new Convention(WAIT);
  private static final Convention HOLDS = new Convention(HOLD);

  private final Relock relock;
  private final ObservationRegistry registry;
  private final Observer observer = new Observer();

  private RelockObservations(Relock relock, ObservationRegistry registry) {
    this.relock = relock;
    this.registry = registry;
  }

  /**
   * Observes {@code relock}'s lock waits and holds in {@code registry} from now on.
   *
   * @param relock the client to observe
   * @param registry where the observations go
   * @return a handle; {@link #close()} stops observing
   * @throws NullPointerException if either argument is null
   */
  public static RelockObservations install(Relock relock, ObservationRegistry registry) {
    RelockObservations o = new RelockObservations(Objects.requireNonNull(relock, "relock"),
        Objects.requireNonNull(registry, "registry"));
    relock.addObserver(o.observer);
    return o;
  }

  /** Stops observing acquisitions that start from now on; those under way end as they would. */
  @Override
  public void close() {
    relock.removeObserver(observer);
  }

  private final class Observer implements LockObserver {
    @Override
    public Wait waitStarted(Kind kind, String lockName) {
      if (registry.isNoop()) {
        return null;
      }
      RelockObservationContext context = new RelockObservationContext(WAIT, kind, lockName, relock.topology());
      Observation wait = Observation.createNotStarted(WAITS, () -> context, registry).start();
      Observation parent = context.getParentObservation() instanceof Observation p ? p : null;
      return new Wait() {
        @Override
        public Hold acquired(long fencingToken, boolean handedOver, boolean reentry) {
          context.acquired(fencingToken, handedOver, reentry);
          context.ended(Outcome.ACQUIRED);
          wait.stop();
          if (reentry) {
            return null;
          }
          RelockObservationContext held = new RelockObservationContext(HOLD, kind, lockName, context.topology());
          held.acquired(fencingToken, handedOver, false);
          Observation hold = Observation.createNotStarted(HOLDS, () -> held, registry).parentObservation(parent);
          startAsChildOf(parent, hold);
          return (outcome, error) -> {
            held.ended(outcome);
            if (error != null) {
              hold.error(error);
            }
            hold.stop();
          };
        }

        @Override
        public void failed(Outcome outcome, Throwable error) {
          context.ended(outcome);
          if (outcome == Outcome.ERROR) {
            wait.error(error);
          }
          wait.stop();
        }
      };
    }
  }

  /**
   * Starts {@code hold} under {@code parent} (or under nothing), whatever thread this is. The grant
   * may be learnt on any thread, another request's among them (relock runs a lock's events on the
   * thread that posts them while none is running), and a tracing handler takes the thread's
   * current span as the parent of what starts there, even with a parent observation set: so the
   * parent's scope is opened around the start, or, without a parent, the thread's scope is set
   * aside for it.
   */
  @SuppressWarnings("try") // the scope is opened for its side effect only
  private void startAsChildOf(Observation parent, Observation hold) {
    if (parent != null) {
      try (Observation.Scope ignored = parent.openScope()) {
        hold.start();
      }
      return;
    }
    Observation.Scope current = registry.getCurrentObservationScope();
    if (current == null) {
      hold.start();
      return;
    }
    current.reset();
    try {
      hold.start();
    } finally {
      current.makeCurrent();
    }
  }

  /** The key values of {@value #WAIT} and {@value #HOLD}, read when the observation starts and stops. */
  private static final class Convention implements ObservationConvention<RelockObservationContext> {
    private final String name;

    Convention(String name) {
      this.name = name;
    }

    @Override
    public String getName() {
      return name;
    }

    @Override
    public boolean supportsContext(Observation.Context context) {
      return context instanceof RelockObservationContext;
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(RelockObservationContext c) {
      LockObserver.Outcome outcome = c.outcome();
      KeyValues values = KeyValues.of(
          KIND, lower(c.kind().name()),
          OUTCOME, outcome == null ? "none" : lower(outcome.name()),
          TOPOLOGY, c.topology(),
          HANDED_OVER, c.fencingToken() < 0 ? "none" : Boolean.toString(c.handedOver()));
      return name.equals(WAIT) ? values.and(REENTRY, Boolean.toString(c.reentry())) : values;
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(RelockObservationContext c) {
      KeyValues values = KeyValues.of(LOCK_NAME, c.lockName());
      return c.fencingToken() < 0 ? values : values.and(FENCING_TOKEN, Long.toString(c.fencingToken()));
    }

    private static String lower(String s) {
      return s.toLowerCase(Locale.ROOT);
    }
  }
}

package io.relock.demo.service;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.relock.micrometer.RelockObservations;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Where the purchases' time went, from the observations: the time of each {@value #PURCHASE}
 * observation (one per purchase request, by strategy) and of each {@code relock.lock.wait} (the
 * relock strategy's waits for the item's lock, which the starter observes inside the purchase's).
 * Totals since the service started; {@code GET /timings} returns them.
 */
public final class PurchaseTimings implements ObservationHandler<Observation.Context> {

  /** The observation of one purchase request, with low-cardinality key {@value #STRATEGY}. */
  public static final String PURCHASE = "demo.purchase";
  /** Its strategy key. */
  public static final String STRATEGY = "demo.strategy";

  private static final String STARTED = PurchaseTimings.class.getName() + ".started";

  private final Map<String, LongAdder[]> purchases = new ConcurrentHashMap<>();
  private final LongAdder waits = new LongAdder();
  private final LongAdder waitNanos = new LongAdder();
  private final LongAdder inFlight = new LongAdder();

  @Override
  public boolean supportsContext(Observation.Context context) {
    return PURCHASE.equals(context.getName()) || RelockObservations.WAIT.equals(context.getName());
  }

  @Override
  public void onStart(Observation.Context context) {
    if (PURCHASE.equals(context.getName())) {
      inFlight.increment();
    }
    context.put(STARTED, System.nanoTime());
  }

  @Override
  public void onStop(Observation.Context context) {
    Long started = context.get(STARTED);
    if (started == null) {
      return;
    }
    long took = System.nanoTime() - started;
    if (PURCHASE.equals(context.getName())) {
      inFlight.decrement();
    }
    if (RelockObservations.WAIT.equals(context.getName())) {
      waits.increment();
      waitNanos.add(took);
    } else {
      var strategy = context.getLowCardinalityKeyValue(STRATEGY);
      LongAdder[] sums = purchases.computeIfAbsent(strategy == null ? "?" : strategy.getValue(),
          s -> new LongAdder[] {new LongAdder(), new LongAdder()});
      sums[0].increment();
      sums[1].add(took);
    }
  }

  /**
   * The totals: {@code lockWaits}, {@code lockWaitNanos}, and per strategy {@code purchases} and
   * {@code purchaseNanos}; and {@code inFlight}, the purchases started and not yet answered (an
   * overloaded run leaves some behind after its buyers gave up; the demo waits for them to end
   * before it measures the next strategy).
   */
  Map<String, Object> snapshot() {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("inFlight", inFlight.sum());
    body.put("lockWaits", waits.sum());
    body.put("lockWaitNanos", waitNanos.sum());
    Map<String, Object> byStrategy = new LinkedHashMap<>();
    purchases.forEach((strategy, sums) -> byStrategy.put(strategy,
        Map.of("purchases", sums[0].sum(), "purchaseNanos", sums[1].sum())));
    body.put("strategies", byStrategy);
    return body;
  }
}

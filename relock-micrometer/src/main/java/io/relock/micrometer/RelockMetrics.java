package io.relock.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.relock.LockTimeoutException;
import io.relock.Relock;
import io.relock.RelockListener;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Micrometer meters for one {@link Relock} client, fed by a {@link RelockListener} and {@link
 * Relock#stats()}. Bind it to a registry and close it when the client is done:
 *
 * <pre>{@code
 * RelockMetrics metrics = RelockMetrics.builder(relock).tags(Tags.of("client", "orders")).build();
 * metrics.bindTo(registry);
 * ...
 * metrics.close();   // stops listening and removes the meters
 * }</pre>
 *
 * <h2>Meters</h2>
 * <table>
 *   <caption>every meter, with the tags of {@link Builder#tags} on each</caption>
 *   <tr><th>name</th><th>type</th><th>tags</th><th>what it measures</th></tr>
 *   <tr><td>{@value #ACQUIRE}</td><td>timer</td><td>{@code outcome}, [{@code lock}]</td>
 *       <td>each acquisition, from the call until it held the lock ({@code outcome=acquired}), its
 *       wait ran out ({@code timeout}) or it failed otherwise ({@code error}: Redis failed, the
 *       caller was interrupted or cancelled, the client closed); re-entries included</td></tr>
 *   <tr><td>{@value #HELD}</td><td>timer</td><td>[{@code lock}]</td>
 *       <td>each hold, from its acquisition until its release began</td></tr>
 *   <tr><td>{@value #HOLDS}</td><td>gauge</td><td></td><td>holds now ({@link
 *       io.relock.RelockStats#holds()})</td></tr>
 *   <tr><td>{@value #WAITERS}</td><td>gauge</td><td></td><td>acquisitions under way now ({@link
 *       io.relock.RelockStats#acquiring()})</td></tr>
 *   <tr><td>{@value #LEASES_AT_RISK}</td><td>gauge</td><td></td><td>watchdog-renewed leases whose
 *       last renewal failed ({@link io.relock.RelockStats#leasesAtRisk()})</td></tr>
 *   <tr><td>{@value #LEASES_LOST}</td><td>counter</td><td>[{@code lock}]</td><td>leases found
 *       lost</td></tr>
 *   <tr><td>{@value #RENEWALS}</td><td>counter</td><td></td><td>leases the watchdog
 *       renewed</td></tr>
 *   <tr><td>{@value #RENEWAL_FAILURES}</td><td>counter</td><td></td><td>leases whose renewal call
 *       failed; a lease tried again after a failure is counted at each try</td></tr>
 *   <tr><td>{@value #REDIS_CALLS}</td><td>timer</td><td>{@code script}, {@code outcome}</td>
 *       <td>each Redis round trip: the script ({@code acquire.lua}, {@code renew.lua}, ...) and
 *       {@code outcome=success} or {@code error}</td></tr>
 * </table>
 *
 * <h2>Lock names</h2>
 * Lock names are unbounded (an order id in each), so no meter is tagged with them unless {@link
 * Builder#lockNameTag(Pattern)} says how: the meters marked [{@code lock}] then carry a {@code lock}
 * tag whose value is the pattern's first group (or the whole name if it has none) for names the
 * pattern matches, and {@value #OTHER_LOCKS} for all others. Choose a pattern whose values are
 * few, such as {@code (order|invoice):.*}.
 *
 * <h2>Several clients, several registries</h2>
 * {@link #bindTo} may be called for several registries. Two clients bound to one registry need
 * {@link Builder#tags} that tell them apart; with the same tags they would share every meter, and
 * the gauges would read the first client only.
 *
 * <p>Thread-safe. Listener callbacks only update meters; they never block relock.
 */
public final class RelockMetrics implements MeterBinder, AutoCloseable {

  /** Timer of acquisitions, tagged {@code outcome}. */
  public static final String ACQUIRE = "relock.acquire";
  /** Timer of holds, from acquisition to release. */
  public static final String HELD = "relock.held";
  /** Gauge of the client's holds. */
  public static final String HOLDS = "relock.holds";
  /** Gauge of the client's acquisitions under way. */
  public static final String WAITERS = "relock.waiters";
  /** Gauge of the leases whose last renewal failed. */
  public static final String LEASES_AT_RISK = "relock.leases.at.risk";
  /** Counter of leases found lost. */
  public static final String LEASES_LOST = "relock.leases.lost";
  /** Counter of leases renewed by the watchdog. */
  public static final String RENEWALS = "relock.renewals";
  /** Counter of leases whose renewal call failed. */
  public static final String RENEWAL_FAILURES = "relock.renewal.failures";
  /** Timer of Redis calls, tagged {@code script} and {@code outcome}. */
  public static final String REDIS_CALLS = "relock.redis.calls";

  /** The {@code lock} tag value of names that the lock name pattern does not match. */
  public static final String OTHER_LOCKS = "other";

  private static final List<String> ALL_NAMES = List.of(ACQUIRE, HELD, HOLDS, WAITERS, LEASES_AT_RISK,
      LEASES_LOST, RENEWALS, RENEWAL_FAILURES, REDIS_CALLS);

  private final Relock relock;
  private final Tags tags;
  private final Pattern lockNamePattern;
  private final List<Binding> bindings = new CopyOnWriteArrayList<>();

  private RelockMetrics(Builder b) {
    this.relock = b.relock;
    this.tags = b.tags;
    this.lockNamePattern = b.lockNamePattern;
  }

  /**
   * Meters for {@code relock} with no extra tags and no {@code lock} tag.
   *
   * @param relock the client to measure
   * @return the meters, registered nowhere until {@link #bindTo} is called
   * @throws NullPointerException if {@code relock} is null
   */
  public static RelockMetrics of(Relock relock) {
    return builder(relock).build();
  }

  /**
   * A builder for meters of {@code relock}.
   *
   * @param relock the client to measure
   * @return a new builder, with no extra tags and no {@code lock} tag
   * @throws NullPointerException if {@code relock} is null
   */
  public static Builder builder(Relock relock) {
    return new Builder(relock);
  }

  /**
   * Registers the meters with {@code registry} and starts listening to the client. Each call adds
   * one listener; {@link #close()} removes them all.
   */
  @Override
  public void bindTo(MeterRegistry registry) {
    Objects.requireNonNull(registry, "registry");
    Binding binding = new Binding(registry);
    bindings.add(binding);
    relock.addListener(binding);
  }

  /**
   * Stops listening to the client and removes this binder's meters from every registry it was
   * bound to. Idempotent.
   */
  @Override
  public void close() {
    for (Binding binding : bindings) {
      relock.removeListener(binding);
      bindings.remove(binding);
      for (String name : ALL_NAMES) {
        for (Meter meter : binding.registry.find(name).tags(tags).meters()) {
          binding.registry.remove(meter);
        }
      }
    }
  }

  /** The {@code lock} tag value of {@code lockName}; only called with a pattern set. */
  String lockTag(String lockName) {
    Matcher m = lockNamePattern.matcher(lockName);
    if (!m.matches()) {
      return OTHER_LOCKS;
    }
    if (m.groupCount() >= 1 && m.group(1) != null) {
      return m.group(1);
    }
    return lockName;
  }

  /** The meters in one registry, and the listener that moves them. */
  private final class Binding implements RelockListener {
    private final MeterRegistry registry;
    private final Meter.MeterProvider<Timer> acquire;
    private final Meter.MeterProvider<Timer> held;
    private final Meter.MeterProvider<Counter> lost;
    private final Meter.MeterProvider<Timer> redisCalls;
    // Without a lock tag, the meters are fixed; looked up once.
    private final Timer acquired;
    private final Timer timedOut;
    private final Timer failed;
    private final Timer heldUntagged;
    private final Counter lostUntagged;
    private final Counter renewals;
    private final Counter renewalFailures;

    Binding(MeterRegistry registry) {
      this.registry = registry;
      acquire = Timer.builder(ACQUIRE).tags(tags)
          .description("Acquisitions, from the call until the lock was held or the acquisition gave up")
          .withRegistry(registry);
      held = Timer.builder(HELD).tags(tags)
          .description("Holds, from acquisition until release")
          .withRegistry(registry);
      lost = Counter.builder(LEASES_LOST).tags(tags).baseUnit("leases")
          .description("Leases found lost (expired, taken, or not renewed in time)")
          .withRegistry(registry);
      redisCalls = Timer.builder(REDIS_CALLS).tags(tags)
          .description("Redis round trips, by script")
          .withRegistry(registry);
      renewals = Counter.builder(RENEWALS).tags(tags).baseUnit("leases")
          .description("Leases renewed by the watchdog")
          .register(registry);
      renewalFailures = Counter.builder(RENEWAL_FAILURES).tags(tags).baseUnit("leases")
          .description("Leases whose renewal call to Redis failed")
          .register(registry);
      Gauge.builder(HOLDS, relock, r -> r.stats().holds()).tags(tags)
          .description("Locks held by this client now").register(registry);
      Gauge.builder(WAITERS, relock, r -> r.stats().acquiring()).tags(tags)
          .description("Acquisitions under way now (waiting for the lock or for Redis)").register(registry);
      Gauge.builder(LEASES_AT_RISK, relock, r -> r.stats().leasesAtRisk()).tags(tags)
          .description("Watchdog-renewed leases whose last renewal failed").register(registry);
      if (lockNamePattern == null) {
        acquired = acquire.withTags("outcome", "acquired");
        timedOut = acquire.withTags("outcome", "timeout");
        failed = acquire.withTags("outcome", "error");
        heldUntagged = held.withTags();
        lostUntagged = lost.withTags();
      } else {
        acquired = timedOut = failed = heldUntagged = null;
        lostUntagged = null;
      }
    }

    @Override
    public void acquired(String lockName, Duration waited) {
      Timer t = acquired != null ? acquired : acquire.withTags("outcome", "acquired", "lock", lockTag(lockName));
      t.record(waited);
    }

    @Override
    public void acquireFailed(String lockName, Duration waited, Throwable error) {
      boolean timeout = error instanceof LockTimeoutException;
      Timer t;
      if (lockNamePattern == null) {
        t = timeout ? timedOut : failed;
      } else {
        t = acquire.withTags("outcome", timeout ? "timeout" : "error", "lock", lockTag(lockName));
      }
      t.record(waited);
    }

    @Override
    public void released(String lockName, Duration heldFor) {
      Timer t = heldUntagged != null ? heldUntagged : held.withTags("lock", lockTag(lockName));
      t.record(heldFor);
    }

    @Override
    public void leaseLost(String lockName, String reason) {
      Counter c = lostUntagged != null ? lostUntagged : lost.withTags("lock", lockTag(lockName));
      c.increment();
    }

    @Override
    public void renewed(int leases) {
      renewals.increment(leases);
    }

    @Override
    public void renewalFailed(int leases, Throwable error) {
      renewalFailures.increment(leases);
    }

    @Override
    public void redisCall(String script, Duration took, Throwable error) {
      redisCalls.withTags("script", script, "outcome", error == null ? "success" : "error").record(took);
    }
  }

  /** Builds {@link RelockMetrics}. */
  public static final class Builder {
    private final Relock relock;
    private Tags tags = Tags.empty();
    private Pattern lockNamePattern;

    private Builder(Relock relock) {
      this.relock = Objects.requireNonNull(relock, "relock");
    }

    /**
     * Tags added to every meter, e.g. {@code client=orders} to tell two clients apart.
     *
     * @param tags the tags; they replace those of an earlier call
     * @return this builder
     * @throws NullPointerException if {@code tags} is null
     */
    public Builder tags(Iterable<Tag> tags) {
      this.tags = Tags.of(Objects.requireNonNull(tags, "tags"));
      return this;
    }

    /**
     * Tags the per-lock meters with {@code lock}: the first group of {@code pattern} (or the whole
     * name when it has no group) for lock names it matches entirely, {@value #OTHER_LOCKS} for the
     * rest. Null (the default) adds no {@code lock} tag. Each distinct value is a time series of
     * its own: keep them few.
     *
     * @param pattern the pattern a lock name must match entirely to get a tag value of its own;
     *     null for no {@code lock} tag
     * @return this builder
     */
    public Builder lockNameTag(Pattern pattern) {
      this.lockNamePattern = pattern;
      return this;
    }

    /**
     * As {@link #lockNameTag(Pattern)}, from a regular expression.
     *
     * @param regex the pattern, in {@link Pattern} syntax; null for no {@code lock} tag
     * @return this builder
     * @throws IllegalArgumentException if {@code regex} is not a valid regular expression; the
     *     message names it
     */
    public Builder lockNameTag(String regex) {
      if (regex == null) {
        this.lockNamePattern = null;
        return this;
      }
      try {
        this.lockNamePattern = Pattern.compile(regex);
      } catch (java.util.regex.PatternSyntaxException e) {
        throw new IllegalArgumentException("lock name tag pattern '" + regex + "' is not a regular expression: "
            + e.getDescription(), e);
      }
      return this;
    }

    /**
     * Builds the meters with this builder's settings.
     *
     * @return the meters, registered nowhere until {@link RelockMetrics#bindTo} is called
     */
    public RelockMetrics build() {
      return new RelockMetrics(this);
    }
  }
}

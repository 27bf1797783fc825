package io.relock.internal;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A client's settings, fixed when it is built.
 *
 * @param keyPrefix prefix of every key and channel
 * @param defaultLease lease of acquisitions without an explicit one; renewed every third of it
 * @param clockDrift how much sooner than Redis the client treats a lease as over; null means 1% of
 *     the lease plus 2 ms
 * @param commandTimeout how long one Redis command may take
 * @param connectTimeout how long connecting may take
 * @param recheckInterval longest time a waiter waits for a notification before checking itself
 * @param fenceRetention how long a lock's fence key is kept after last use
 * @param replicaAcks replicas that must acknowledge an acquisition before it counts; 0 for none
 * @param replicaAckTimeout how long Redis waits for those acknowledgements ({@code WAIT})
 * @param redlockRestartDelay on Redlock: how long a node that lost its data stays out of every
 *     majority, and the longest lease allowed; null elsewhere
 */
public record RelockSettings(
    String keyPrefix,
    Duration defaultLease,
    Duration clockDrift,
    Duration commandTimeout,
    Duration connectTimeout,
    Duration recheckInterval,
    Duration fenceRetention,
    int replicaAcks,
    Duration replicaAckTimeout,
    Duration redlockRestartDelay) {

  public static RelockSettings defaults() {
    return new RelockSettings("relock:", Duration.ofSeconds(30), null, Duration.ofSeconds(3),
        Duration.ofSeconds(5), Duration.ofSeconds(1), Duration.ofDays(7), 0, Duration.ZERO, null);
  }

  /** The drift allowance for a lease of the given length. */
  public Duration driftFor(Duration lease) {
    return Duration.ofNanos(driftNanosFor(TimeUnit.NANOSECONDS.convert(lease)));
  }

  /**
   * {@link #driftFor} in nanoseconds, for a lease of {@code leaseMillis}: on every acquisition's
   * path, so plain arithmetic ({@code Duration.dividedBy} goes through {@code BigDecimal}).
   */
  public long driftNanosForMillis(long leaseMillis) {
    return driftNanosFor(TimeUnit.MILLISECONDS.toNanos(leaseMillis));
  }

  private long driftNanosFor(long leaseNanos) {
    return clockDrift != null ? clockDrift.toNanos() : leaseNanos / 100 + TWO_MILLIS_NANOS;
  }

  private static final long TWO_MILLIS_NANOS = 2_000_000L;

  public Mutable toMutable() {
    Mutable m = new Mutable();
    m.keyPrefix = keyPrefix;
    m.defaultLease = defaultLease;
    m.clockDrift = clockDrift;
    m.commandTimeout = commandTimeout;
    m.connectTimeout = connectTimeout;
    m.recheckInterval = recheckInterval;
    m.fenceRetention = fenceRetention;
    m.replicaAcks = replicaAcks;
    m.replicaAckTimeout = replicaAckTimeout;
    m.redlockRestartDelay = redlockRestartDelay;
    return m;
  }

  /** The builder's working copy. */
  public static final class Mutable {
    public String keyPrefix;
    public Duration defaultLease;
    public Duration clockDrift;
    public Duration commandTimeout;
    public Duration connectTimeout;
    public Duration recheckInterval;
    public Duration fenceRetention;
    public int replicaAcks;
    public Duration replicaAckTimeout;
    public Duration redlockRestartDelay;

    public RelockSettings freeze() {
      return new RelockSettings(keyPrefix, defaultLease, clockDrift, commandTimeout, connectTimeout,
          recheckInterval, fenceRetention, replicaAcks, replicaAckTimeout, redlockRestartDelay);
    }
  }
}

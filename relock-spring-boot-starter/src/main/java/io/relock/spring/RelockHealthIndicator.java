package io.relock.spring;

import io.relock.Relock;
import io.relock.RelockException;
import io.relock.RelockStats;
import io.relock.spi.RedisUri;
import java.time.Duration;
import java.util.Objects;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

/**
 * Health of a {@link Relock} client, named {@code relock}: up when Redis answers a ping and the
 * watchdog keeps up with its renewals ({@link RelockStats#leasesAtRisk()} is 0); down otherwise.
 * Details: {@code roundTrip} (the ping, when it answered), {@code holds}, {@code acquiring}, {@code
 * leasesAtRisk}, and {@code error} or {@code reason} when down. Each check makes one Redis round
 * trip, bounded by the command timeout.
 */
public class RelockHealthIndicator implements HealthIndicator {

  private final Relock relock;

  /**
   * An indicator of one client.
   *
   * @param relock the client to check
   * @throws NullPointerException if {@code relock} is null
   */
  public RelockHealthIndicator(Relock relock) {
    this.relock = Objects.requireNonNull(relock, "relock");
  }

  @Override
  public Health health() {
    Health.Builder health;
    try {
      Duration roundTrip = relock.ping();
      health = Health.up().withDetail("roundTrip", String.format(java.util.Locale.ROOT, "%.3f ms",
          roundTrip.toNanos() / 1e6));
    } catch (RelockException e) {
      // relock's messages hide passwords already; the details are often public, so once more.
      health = Health.down().withDetail("error", RedisUri.redact(e.getMessage()));
    }
    RelockStats stats = relock.stats();
    health.withDetail("holds", stats.holds())
        .withDetail("acquiring", stats.acquiring())
        .withDetail("leasesAtRisk", stats.leasesAtRisk());
    if (stats.leasesAtRisk() > 0) {
      health.down().withDetail("reason", stats.leasesAtRisk() + " lease(s) could not be renewed at the watchdog's"
          + " last tick; they will be lost unless a renewal succeeds before they run out");
    }
    return health.build();
  }
}

package io.relock.bench;

import io.relock.DistributedLock;
import io.relock.LockLease;
import io.relock.Relock;
import java.time.Duration;

/**
 * relock as its README shows it: {@code lock(name).acquire(wait)} with the default lease, which
 * the watchdog renews, and {@code close()} on the lease to release.
 */
final class RelockLocks implements LockClient {

  private static final Duration WAIT = Duration.ofMinutes(10);

  private final Relock relock;

  RelockLocks(String redisUri, Duration lease) {
    this.relock = Relock.builder().uri(redisUri).defaultLease(lease).build();
  }

  @Override
  public BenchLock lock(String name) {
    DistributedLock lock = relock.lock(name);
    return () -> {
      LockLease lease = lock.acquire(WAIT);
      return lease::close;
    };
  }

  @Override
  public void close() {
    relock.close();
  }
}

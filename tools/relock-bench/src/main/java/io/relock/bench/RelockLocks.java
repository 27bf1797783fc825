package io.relock.bench;

import io.relock.DistributedLock;
import io.relock.DistributedSemaphore;
import io.relock.LockLease;
import io.relock.Relock;
import java.time.Duration;

/**
 * relock as its README shows it: {@code lock(name).acquire(wait)} with the default lease, which
 * the watchdog renews, and {@code close()} on the lease to release. On Sentinel through {@code
 * builder().sentinel(...)}, on a cluster through {@code builder().cluster(...)}, on independent
 * masters through {@code builder().redlock(...)}; with {@code acks}, each acquisition also waits
 * for one replica's acknowledgement ({@code replicaAcks(1, 500 ms)}). The lock family the same
 * way: {@code readWriteLock(name).readLock()} / {@code writeLock()} and {@code semaphore(name,
 * permits)}, each {@code acquire(wait)} with the default lease and {@code close()} on the lease.
 */
final class RelockLocks implements LockClient, LockClient.Family {

  private static final Duration WAIT = Duration.ofMinutes(10);
  /** The replicas {@code relock+acks} waits for, and how long. */
  static final int ACK_REPLICAS = 1;
  static final Duration ACK_TIMEOUT = Duration.ofMillis(500);

  private final Relock relock;

  RelockLocks(BenchTarget target, Duration lease, boolean acks) {
    Relock.Builder builder = builderFor(target);
    if (acks) {
      builder.replicaAcks(ACK_REPLICAS, ACK_TIMEOUT);
    }
    this.relock = builder.defaultLease(lease).build();
  }

  /** A builder pointed at {@code target}'s topology, nothing else set. */
  static Relock.Builder builderFor(BenchTarget target) {
    Relock.Builder builder = Relock.builder();
    switch (target.topology()) {
      case SINGLE -> builder.uri(target.uri());
      case SENTINEL -> builder.sentinel(target.masterName(), target.nodeUris().toArray(new String[0]));
      case CLUSTER -> builder.cluster(target.nodeUris().toArray(new String[0]));
      case REDLOCK -> builder.redlock(target.nodeUris().toArray(new String[0]));
      default -> throw new IllegalArgumentException("unknown topology " + target.topology());
    }
    return builder;
  }

  @Override
  public BenchLock lock(String name) {
    return leases(relock.lock(name));
  }

  @Override
  public BenchLock readLock(String name) {
    return leases(relock.readWriteLock(name).readLock());
  }

  @Override
  public BenchLock writeLock(String name) {
    return leases(relock.readWriteLock(name).writeLock());
  }

  @Override
  public BenchLock semaphore(String name, int permits) {
    DistributedSemaphore semaphore = relock.semaphore(name, permits);
    return () -> {
      LockLease lease = semaphore.acquire(WAIT);
      return lease::close;
    };
  }

  @Override
  public Hold tryPermit(String name, int permits) {
    return relock.semaphore(name, permits).tryAcquire(Duration.ZERO).<Hold>map(lease -> lease::close).orElse(null);
  }

  private static BenchLock leases(DistributedLock lock) {
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

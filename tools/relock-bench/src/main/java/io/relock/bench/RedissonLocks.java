package io.relock.bench;

import java.time.Duration;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson's {@code RLock} with its defaults: {@code lock()} without a lease time, so the lock
 * watchdog renews it every third of {@code lockWatchdogTimeout} until {@code unlock()}; waiting
 * through a pub/sub subscription per lock name. On Sentinel through {@code useSentinelServers()},
 * on a cluster through {@code useClusterServers()}, otherwise with their defaults too: among them
 * {@code checkLockSyncedSlaves} (on), so where the primary has replicas Redisson follows each
 * lock and unlock with a {@code WAIT} for them (up to {@code slavesSyncTimeout}, 1 s).
 *
 * <p>The lock family: {@code RReadWriteLock}'s {@code readLock()} and {@code writeLock()} (each an
 * {@code RLock}, watchdog-renewed, {@code lockInterruptibly()} / {@code unlock()}), and {@code
 * RPermitExpirableSemaphore}, the Redisson semaphore whose permits have ids as relock's leases do:
 * {@code trySetPermits(permits)}, then {@code acquire()} (a permit without a lease time, kept until
 * released: Redisson renews no permit) and {@code release(permitId)}.
 */
final class RedissonLocks implements LockClient, LockClient.Family {

  private final RedissonClient redisson;

  RedissonLocks(BenchTarget target, Duration lease) {
    Config config = new Config();
    switch (target.topology()) {
      case SINGLE -> config.useSingleServer().setAddress(target.uri());
      case SENTINEL -> config.useSentinelServers().setMasterName(target.masterName())
          .addSentinelAddress(target.nodeUris().toArray(new String[0]));
      case CLUSTER -> config.useClusterServers().addNodeAddress(target.nodeUris().toArray(new String[0]));
      case REDLOCK -> throw new IllegalArgumentException("on Redlock's masters Redisson runs as redisson-redlock");
      default -> throw new IllegalArgumentException("unknown topology " + target.topology());
    }
    config.setLockWatchdogTimeout(lease.toMillis());
    this.redisson = Redisson.create(config);
  }

  @Override
  public BenchLock lock(String name) {
    return locking(redisson.getLock("redisson:" + name));
  }

  @Override
  public BenchLock readLock(String name) {
    return locking(redisson.getReadWriteLock("redisson:" + name).readLock());
  }

  @Override
  public BenchLock writeLock(String name) {
    return locking(redisson.getReadWriteLock("redisson:" + name).writeLock());
  }

  @Override
  public BenchLock semaphore(String name, int permits) {
    RPermitExpirableSemaphore semaphore = redisson.getPermitExpirableSemaphore("redisson:" + name);
    // Sets the permits only where none are set yet: every thread of every worker calls it.
    semaphore.trySetPermits(permits);
    return () -> {
      String permit = semaphore.acquire();
      return () -> semaphore.release(permit);
    };
  }

  @Override
  public Hold tryPermit(String name, int permits) {
    RPermitExpirableSemaphore semaphore = redisson.getPermitExpirableSemaphore("redisson:" + name);
    String permit = semaphore.tryAcquire();
    return permit == null ? null : () -> semaphore.release(permit);
  }

  private static BenchLock locking(RLock lock) {
    return () -> {
      lock.lockInterruptibly();
      return lock::unlock;
    };
  }

  @Override
  public void close() {
    // No quiet period: the bench's windows are over when a client closes.
    redisson.shutdown(0, 5, java.util.concurrent.TimeUnit.SECONDS);
  }
}

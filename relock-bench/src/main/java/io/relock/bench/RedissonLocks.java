package io.relock.bench;

import java.time.Duration;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson's {@code RLock} with its defaults: {@code lock()} without a lease time, so the lock
 * watchdog renews it every third of {@code lockWatchdogTimeout} until {@code unlock()}; waiting
 * through a pub/sub subscription per lock name.
 */
final class RedissonLocks implements LockClient {

  private final RedissonClient redisson;

  RedissonLocks(String redisUri, Duration lease) {
    Config config = new Config();
    config.useSingleServer().setAddress(redisUri);
    config.setLockWatchdogTimeout(lease.toMillis());
    this.redisson = Redisson.create(config);
  }

  @Override
  public BenchLock lock(String name) {
    RLock lock = redisson.getLock("redisson:" + name);
    return () -> {
      lock.lockInterruptibly();
      return lock::unlock;
    };
  }

  @Override
  public void close() {
    redisson.shutdown();
  }
}

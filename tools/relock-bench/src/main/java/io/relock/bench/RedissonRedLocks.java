package io.relock.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.redisson.Redisson;
import org.redisson.RedissonRedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson's Redlock as its documentation sets it up: one {@code RedissonClient} per master, each
 * with {@code useSingleServer()} and otherwise default settings, and a {@code RedissonRedLock} over
 * one {@code RLock} of the same name from each. {@code RedissonRedLock} is deprecated since
 * Redisson 3.x, but it is the Redlock Redisson users run.
 *
 * <p>{@code lockInterruptibly()} without a lease time: each master's {@code RLock} is then kept
 * by its own client's lock watchdog, renewed every third of {@code lockWatchdogTimeout}, as the
 * single-server {@code redisson} row is. What it does per acquisition (Redisson 4.3.0, {@code
 * RedissonMultiLock.tryLock}): it locks the masters one after another, each for up to {@code
 * 1500 ms} of waiting (through a pub/sub subscription on that master), and gives up on this round
 * (unlocking what it took, then starting over) once more masters have refused than a majority
 * allows; {@code unlock()} unlocks every master at once. It hands out no fencing token.
 */
final class RedissonRedLocks implements LockClient {

  private final List<RedissonClient> clients = new ArrayList<>();

  RedissonRedLocks(BenchTarget target, Duration lease) {
    try {
      for (String uri : target.nodeUris()) {
        Config config = new Config();
        config.useSingleServer().setAddress(uri);
        config.setLockWatchdogTimeout(lease.toMillis());
        clients.add(Redisson.create(config));
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  @Override
  @SuppressWarnings("deprecation") // RedissonRedLock: deprecated, and what this row measures
  public BenchLock lock(String name) {
    RLock[] perMaster = clients.stream().map(c -> c.getLock("redisson:" + name)).toArray(RLock[]::new);
    RedissonRedLock lock = new RedissonRedLock(perMaster);
    return () -> {
      lock.lockInterruptibly();
      return lock::unlock;
    };
  }

  @Override
  public void close() {
    // No quiet period: the bench's windows are over when a client closes.
    clients.forEach(c -> c.shutdown(0, 5, java.util.concurrent.TimeUnit.SECONDS));
  }
}

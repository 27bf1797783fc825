package io.relock.bench;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.locks.Lock;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;

/**
 * Spring Integration's {@link RedisLockRegistry} as a Spring Boot application gets it: a Lettuce
 * connection factory, the registry's defaults (locks expire after their lease, no renewal task),
 * in spin mode (retry every 100 ms, the registry's default) or pub/sub mode (wait for the
 * unlock message). Threads of one JVM that want the same lock first queue on the registry's local
 * {@code ReentrantLock}, so only one of them talks to Redis.
 */
final class SpringRegistryLocks implements LockClient {

  private final LettuceConnectionFactory connections;
  private final RedisLockRegistry registry;

  SpringRegistryLocks(String redisUri, Duration lease, RedisLockType type) {
    URI uri = URI.create(redisUri);
    connections = new LettuceConnectionFactory(new RedisStandaloneConfiguration(uri.getHost(), uri.getPort()));
    connections.afterPropertiesSet();
    connections.start();
    registry = new RedisLockRegistry(connections, "spring-" + type.name().toLowerCase(), lease.toMillis());
    registry.setRedisLockType(type);
  }

  @Override
  public BenchLock lock(String name) {
    Lock lock = registry.obtain(name);
    return () -> {
      lock.lockInterruptibly();
      return lock::unlock;
    };
  }

  @Override
  public void close() {
    registry.destroy();
    connections.destroy();
  }
}

package io.relock.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.relock.internal.LockKeys;
import io.relock.internal.LuaScript;
import io.relock.internal.ScriptCalls;
import io.relock.internal.Scripts;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * The Redis-bound limit: relock's own acquire and release scripts sent by a plain Lettuce
 * connection, one {@code EVALSHA} each, with no lock logic around them (no owner bookkeeping, no
 * watchdog, no waiting) and without blocking threads: each of the T loops sends its next command
 * from the reply callback (see {@link Pipelined}), so T commands are in flight as with T threads.
 * It can only take free locks, so it runs in the uncontended scenario only; there it is about the
 * most any Java client of these scripts can get out of this Redis on this machine.
 */
final class ScriptLimit implements LockClient, LockClient.Pipelined {

  private static final String PREFIX = "limit:";
  private static final long QUEUE_ENTRY_MILLIS = 3000;
  private static final long CLAIM_MILLIS = 2000;
  private static final String NOTIFY_CHANNEL = "limit:notify";
  private static final String FENCE_RETENTION_MILLIS = String.valueOf(Duration.ofDays(7).toMillis());

  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final RedisCommands<String, String> redis;
  private final RedisAsyncCommands<String, String> async;
  private final long leaseMillis;
  private final String acquireSha;
  private final String releaseSha;

  ScriptLimit(String redisUri, Duration lease) {
    this.client = RedisClient.create(redisUri);
    this.connection = client.connect();
    this.redis = connection.sync();
    this.async = connection.async();
    this.leaseMillis = lease.toMillis();
    this.acquireSha = load(Scripts.ACQUIRE);
    this.releaseSha = load(Scripts.RELEASE);
  }

  private String load(LuaScript script) {
    String sha = redis.scriptLoad(script.source());
    if (!sha.equals(script.sha1())) {
      throw new IllegalStateException("Redis hashed " + script + " to " + sha + ", relock to " + script.sha1());
    }
    return sha;
  }

  /** The arguments relock sends for a blocking acquire ('wait') of a lease. */
  private String[] acquireArgs(String owner) {
    return ScriptCalls.acquire(owner, leaseMillis, "wait", FENCE_RETENTION_MILLIS, QUEUE_ENTRY_MILLIS, CLAIM_MILLIS,
        false, NOTIFY_CHANNEL).toArray(new String[0]);
  }

  /** Every hold at once, as relock releases a lease, with no successor to pass it to. */
  private static String[] releaseArgs(String owner) {
    return ScriptCalls.release(owner, true, false, FENCE_RETENTION_MILLIS, null, false).toArray(new String[0]);
  }

  private static String[] keys(String name) {
    return ScriptCalls.keys(LockKeys.of(PREFIX, name)).toArray(new String[0]);
  }

  @Override
  public BenchLock lock(String name) {
    String[] keys = keys(name);
    return () -> {
      String owner = UUID.randomUUID().toString();
      List<Object> reply = redis.evalsha(acquireSha, ScriptOutputType.MULTI, keys, acquireArgs(owner));
      if (!Long.valueOf(1).equals(reply.get(0))) {
        throw new IllegalStateException("the limit client found lock " + name + " taken: " + reply);
      }
      return () -> redis.evalsha(releaseSha, ScriptOutputType.MULTI, keys, releaseArgs(owner));
    };
  }

  @Override
  public CompletableFuture<Long> acquireRelease(String name) {
    String[] keys = keys(name);
    String owner = UUID.randomUUID().toString();
    long began = System.nanoTime();
    return async.<List<Object>>evalsha(acquireSha, ScriptOutputType.MULTI, keys, acquireArgs(owner))
        .toCompletableFuture()
        .thenCompose(reply -> {
          long latency = System.nanoTime() - began;
          if (!Long.valueOf(1).equals(reply.get(0))) {
            throw new IllegalStateException("the limit client found lock " + name + " taken: " + reply);
          }
          return async.<List<Object>>evalsha(releaseSha, ScriptOutputType.MULTI, keys, releaseArgs(owner))
              .toCompletableFuture().thenApply(released -> latency);
        });
  }

  @Override
  public void close() {
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }
}

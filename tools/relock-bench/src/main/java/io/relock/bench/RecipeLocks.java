package io.relock.bench;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Duration;
import java.util.UUID;

/**
 * The lock every "Redis lock in ten lines" article shows: {@code SET key owner NX PX lease} with
 * a random owner, retried every 10 ms while the key exists, released by a Lua compare-and-delete.
 * No renewal, no queue, no notification: whoever retries first after a release wins. On Sentinel a
 * Lettuce client on the {@code redis-sentinel://} URI; on a cluster a Lettuce cluster client,
 * which routes each command by its key and loads the script on every node.
 */
final class RecipeLocks implements LockClient {

  static final String RELEASE_SCRIPT =
      "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";
  private static final long POLL_MILLIS = 10;

  private final AbstractRedisClient client;
  private final StatefulConnection<String, String> connection;
  private final RedisClusterCommands<String, String> redis;
  private final String releaseSha;
  private final SetArgs setArgs;

  RecipeLocks(BenchTarget target, Duration lease) {
    if (target.topology() == BenchTarget.Topology.CLUSTER) {
      RedisClusterClient cluster = RedisClusterClient.create(target.nodeUris().stream().map(RedisURI::create).toList());
      StatefulRedisClusterConnection<String, String> c = cluster.connect();
      this.client = cluster;
      this.connection = c;
      this.redis = c.sync();
    } else {
      RedisClient single = RedisClient.create(target.uri());
      StatefulRedisConnection<String, String> c = single.connect();
      this.client = single;
      this.connection = c;
      this.redis = c.sync();
    }
    this.releaseSha = redis.scriptLoad(RELEASE_SCRIPT);
    this.setArgs = SetArgs.Builder.nx().px(lease.toMillis());
  }

  @Override
  public BenchLock lock(String name) {
    String key = "recipe:" + name;
    return () -> {
      String owner = UUID.randomUUID().toString();
      while (!"OK".equals(redis.set(key, owner, setArgs))) {
        Thread.sleep(POLL_MILLIS);
      }
      return () -> redis.evalsha(releaseSha, ScriptOutputType.INTEGER, new String[] {key}, owner);
    };
  }

  @Override
  public void close() {
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }
}

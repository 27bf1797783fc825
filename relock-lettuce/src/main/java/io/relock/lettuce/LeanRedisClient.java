package io.relock.lettuce;

import io.lettuce.core.RedisChannelWriter;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisReactiveCommandsImpl;
import io.lettuce.core.RedisURI;
import io.lettuce.core.StatefulRedisConnectionImpl;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.protocol.PushHandler;
import io.lettuce.core.pubsub.PubSubEndpoint;
import io.lettuce.core.pubsub.RedisPubSubReactiveCommandsImpl;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnectionImpl;
import io.lettuce.core.pubsub.api.sync.RedisPubSubCommands;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;

/**
 * The {@link RedisClient} the driver creates for itself: its connections offer only the
 * asynchronous API, which is all the driver uses. Lettuce builds each connection's synchronous and
 * reactive facades eagerly; the first reflects over every command method (hundreds) to build a
 * proxy, the second loads Reactor's publishers. In a fresh JVM that was about 0.4 to 0.8 s of the
 * first connection on our 2-core machine (connect and subscribe: 1.6 to 2.2 s with them, 1.2 to
 * 1.4 s without). {@code sync()} and {@code reactive()} of these connections return null.
 *
 * <p>A client given to {@link LettuceDriver#using} is the caller's and keeps every facade.
 */
final class LeanRedisClient extends RedisClient {

  LeanRedisClient(ClientResources resources) {
    super(resources, new RedisURI());
  }

  @Override
  protected <K, V> StatefulRedisConnectionImpl<K, V> newStatefulRedisConnection(RedisChannelWriter writer,
      PushHandler pushHandler, RedisCodec<K, V> codec, Duration timeout) {
    return new StatefulRedisConnectionImpl<>(writer, pushHandler, codec, timeout) {
      @Override
      protected RedisCommands<K, V> newRedisSyncCommandsImpl() {
        return null;
      }

      @Override
      protected RedisReactiveCommandsImpl<K, V> newRedisReactiveCommandsImpl() {
        return null;
      }
    };
  }

  @Override
  protected <K, V> StatefulRedisPubSubConnectionImpl<K, V> newStatefulRedisPubSubConnection(
      PubSubEndpoint<K, V> endpoint, RedisChannelWriter writer, RedisCodec<K, V> codec, Duration timeout) {
    return new StatefulRedisPubSubConnectionImpl<>(endpoint, writer, codec, timeout) {
      @Override
      protected RedisPubSubCommands<K, V> newRedisSyncCommandsImpl() {
        return null;
      }

      @Override
      protected RedisPubSubReactiveCommandsImpl<K, V> newRedisReactiveCommandsImpl() {
        return null;
      }
    };
  }
}

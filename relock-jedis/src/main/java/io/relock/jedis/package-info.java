/**
 * relock's Jedis driver. Put this module on the class path and {@code Relock.connect(uri)} uses
 * it; or pass {@link io.relock.jedis.JedisDriver#connect(redis.clients.jedis.HostAndPort,
 * redis.clients.jedis.JedisClientConfig, int)} Jedis settings of your own to {@code
 * Relock.builder().driver(...)}.
 *
 * <p>Where to start: {@link io.relock.jedis.JedisDriver} (commands on pooled connections, run by
 * worker threads), then {@code ChannelSubscriber} (the pub/sub thread), {@code SentinelPrimary}
 * (asking the sentinels where the primary is) and {@code JedisClientConfigs} (Jedis settings for a
 * URI that core's {@code RedisUri} parsed, TLS trust).
 */
package io.relock.jedis;

/**
 * Real Redis for tests: {@link io.relock.testkit.RedisServer} starts {@code redis-server}
 * processes on free ports, {@link io.relock.testkit.RedisExtension} ties one to a JUnit 5 test
 * class, {@link io.relock.testkit.RedisSentinelGroup} and {@link io.relock.testkit.RedisClusterGroup}
 * start replicated topologies and fail them over, {@link io.relock.testkit.TcpProxy} injects network faults between a client and Redis,
 * {@link io.relock.testkit.JvmProcess} runs child JVMs for multi-process tests, and
 * {@link io.relock.testkit.Await} waits for a condition with a generous deadline.
 *
 * <p>Everything else in this package is package-private and may change without notice.
 * Linux only: processes are paused and resumed with {@code kill -STOP}/{@code -CONT}.
 */
package io.relock.testkit;

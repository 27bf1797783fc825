package io.relock.bench;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The held-locks scenario for one implementation: {@code locks} locks held under the watchdog for
 * {@code seconds}, in a worker process of its own.
 */
record HeldRow(Implementation impl, int locks, double seconds, double renewalTickSeconds,
    double acquireSeconds, RedisInfo.Delta redis, double clientCpuSeconds, long heapBytes,
    long keysAtStart, long keysAtEnd) {

  long clientCalls() {
    return redis.clientCalls(impl.directDataCommands());
  }

  double callsPerSecond() {
    return clientCalls() / seconds;
  }

  /** Client calls in one renewal period of the watchdog, averaged over the window. */
  double callsPerTick() {
    return clientCalls() / (seconds / renewalTickSeconds);
  }

  Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("scenario", "held");
    m.put("impl", impl.id());
    m.put("locks", locks);
    m.put("seconds", seconds);
    m.put("renewal_tick_s", renewalTickSeconds);
    m.put("acquire_all_s", acquireSeconds);
    m.put("client_calls", clientCalls());
    m.put("calls_per_s", callsPerSecond());
    m.put("calls_per_renewal_tick", callsPerTick());
    m.put("script_calls", redis.scriptCalls(impl.directDataCommands()));
    m.put("redis_cpu_s", redis.redisCpuSeconds());
    m.put("client_cpu_s", clientCpuSeconds);
    m.put("client_heap_bytes", heapBytes);
    m.put("keys_at_start", keysAtStart);
    m.put("keys_at_end", keysAtEnd);
    m.put("commands", redis.withoutHarness());
    return m;
  }
}

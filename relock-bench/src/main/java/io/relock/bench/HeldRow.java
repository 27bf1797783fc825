package io.relock.bench;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The held-locks scenario for one implementation: {@code locks} locks held under the watchdog for
 * {@code seconds}, in a worker process of its own. Heap figures are the worker's heap after GC
 * minus its heap before the client was created ({@code idleClientHeapBytes}: right after it
 * connected, before it took any lock). Client and script calls are told apart by
 * {@code MONITOR} over the whole window (the call rate is low enough not to matter). {@code stall}
 * comes from a window of its own after that one, without {@code MONITOR}, which slows scripts down.
 */
record HeldRow(Implementation impl, int locks, double seconds, double renewalTickSeconds,
    double acquireSeconds, RedisInfo.Delta redis, double clientCpuSeconds, long heapBytes, long idleClientHeapBytes,
    long keysAtStart, long keysAtEnd, CallSplit split, StallSample stall) {

  long clientCalls() {
    return split.clientCalls(redis.withoutHarness(), impl.directDataCommands());
  }

  long scriptCalls() {
    return split.scriptCalls(redis.withoutHarness(), impl.directDataCommands());
  }

  double callsPerSecond() {
    return clientCalls() / seconds;
  }

  /** Client calls in one renewal period of the watchdog, averaged over the window. */
  double callsPerTick() {
    return clientCalls() / (seconds / renewalTickSeconds);
  }

  /** Heap per held lock: the heap holding them minus the connected client's heap before. */
  double bytesPerLock() {
    return (double) (heapBytes - idleClientHeapBytes) / locks;
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
    m.put("script_calls", scriptCalls());
    m.put("redis_cpu_s", redis.redisCpuSeconds());
    m.put("client_cpu_s", clientCpuSeconds);
    m.put("client_heap_bytes", heapBytes);
    m.put("idle_client_heap_bytes", idleClientHeapBytes);
    m.put("heap_bytes_per_lock", bytesPerLock());
    m.put("keys_at_start", keysAtStart);
    m.put("keys_at_end", keysAtEnd);
    m.put("stall_window_s", stall.windowSeconds());
    m.put("worst_stall_us", stall.worstMicros());
    m.put("slow_commands_over_" + StallSample.THRESHOLD_MICROS + "us", stall.measured() ? stall.slowCommands() : null);
    m.put("slowest_command", stall.slowestCommand());
    m.put("stall_not_measured_because", stall.notMeasuredBecause());
    m.put("commands", redis.withoutHarness());
    m.put("calls_told_apart_by", split.calibrated() ? "MONITOR over the whole window" : "command names");
    m.put("monitor_client_vs_script", split.describe());
    return m;
  }
}

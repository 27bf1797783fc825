package io.relock.bench;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The held-locks scenario for one implementation: {@code locks} locks held under the watchdog for
 * {@code seconds}, in a worker process of its own. Heap figures are the worker's heap after GC
 * minus its heap before the client was created ({@code idleClientHeapBytes}: right after it
 * connected, before it took any lock); Redis memory is {@code used_memory} with the locks held
 * minus before they were taken. Client and script calls are told apart by {@code MONITOR} over the
 * counted window (the call rate is low enough not to matter). The renewal figures (the worst
 * stall, calls per tick) come from a quiet window of their own after that one, without {@code
 * MONITOR}, which slows scripts down, and so makes a watchdog whose batches are bounded by time
 * send more of them. {@code fixedWork}: a script of fixed work run after it (see {@link
 * BenchRedis#fixedWork}), or null if not measured.
 */
record HeldRow(Implementation impl, int locks, double seconds, double renewalTickSeconds,
    double acquireSeconds, RedisInfo.Delta redis, double clientCpuSeconds, long heapBytes, long idleClientHeapBytes,
    long redisMemoryBytes, long keysAtStart, long keysAtEnd, CallSplit split, BenchRedis.QuietWindow quiet,
    StallSample fixedWork) {

  long clientCalls() {
    return split.clientCalls(redis.withoutHarness(), impl.directDataCommands());
  }

  long scriptCalls() {
    return split.scriptCalls(redis.withoutHarness(), impl.directDataCommands());
  }

  double callsPerSecond() {
    return clientCalls() / seconds;
  }

  /** Client calls in one renewal period of the watchdog, in the quiet window (see {@link RenewalTicks}). */
  double callsPerTick() {
    return quiet.ticks().callsPerTick();
  }

  /** The worst stall of the quiet window. */
  StallSample stall() {
    return quiet.stall();
  }

  /** Heap per held lock: the heap holding them minus the connected client's heap before. */
  double bytesPerLock() {
    return (double) (heapBytes - idleClientHeapBytes) / locks;
  }

  /** Redis memory per held lock (its keys, fence keys included, and their expiry entries). */
  double redisBytesPerLock() {
    return (double) redisMemoryBytes / locks;
  }

  Map<String, Object> toJson() {
    StallSample stall = stall();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("scenario", "held");
    m.put("impl", impl.id());
    m.put("locks", locks);
    m.put("seconds", seconds);
    m.put("renewal_tick_s", renewalTickSeconds);
    m.put("acquire_all_s", acquireSeconds);
    m.put("client_calls", clientCalls());
    m.put("calls_per_s", callsPerSecond());
    m.put("script_calls", scriptCalls());
    m.put("redis_cpu_s", redis.redisCpuSeconds());
    m.put("client_cpu_s", clientCpuSeconds);
    m.put("client_heap_bytes", heapBytes);
    m.put("idle_client_heap_bytes", idleClientHeapBytes);
    m.put("heap_bytes_per_lock", bytesPerLock());
    m.put("redis_memory_bytes", redisMemoryBytes);
    m.put("redis_bytes_per_lock", redisBytesPerLock());
    m.put("keys_at_start", keysAtStart);
    m.put("keys_at_end", keysAtEnd);
    m.put("quiet_window_s", quiet.seconds());
    m.put("calls_per_renewal_tick", callsPerTick());
    m.put("quiet_client_calls", quiet.ticks().calls());
    m.put("quiet_renewal_bursts", quiet.ticks().bursts());
    m.put("quiet_redis_cpu_s", quiet.redis().redisCpuSeconds());
    m.put("worst_stall_us", stall.worstMicros());
    m.put("median_slow_command_us", stall.medianMicros());
    m.put("p99_slow_command_us", stall.p99Micros());
    m.put("slow_commands_over_" + StallSample.THRESHOLD_MICROS + "us", stall.measured() ? stall.slowCommands() : null);
    m.put("slowest_command", stall.slowestCommand());
    m.put("stall_not_measured_because", stall.notMeasuredBecause());
    m.put("fixed_work_us", Bench.FIXED_WORK_MICROS);
    m.put("fixed_work_median_us", fixedWork == null ? null : fixedWork.medianMicros());
    m.put("fixed_work_p99_us", fixedWork == null ? null : fixedWork.p99Micros());
    m.put("fixed_work_worst_us", fixedWork == null ? null : fixedWork.worstMicros());
    m.put("commands", redis.withoutHarness());
    m.put("calls_told_apart_by", split.calibrated() ? "MONITOR over the whole window" : "command names");
    m.put("monitor_client_vs_script", split.describe());
    return m;
  }
}

package io.relock.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One implementation measured in one load scenario (uncontended, contended in one JVM, contended
 * across processes), with the figures the results file, the table and the chart show.
 */
final class Row {
  final String scenario;
  final Implementation impl;
  final int processes;
  final int threadsPerProcess;
  final double seconds;
  final LatencyHistogram latencies;
  final List<Long> perProcess;
  final long[] perThread;
  final RedisInfo.Delta redis;
  final double clientCpuSeconds;
  final long errors;
  final String firstError;
  final int stragglers;
  final CallSplit split;
  /** The largest share of the window any worker's JIT compilers spent compiling. */
  final double jitShare;
  /** Load run in this configuration before the counted window (re-measured windows included), s. */
  final double warmupSeconds;

  Row(String scenario, Implementation impl, int processes, int threadsPerProcess, double seconds,
      LatencyHistogram latencies, List<Long> perProcess, long[] perThread, RedisInfo.Delta redis,
      double clientCpuSeconds, long errors, String firstError, int stragglers, CallSplit split, double jitShare,
      double warmupSeconds) {
    this.scenario = scenario;
    this.impl = impl;
    this.processes = processes;
    this.threadsPerProcess = threadsPerProcess;
    this.seconds = seconds;
    this.latencies = latencies;
    this.perProcess = List.copyOf(perProcess);
    this.perThread = perThread.clone();
    this.redis = redis;
    this.clientCpuSeconds = clientCpuSeconds;
    this.errors = errors;
    this.firstError = firstError;
    this.stragglers = stragglers;
    this.split = split;
    this.jitShare = jitShare;
    this.warmupSeconds = warmupSeconds;
  }

  /** This row with client and script calls told apart by {@code calibration}. */
  Row withSplit(CallSplit calibration) {
    return new Row(scenario, impl, processes, threadsPerProcess, seconds, latencies, perProcess, perThread, redis,
        clientCpuSeconds, errors, firstError, stragglers, calibration, jitShare, warmupSeconds);
  }

  /** This row, counting {@code seconds} more of warm-up before it. */
  Row afterWarmup(double seconds) {
    return new Row(scenario, impl, processes, threadsPerProcess, this.seconds, latencies, perProcess, perThread,
        redis, clientCpuSeconds, errors, firstError, stragglers, split, jitShare, warmupSeconds + seconds);
  }

  long acquisitions() {
    return latencies.count();
  }

  double perSecond() {
    return acquisitions() / seconds;
  }

  long clientCalls() {
    return split.clientCalls(redis.withoutHarness(), impl.directDataCommands());
  }

  long scriptCalls() {
    return split.scriptCalls(redis.withoutHarness(), impl.directDataCommands());
  }

  /** Commands clients sent per counted acquisition (its release included). */
  double callsPerAcquisition() {
    return perAcquisition(clientCalls());
  }

  double scriptCallsPerAcquisition() {
    return perAcquisition(scriptCalls());
  }

  /** Every command Redis executed per acquisition: the clients' plus those their scripts ran. */
  double allCommandsPerAcquisition() {
    return perAcquisition(clientCalls() + scriptCalls());
  }

  private double perAcquisition(double total) {
    return acquisitions() == 0 ? Double.NaN : total / acquisitions();
  }

  /** A latency percentile in milliseconds; NaN when nothing was acquired in the window. */
  double millis(double percentile) {
    return acquisitions() == 0 ? Double.NaN : latencies.percentile(percentile) / 1e6;
  }

  /** The longest acquire in milliseconds; NaN when nothing was acquired in the window. */
  double maxMillis() {
    return acquisitions() == 0 ? Double.NaN : latencies.max() / 1e6;
  }

  /** Jain's index of the acquisitions per process: 1 is perfectly even, 1/n is one process only. */
  double processFairness() {
    return Fairness.jainIndex(perProcess);
  }

  /** The least any process got, relative to the mean per process; 0 means a process starved. */
  double minProcessShare() {
    return Fairness.minShare(perProcess);
  }

  Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("scenario", scenario);
    m.put("impl", impl.id());
    m.put("processes", processes);
    m.put("threads_per_process", threadsPerProcess);
    m.put("seconds", seconds);
    m.put("warmup_s", warmupSeconds);
    m.put("jit_share_of_window", jitShare);
    m.put("acquisitions", acquisitions());
    m.put("acquisitions_per_s", perSecond());
    Map<String, Object> latency = new LinkedHashMap<>();
    latency.put("p50", millis(50));
    latency.put("p99", millis(99));
    latency.put("p999", millis(99.9));
    latency.put("max", maxMillis());
    latency.put("mean", acquisitions() == 0 ? Double.NaN : latencies.mean() / 1e6);
    m.put("latency_ms", latency);
    m.put("client_calls", clientCalls());
    m.put("calls_per_acquisition", callsPerAcquisition());
    m.put("script_calls_per_acquisition", scriptCallsPerAcquisition());
    m.put("all_commands_per_acquisition", allCommandsPerAcquisition());
    m.put("redis_cpu_s", redis.redisCpuSeconds());
    m.put("redis_cpu_us_per_acquisition", perAcquisition(redis.redisCpuSeconds() * 1e6));
    m.put("client_cpu_s", clientCpuSeconds);
    m.put("client_cpu_us_per_acquisition", perAcquisition(clientCpuSeconds * 1e6));
    m.put("per_process", perProcess);
    List<Long> threads = new ArrayList<>();
    for (long c : perThread) {
      threads.add(c);
    }
    m.put("per_thread", threads);
    m.put("process_fairness_jain", processFairness());
    m.put("min_process_share", minProcessShare());
    m.put("errors", errors);
    if (!firstError.isEmpty()) {
      m.put("first_error", firstError);
    }
    m.put("stragglers", stragglers);
    m.put("commands", redis.withoutHarness());
    m.put("calls_told_apart_by", split.calibrated() ? "MONITOR calibration window" : "command names");
    m.put("calibration_client_vs_script", split.describe());
    return m;
  }
}

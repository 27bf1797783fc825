package io.relock.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * One implementation measured in one load configuration (uncontended, contended in one JVM,
 * contended across processes; a number of processes and threads), over several consecutive
 * measuring windows. Each figure the tables, ratios and targets use is the median over the
 * windows ({@link #spread} gives the lowest and highest window too), except the longest wait (the
 * longest in any window), the least served process (the least in any window) and the JIT share
 * (the largest in any window).
 */
final class Row {

  /**
   * One measuring window of a row, every process's figures added up.
   *
   * @param seconds its length
   * @param latencies the acquisitions counted in it
   * @param perProcess acquisitions per worker process
   * @param perThread acquisitions per thread, process after process
   * @param redis what Redis counted during it (calls and CPU)
   * @param clientCpuSeconds process CPU of the workers during it
   * @param serverCpuSeconds CPU of a lock server that is not Redis (ZooKeeper, etcd, PostgreSQL)
   *     during it, NaN where the implementation runs on Redis or it was not measured
   * @param errors failed acquisitions and releases in it
   * @param jitShare the largest share of it any worker's JIT compilers spent compiling
   * @param machineBusy the share (0..1) of the machine's CPU time that was busy during it, whoever
   *     used it; below 1 the cores were not what limited the load. NaN where unknown
   */
  record Window(double seconds, LatencyHistogram latencies, List<Long> perProcess, long[] perThread,
      RedisInfo.Delta redis, double clientCpuSeconds, double serverCpuSeconds, long errors, double jitShare,
      double machineBusy) {

    Window {
      perProcess = List.copyOf(perProcess);
      perThread = perThread.clone();
    }

    long acquisitions() {
      return latencies.count();
    }

    double perSecond() {
      return acquisitions() / seconds;
    }

    double perAcquisition(double total) {
      return acquisitions() == 0 ? Double.NaN : total / acquisitions();
    }

    double millis(double percentile) {
      return acquisitions() == 0 ? Double.NaN : latencies.percentile(percentile) / 1e6;
    }
  }

  final String scenario;
  final Implementation impl;
  final int processes;
  final int threadsPerProcess;
  final List<Window> windows;
  final CallSplit split;
  /** Load run in this configuration before the counted windows (windows taken again included), s. */
  final double warmupSeconds;
  final int stragglers;
  final String firstError;
  /** What each acquisition took: the exclusive lock, or for a lock family row its read-write lock or semaphore. */
  final Workload workload;
  /** For a lock family row, what the hold check saw over its runs (counted windows or not); null otherwise. */
  final LoadPhase.Checked checked;

  Row(String scenario, Implementation impl, int processes, int threadsPerProcess, List<Window> windows,
      CallSplit split, double warmupSeconds, int stragglers, String firstError) {
    this(scenario, impl, processes, threadsPerProcess, windows, split, warmupSeconds, stragglers, firstError,
        Workload.EXCLUSIVE, null);
  }

  Row(String scenario, Implementation impl, int processes, int threadsPerProcess, List<Window> windows,
      CallSplit split, double warmupSeconds, int stragglers, String firstError, Workload workload,
      LoadPhase.Checked checked) {
    if (windows.isEmpty()) {
      throw new IllegalArgumentException("a row needs at least one window");
    }
    this.scenario = scenario;
    this.impl = impl;
    this.processes = processes;
    this.threadsPerProcess = threadsPerProcess;
    this.windows = List.copyOf(windows);
    this.split = split;
    this.warmupSeconds = warmupSeconds;
    this.stragglers = stragglers;
    this.firstError = firstError;
    this.workload = workload;
    this.checked = checked;
  }

  /** This row with client and script calls told apart by {@code calibration}. */
  Row withSplit(CallSplit calibration) {
    return new Row(scenario, impl, processes, threadsPerProcess, windows, calibration, warmupSeconds, stragglers,
        firstError, workload, checked);
  }

  /** Whether this is a lock family row (a read-write lock or a semaphore). */
  boolean family() {
    return workload.kind() != Workload.Kind.EXCLUSIVE;
  }

  /** Share of the acquisitions that were reads, over all its runs; NaN off a read-write row. */
  double readShare() {
    return checked == null || workload.kind() != Workload.Kind.READ_WRITE || checked.reads() + checked.writes() == 0
        ? Double.NaN : (double) checked.reads() / (checked.reads() + checked.writes());
  }

  /** A figure over the windows. */
  Spread spread(ToDoubleFunction<Window> figure) {
    return Spread.of(windows.stream().mapToDouble(figure).toArray());
  }

  /** Acquisitions counted in all windows together. */
  long acquisitions() {
    return windows.stream().mapToLong(Window::acquisitions).sum();
  }

  double seconds() {
    return windows.stream().mapToDouble(Window::seconds).sum();
  }

  /** Acquisitions per second, the median window's. */
  double perSecond() {
    return spread(Window::perSecond).median();
  }

  /** A latency percentile in milliseconds, the median of the windows'; NaN when nothing was acquired. */
  double millis(double percentile) {
    return spread(w -> w.millis(percentile)).median();
  }

  /** The longest acquire of any window in milliseconds; NaN when nothing was acquired. */
  double maxMillis() {
    return acquisitions() == 0 ? Double.NaN
        : windows.stream().mapToLong(w -> w.latencies().max()).max().orElse(0) / 1e6;
  }

  long clientCalls(Window w) {
    return split.clientCalls(w.redis().withoutHarness(), impl.directDataCommands());
  }

  long scriptCalls(Window w) {
    return split.scriptCalls(w.redis().withoutHarness(), impl.directDataCommands());
  }

  /** Commands clients sent per acquisition (its release included), the median window's; NaN off Redis. */
  double callsPerAcquisition() {
    return impl.usesRedis() ? spread(w -> w.perAcquisition(clientCalls(w))).median() : Double.NaN;
  }

  double scriptCallsPerAcquisition() {
    return impl.usesRedis() ? spread(w -> w.perAcquisition(scriptCalls(w))).median() : Double.NaN;
  }

  /** Every command Redis executed per acquisition, the clients' plus those their scripts ran; NaN off Redis. */
  double allCommandsPerAcquisition() {
    return impl.usesRedis() ? spread(w -> w.perAcquisition(clientCalls(w) + scriptCalls(w))).median() : Double.NaN;
  }

  /**
   * CPU the lock server used per acquisition, in microseconds: Redis's from {@code INFO cpu}, the
   * others' from their processes' CPU time.
   */
  double serverCpuMicrosPerAcquisition() {
    return spread(w -> w.perAcquisition(1e6 * (impl.usesRedis() ? w.redis().redisCpuSeconds() : w.serverCpuSeconds())))
        .median();
  }

  double clientCpuMicrosPerAcquisition() {
    return spread(w -> w.perAcquisition(1e6 * w.clientCpuSeconds())).median();
  }

  long errors() {
    return windows.stream().mapToLong(Window::errors).sum();
  }

  /** The largest share of any window any worker's JIT compilers spent compiling. */
  double jitShare() {
    return windows.stream().mapToDouble(Window::jitShare).max().orElse(0);
  }

  /** Jain's index of the acquisitions per process, the median window's: 1 is even, 1/n is one process only. */
  double processFairness() {
    return spread(w -> Fairness.jainIndex(w.perProcess())).median();
  }

  /** The least any process got in any window, relative to that window's mean; 0 means a process starved. */
  double minProcessShare() {
    return windows.stream().mapToDouble(w -> Fairness.minShare(w.perProcess())).min().orElse(1);
  }

  /** Acquisitions per process over all windows. */
  List<Long> perProcess() {
    List<Long> sum = new ArrayList<>();
    for (Window w : windows) {
      for (int p = 0; p < w.perProcess().size(); p++) {
        if (sum.size() <= p) {
          sum.add(0L);
        }
        sum.set(p, sum.get(p) + w.perProcess().get(p));
      }
    }
    return sum;
  }

  /** Acquisitions per thread over all windows, process after process. */
  List<Long> perThread() {
    long[] sum = new long[windows.get(0).perThread().length];
    for (Window w : windows) {
      for (int t = 0; t < Math.min(sum.length, w.perThread().length); t++) {
        sum[t] += w.perThread()[t];
      }
    }
    return java.util.Arrays.stream(sum).boxed().toList();
  }

  /** Calls per command over all windows, the harness's own left out. */
  Map<String, Long> commands() {
    Map<String, Long> sum = new java.util.TreeMap<>();
    windows.forEach(w -> w.redis().withoutHarness().forEach((k, v) -> sum.merge(k, v, Long::sum)));
    return sum;
  }

  Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("scenario", scenario);
    m.put("impl", impl.id());
    if (family()) {
      m.put("workload", workload.toJson());
      m.put("hold_check", checked == null ? null : checked.toJson());
      m.put("read_share", readShare());
    }
    m.put("processes", processes);
    m.put("threads_per_process", threadsPerProcess);
    m.put("windows_counted", windows.size());
    m.put("seconds", seconds());
    m.put("warmup_s", warmupSeconds);
    m.put("jit_share_of_window", jitShare());
    m.put("machine_busy_share", spread(Row.Window::machineBusy).median());
    m.put("acquisitions", acquisitions());
    m.put("acquisitions_per_s", perSecond());
    Map<String, Object> latency = new LinkedHashMap<>();
    latency.put("p50", millis(50));
    latency.put("p99", millis(99));
    latency.put("p999", millis(99.9));
    latency.put("max", maxMillis());
    latency.put("mean", spread(w -> w.acquisitions() == 0 ? Double.NaN : w.latencies().mean() / 1e6).median());
    m.put("latency_ms", latency);
    m.put("client_calls", impl.usesRedis() ? windows.stream().mapToLong(this::clientCalls).sum() : null);
    m.put("calls_per_acquisition", callsPerAcquisition());
    m.put("script_calls_per_acquisition", scriptCallsPerAcquisition());
    m.put("all_commands_per_acquisition", allCommandsPerAcquisition());
    m.put("redis_cpu_s", impl.usesRedis() ? windows.stream().mapToDouble(w -> w.redis().redisCpuSeconds()).sum() : null);
    m.put("redis_cpu_us_per_acquisition", impl.usesRedis() ? serverCpuMicrosPerAcquisition() : Double.NaN);
    if (!impl.usesRedis()) {
      m.put("server_cpu_us_per_acquisition", serverCpuMicrosPerAcquisition());
    }
    m.put("client_cpu_s", windows.stream().mapToDouble(Window::clientCpuSeconds).sum());
    m.put("client_cpu_us_per_acquisition", clientCpuMicrosPerAcquisition());
    m.put("per_process", perProcess());
    m.put("per_thread", perThread());
    m.put("process_fairness_jain", processFairness());
    m.put("min_process_share", minProcessShare());
    m.put("errors", errors());
    if (!firstError.isEmpty()) {
      m.put("first_error", firstError);
    }
    m.put("stragglers", stragglers);
    if (impl.usesRedis()) {
      m.put("commands", commands());
    }
    Map<String, Object> spread = new LinkedHashMap<>();
    spread.put("acquisitions_per_s", spreadJson(spread(Window::perSecond)));
    spread.put("p50_ms", spreadJson(spread(w -> w.millis(50))));
    spread.put("p99_ms", spreadJson(spread(w -> w.millis(99))));
    m.put("spread_over_windows", spread);
    List<Object> perWindow = new ArrayList<>();
    for (Window w : windows) {
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("seconds", w.seconds());
      j.put("acquisitions", w.acquisitions());
      j.put("acquisitions_per_s", w.perSecond());
      j.put("p50_ms", w.millis(50));
      j.put("p99_ms", w.millis(99));
      j.put("max_ms", w.acquisitions() == 0 ? Double.NaN : w.latencies().max() / 1e6);
      j.put("per_process", w.perProcess());
      j.put("per_thread", java.util.Arrays.stream(w.perThread()).boxed().toList());
      if (impl.usesRedis()) {
        j.put("client_calls", clientCalls(w));
        j.put("script_calls", scriptCalls(w));
        j.put("redis_cpu_s", w.redis().redisCpuSeconds());
        j.put("commands", w.redis().withoutHarness());
      } else {
        j.put("server_cpu_s", w.serverCpuSeconds());
      }
      j.put("client_cpu_s", w.clientCpuSeconds());
      j.put("jit_share", w.jitShare());
      j.put("machine_busy_share", w.machineBusy());
      j.put("errors", w.errors());
      perWindow.add(j);
    }
    m.put("windows", perWindow);
    m.put("calls_told_apart_by", split.calibrated() ? "MONITOR calibration window" : "command names");
    m.put("calibration_client_vs_script", split.describe());
    return m;
  }

  private static Map<String, Object> spreadJson(Spread s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("min", s.min());
    m.put("median", s.median());
    m.put("max", s.max());
    return m;
  }
}

package io.relock.bench;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Runs the scenarios: every implementation takes its turn against the same Redis, with the same
 * phase lengths, the keys flushed before each turn.
 */
final class Bench {

  private static final Duration WORKER_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration CALIBRATION_WARMUP = Duration.ofMillis(150);
  private static final Duration CALIBRATION = Duration.ofMillis(300);
  /** The stall window is one renewal tick and this much more, so it holds at least one whole tick. */
  private static final Duration STALL_MARGIN = Duration.ofMillis(500);
  /** A window counts once no worker's JIT compiled for more than this share of it. */
  static final double JIT_SETTLED = 0.05;
  /** The uncontended thread count the targets compare. */
  static final int TARGET_THREADS = 8;

  private final BenchRedis redis;
  private final BenchSettings settings;
  private final List<Implementation> implementations;
  private final Path logDir;
  private final PrintStream log;
  /** Whether the next window is the first in fresh JVMs, which need longer to warm up. */
  private boolean firstWindow;
  private final long began = System.nanoTime();

  Bench(BenchRedis redis, BenchSettings settings, List<Implementation> implementations, Path logDir,
      PrintStream log) {
    this.redis = redis;
    this.settings = settings;
    this.implementations = List.copyOf(implementations);
    this.logDir = logDir;
    this.log = log;
  }

  /**
   * Scenarios 1, 2 and 3 (with 5), each implementation in turn in worker JVMs of its own: the
   * first worker alone runs scenario 1 (each thread on a key of its own, for each thread count)
   * and 2 (all threads on one key); then all workers run scenario 3 (all threads of all
   * processes on one key). Workers that did not run yet get the longer warm-up.
   */
  void loadScenarios(boolean uncontended, boolean contendedInJvm, boolean acrossProcesses, List<Row> rows) {
    for (Implementation impl : implementations) {
      boolean s1 = uncontended;
      boolean s2 = contendedInJvm && impl.waits();
      boolean s3 = acrossProcesses && impl.waits();
      if (!s1 && !s2 && !s3) {
        continue;
      }
      inFreshWorkers(impl, s3 ? settings.processes() : 1, workers -> {
        List<WorkerProcess> first = workers.subList(0, 1);
        if (s1) {
          // The thread count the targets use goes first: it is the window that waits for the JIT.
          List<Integer> order = new ArrayList<>(settings.uncontendedThreads());
          order.sort(Comparator.comparing(t -> t != TARGET_THREADS));
          List<Row> windows = new ArrayList<>();
          for (int threads : order) {
            windows.add(measure(Results.UNCONTENDED, impl, first, ownKeys(threads)));
          }
          windows.sort(Comparator.comparingInt(w -> w.threadsPerProcess));
          // One calibration for all thread counts: the same code paths run, only more often.
          int calibrationThreads = settings.uncontendedThreads().contains(TARGET_THREADS) ? TARGET_THREADS
              : settings.uncontendedThreads().get(settings.uncontendedThreads().size() - 1);
          CallSplit split = calibrate(first, ownKeys(calibrationThreads));
          windows.forEach(w -> rows.add(done(w.withSplit(split))));
        }
        if (s2) {
          List<String> keys = Collections.nCopies(settings.contendedThreads(), "c1");
          Row window = measure(Results.CONTENDED_JVM, impl, first, keys);
          rows.add(done(window.withSplit(calibrate(first, keys))));
        }
        if (s3) {
          firstWindow = workers.size() > 1 || !(s1 || s2);
          List<String> keys = Collections.nCopies(settings.threadsPerProcess(), "c" + workers.size() + "p");
          Row window = measure(Results.CONTENDED_PROCESSES, impl, workers, keys);
          rows.add(done(window.withSplit(calibrate(workers, keys))));
        }
      });
    }
  }

  private static List<String> ownKeys(int threads) {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      keys.add("u" + threads + "-" + i);
    }
    return keys;
  }

  /**
   * Starts {@code count} worker JVMs, opens a client of {@code impl} in each, runs {@code body},
   * and stops them. Every implementation gets JVMs of its own, so none inherits code another one
   * warmed up (Lettuce, Redisson and Spring share Netty) and client CPU is the client's alone.
   */
  private void inFreshWorkers(Implementation impl, int count, Consumer<List<WorkerProcess>> body) {
    List<WorkerProcess> workers = new ArrayList<>();
    try {
      for (int p = 0; p < count; p++) {
        String name = impl.id() + "-" + p;
        workers.add(WorkerProcess.start(name, redis.target(), logDir.resolve(name + ".log")));
      }
      for (WorkerProcess w : workers) {
        w.send(Map.of("cmd", "open", "impl", impl.id(), "lease_ms", settings.loadLease().toMillis()));
      }
      workers.forEach(w -> w.await(WORKER_TIMEOUT));
      firstWindow = true;
      body.accept(workers);
      for (WorkerProcess w : workers) {
        w.send(Map.of("cmd", "close"));
      }
      workers.forEach(w -> w.await(WORKER_TIMEOUT));
    } catch (RuntimeException e) {
      failed("load scenarios", impl, e);
    } finally {
      workers.forEach(WorkerProcess::close);
    }
  }

  /**
   * A measuring window, taken again while the JIT compilers are still busy in some worker (more
   * than {@link #JIT_SETTLED} of the window), until {@link BenchSettings#settleLimit()} has passed;
   * only the first window in fresh JVMs is taken again.
   * Fresh JVMs go on compiling for seconds, and on two cores they do so at the expense of the load:
   * a window taken too early measures the warm-up, not the library. A row that never settled shows
   * it in its JIT share. The row still needs its {@link Row#withSplit call split}.
   */
  private Row measure(String scenario, Implementation impl, List<WorkerProcess> workers, List<String> keys) {
    // Only a fresh JVM's first window waits for its JIT; later windows run code it has compiled.
    long giveUpAt = System.nanoTime() + (firstWindow ? settings.settleLimit().toNanos() : 0);
    double warmed = 0;
    while (true) {
      Row row = window(scenario, impl, workers, keys);
      if (row.jitShare <= JIT_SETTLED || System.nanoTime() - giveUpAt >= 0) {
        return row.afterWarmup(warmed);
      }
      warmed += row.warmupSeconds + row.seconds;
      log.printf(Locale.ROOT, "%s %-19s %-14s %dx%-3d %9.0f acq/s  JIT still compiling %.0f%% of the window: again%n",
          elapsed(), scenario, impl.id(), row.processes, row.threadsPerProcess, row.perSecond(), 100 * row.jitShare);
    }
  }

  /** One window: every worker runs {@code keys} (one thread each) on its open client. */
  private Row window(String scenario, Implementation impl, List<WorkerProcess> workers, List<String> keys) {
    redis.flushAll();
    long start = System.currentTimeMillis() + 100;
    long from = start + settings.warmup().toMillis() + (firstWindow ? settings.jvmWarmup().toMillis() : 0);
    firstWindow = false;
    long to = from + settings.measure().toMillis();
    startRun(workers, keys, start, from, to);
    LoadPhase.sleepUntil(LoadPhase.nanosAt(from));
    RedisInfo before = redis.info();
    LoadPhase.sleepUntil(LoadPhase.nanosAt(to));
    RedisInfo after = redis.info();

    LatencyHistogram all = new LatencyHistogram();
    List<Long> perProcess = new ArrayList<>();
    List<Long> perThread = new ArrayList<>();
    long errors = 0;
    int stragglers = 0;
    double cpu = 0;
    double jit = 0;
    String firstError = "";
    for (WorkerProcess w : workers) {
      Map<String, Object> r = w.await(WORKER_TIMEOUT);
      LatencyHistogram h = LatencyHistogram.decode((String) r.get("histogram"));
      all.add(h);
      perProcess.add(h.count());
      for (Object c : (List<?>) r.get("per_thread")) {
        perThread.add(((Number) c).longValue());
      }
      errors += ((Number) r.get("errors")).longValue();
      stragglers += ((Number) r.get("stragglers")).intValue();
      cpu += ((Number) r.get("cpu_s")).doubleValue();
      jit = Math.max(jit, ((Number) r.get("jit_s")).doubleValue());
      if (firstError.isEmpty()) {
        firstError = (String) r.get("first_error");
      }
    }
    return new Row(scenario, impl, workers.size(), keys.size(), (to - from) / 1000.0, all, perProcess,
        perThread.stream().mapToLong(Long::longValue).toArray(), after.since(before), cpu, errors, firstError,
        stragglers, CallSplit.none(), jit / ((to - from) / 1000.0), (from - start) / 1000.0);
  }

  private static void startRun(List<WorkerProcess> workers, List<String> keys, long start, long from, long to) {
    Map<String, Object> run = new LinkedHashMap<>();
    run.put("cmd", "run");
    run.put("keys", keys);
    run.put("start_at", start);
    run.put("from", from);
    run.put("to", to);
    workers.forEach(w -> w.send(run));
  }

  /**
   * A short extra window under {@code MONITOR}, right after a measured one with the same load:
   * which share of each command came from clients rather than scripts. Its own figures are
   * dropped (monitoring slows Redis down).
   */
  private CallSplit calibrate(List<WorkerProcess> workers, List<String> keys) {
    redis.flushAll();
    long start = System.currentTimeMillis() + 50;
    long from = start + CALIBRATION_WARMUP.toMillis();
    long to = from + CALIBRATION.toMillis();
    startRun(workers, keys, start, from, to);
    LoadPhase.sleepUntil(LoadPhase.nanosAt(from));
    CallSplit split;
    // On every primary: a cluster's clients call all of them.
    try (MonitorTally.OnAll tally = MonitorTally.OnAll.start(redis.primaryUris())) {
      LoadPhase.sleepUntil(LoadPhase.nanosAt(to));
      split = tally.finish();
    }
    workers.forEach(w -> w.await(WORKER_TIMEOUT));
    return split;
  }

  private Row done(Row row) {
    progress(row);
    return row;
  }

  /**
   * Scenario 4: many locks held under the watchdog, each implementation in a fresh worker. When
   * the bench started its own Redis, the implementations hold their locks at the same time, each
   * against a redis-server of its own (the held window is a minute of near-idle waiting, so this
   * halves the scenario's time without mixing their counters); taking the locks, the busy part,
   * and the stall window still happen one implementation at a time. Against {@code REDIS_URL}
   * they take turns.
   */
  List<HeldRow> heldLocks() {
    if (redis.topology() != BenchTarget.Topology.SINGLE) {
      throw new IllegalStateException("the held-locks scenario runs on one Redis only (--topology single)");
    }
    Object busy = new Object();
    List<CompletableFuture<Optional<HeldRow>>> runs = new ArrayList<>();
    List<BenchRedis> extra = new ArrayList<>();
    try {
      for (Implementation impl : implementations) {
        if (!impl.hasWatchdog()) {
          continue;
        }
        if (!redis.started()) {
          runs.add(CompletableFuture.completedFuture(heldOne(impl, redis, busy)));
          continue;
        }
        BenchRedis own = runs.isEmpty() ? redis : BenchRedis.open(null);
        if (own != redis) {
          extra.add(own);
        }
        runs.add(CompletableFuture.supplyAsync(() -> heldOne(impl, own, busy)));
      }
      List<HeldRow> rows = new ArrayList<>();
      runs.forEach(r -> r.join().ifPresent(rows::add));
      return rows;
    } finally {
      extra.forEach(BenchRedis::close);
      redis.flushAll();
    }
  }

  /**
   * One implementation holding its locks against {@code r}: the counted window under
   * {@code MONITOR}, then one renewal tick and {@link #STALL_MARGIN} more without it for the worst
   * stall. {@code busy} serializes the busy parts: taking the locks, and the stall window with
   * the close after it.
   */
  private Optional<HeldRow> heldOne(Implementation impl, BenchRedis r, Object busy) {
    r.flushAll();
    try (WorkerProcess w = WorkerProcess.start("held-" + impl.id(), r.target(),
        logDir.resolve("held-" + impl.id() + ".log"))) {
      w.call(Map.of("cmd", "open", "impl", impl.id(), "lease_ms", settings.heldLease().toMillis()),
          WORKER_TIMEOUT);
      Map<String, Object> opened = w.call(Map.of("cmd", "sample"), WORKER_TIMEOUT);
      Map<String, Object> hold;
      synchronized (busy) {
        hold = w.call(Map.of("cmd", "hold", "count", settings.heldLocks(), "threads", 8), WORKER_TIMEOUT);
      }
      long keysAtStart = r.dbSize();
      Map<String, Object> first = w.call(Map.of("cmd", "sample"), WORKER_TIMEOUT);
      RedisInfo before;
      RedisInfo after;
      CallSplit split;
      long began;
      try (MonitorTally tally = MonitorTally.start(r.uri())) {
        before = r.info();
        began = System.nanoTime();
        LoadPhase.sleepUntil(began + settings.holdFor().toNanos());
        after = r.info();
        split = tally.finish();
      }
      double seconds = (System.nanoTime() - began) / 1e9;
      Map<String, Object> last = w.call(Map.of("cmd", "sample"), WORKER_TIMEOUT);
      long keysAtEnd = r.dbSize();
      StallSample stall;
      // The worst stall gets a window of its own: MONITOR makes scripts slower than they are.
      // It takes turns with the other implementation's busy parts (taking its locks, closing its
      // client), whose CPU would stretch this Redis's commands on a small machine.
      synchronized (busy) {
        stall = r.worstCommand(settings.renewalTick().plus(STALL_MARGIN));
        w.call(Map.of("cmd", "close"), WORKER_TIMEOUT);
      }
      HeldRow row = new HeldRow(impl, settings.heldLocks(), seconds, settings.renewalTick().toMillis() / 1000.0,
          ((Number) hold.get("acquire_s")).doubleValue(), after.since(before),
          (((Number) last.get("cpu_ns")).longValue() - ((Number) first.get("cpu_ns")).longValue()) / 1e9,
          Math.max(((Number) first.get("heap_bytes")).longValue(), ((Number) last.get("heap_bytes")).longValue()),
          ((Number) opened.get("heap_bytes")).longValue(), keysAtStart, keysAtEnd, split, stall);
      synchronized (log) {
        log.printf(Locale.ROOT, "%s held %-14s %d locks %.0f s: %.1f calls/s, %.1f calls per renewal tick, heap %.1f MB (%.0f bytes per lock), %s%n",
            elapsed(), impl.id(), row.locks(), row.seconds(), row.callsPerSecond(), row.callsPerTick(), row.heapBytes() / 1e6,
            row.bytesPerLock(), stall.describe());
      }
      return Optional.of(row);
    } catch (RuntimeException e) {
      synchronized (log) {
        failed("held", impl, e);
      }
      return Optional.empty();
    }
  }

  private List<Implementation> waiting() {
    return implementations.stream().filter(Implementation::waits).toList();
  }

  private void progress(Row r) {
    log.printf(Locale.ROOT, "%s %-19s %-14s %dx%-3d %9.0f acq/s  p50 %7.3f  p99 %8.3f  max %8.1f ms  %5.1f calls/acq%s%n",
        elapsed(), r.scenario, r.impl.id(), r.processes, r.threadsPerProcess, r.perSecond(), r.millis(50), r.millis(99),
        r.maxMillis(), r.callsPerAcquisition(), r.errors > 0 ? "  errors " + r.errors + ": " + r.firstError : "");
  }

  /** Seconds since the bench began, as a prefix for progress lines. */
  private String elapsed() {
    return String.format(Locale.ROOT, "[%4.0fs]", (System.nanoTime() - began) / 1e9);
  }

  private void failed(String scenario, Implementation impl, RuntimeException e) {
    log.printf("  %s %s FAILED: %s%n", scenario, impl.id(), LoadPhase.describe(e));
    e.printStackTrace(log);
  }
}

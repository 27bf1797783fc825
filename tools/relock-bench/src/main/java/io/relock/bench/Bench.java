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
  /** The fixed work run after each quiet window, to show how much the machine alone stretches a command. */
  static final long FIXED_WORK_MICROS = 300;
  /** A window counts once no worker's JIT compiled for more than this share of it. */
  static final double JIT_SETTLED = 0.05;
  /** The uncontended thread count the targets compare. */
  static final int TARGET_THREADS = 8;

  private final BenchRedis redis;
  private final BenchSettings settings;
  private final List<Implementation> implementations;
  private final Path logDir;
  private final PrintStream log;
  /** The lock servers other than Redis ({@code --compare}); null when none runs. */
  private final LockServers servers;
  /** The implementation whose workers run now. */
  private Implementation currentImpl;
  /** Whether the next window is the first in fresh JVMs, which need longer to warm up. */
  private boolean firstWindow;
  private final long began = System.nanoTime();

  Bench(BenchRedis redis, BenchSettings settings, List<Implementation> implementations, Path logDir,
      PrintStream log) {
    this(redis, settings, implementations, logDir, log, null);
  }

  Bench(BenchRedis redis, BenchSettings settings, List<Implementation> implementations, Path logDir,
      PrintStream log, LockServers servers) {
    this.servers = servers;
    this.redis = redis;
    this.settings = settings;
    this.implementations = List.copyOf(implementations);
    this.logDir = logDir;
    this.log = log;
  }

  /**
   * Scenarios 1, 2 and 3 (with 5), each implementation in turn in worker JVMs of its own: first
   * all workers run scenario 3 (all threads of all processes on one key) for each thread count,
   * the first of which waits for the fresh JVMs' JIT; then the first worker alone runs scenario 1
   * (each thread on a key of its own, for each thread count) and 2 (all its threads on one key),
   * in a JVM that has compiled the client's code by then. Last, the holder-killed scenario kills
   * all workers but the first while it waits for their locks. An implementation that does not
   * wait runs scenario 1 only, in one fresh worker.
   */
  void loadScenarios(boolean uncontended, boolean contendedInJvm, boolean acrossProcesses, boolean holderKilled,
      List<Row> rows, List<TakeoverRow> takeovers) {
    for (Implementation impl : implementations) {
      boolean s1 = uncontended;
      boolean s2 = contendedInJvm && impl.waits();
      boolean s3 = acrossProcesses && impl.waits();
      boolean killed = holderKilled && impl.waits();
      if (!s1 && !s2 && !s3 && !killed) {
        continue;
      }
      if (!impl.usesRedis() && (servers == null || servers.endpoint(impl.server()).isEmpty())) {
        log.println("  " + impl.id() + " left out: " + (servers == null ? "its server runs with --compare only"
            : servers.skipped(impl.server())));
        continue;
      }
      inFreshWorkers(impl, s3 || killed ? settings.processes() : 1, workers -> {
        if (s3) {
          List<Row> measured = new ArrayList<>();
          CallSplit shared = null;
          for (int threads : settings.processThreads()) {
            List<String> keys = Collections.nCopies(threads, "c" + workers.size() + "x" + threads);
            Row row = measure(Results.CONTENDED_PROCESSES, impl, workers, keys);
            CallSplit split = shared != null ? shared : calibrate(impl, workers, keys);
            if (!settings.calibrateEach()) {
              shared = split;
            }
            measured.add(done(row.withSplit(split)));
          }
          // Tables list the configurations from the fewest threads up, whatever order they ran in.
          measured.sort(Comparator.comparingInt(r -> r.threadsPerProcess));
          rows.addAll(measured);
        }
        List<WorkerProcess> first = workers.subList(0, 1);
        if (s1) {
          // The thread count the targets use goes first: in a fresh JVM it is the one that waits for the JIT.
          List<Integer> order = new ArrayList<>(settings.uncontendedThreads());
          order.sort(Comparator.comparing(t -> t != TARGET_THREADS));
          List<Row> measured = new ArrayList<>();
          for (int threads : order) {
            measured.add(measure(Results.UNCONTENDED, impl, first, ownKeys(threads)));
          }
          measured.sort(Comparator.comparingInt(r -> r.threadsPerProcess));
          // One calibration for all thread counts: the same code paths run, only more often.
          int calibrationThreads = settings.uncontendedThreads().contains(TARGET_THREADS) ? TARGET_THREADS
              : settings.uncontendedThreads().get(settings.uncontendedThreads().size() - 1);
          CallSplit split = calibrate(impl, first, ownKeys(calibrationThreads));
          measured.forEach(r -> rows.add(done(r.withSplit(split))));
        }
        if (s2) {
          List<String> keys = Collections.nCopies(settings.contendedThreads(), "c1");
          Row row = measure(Results.CONTENDED_JVM, impl, first, keys);
          rows.add(done(row.withSplit(calibrate(impl, first, keys))));
        }
        if (killed) {
          takeovers.add(holderKilled(impl, workers));
        }
      });
    }
  }

  /**
   * The lock family's rows ({@code --family}): for each implementation that has a read-write lock
   * and a semaphore, in {@link BenchSettings#processes()} fresh worker JVMs with {@link
   * BenchSettings#processThreads()} threads each, every workload in turn on one name (the first
   * waits for the JIT as scenario 3's first configuration does), each with its {@code MONITOR}
   * calibration; each row may take windows again until the JIT settles, as every configuration
   * does. A {@link HoldCheck} shared by the workers counts every hold; a run in which a
   * writer overlapped anyone, or more holders than permits held a semaphore, fails its row (no
   * figures, the reason in {@code failures}) and the next row goes on.
   */
  void familyRows(List<Workload> workloads, List<Row> rows, List<Results.Failure> failures) {
    for (Implementation impl : implementations) {
      if (!impl.hasFamily()) {
        log.println("  " + impl.id() + " left out: the bench has no read-write lock or semaphore of it");
        continue;
      }
      inFreshWorkers(impl, settings.processes(), workers -> {
        for (int threads : settings.processThreads()) {
          for (Workload workload : workloads) {
            List<String> keys = Collections.nCopies(threads, "f-" + workload.id());
            try {
              Row row = measure(workload.id(), impl, workers, keys, workload);
              rows.add(done(row.withSplit(calibrate(impl, workers, keys, workload))));
            } catch (HoldCheckFailed e) {
              failures.add(new Results.Failure(workload, impl, workers.size(), threads, e.getMessage()));
              log.printf(Locale.ROOT, "%s %-19s %-14s %dx%-3d ROW FAILED, no figures reported: %s%n", elapsed(),
                  workload.id(), impl.id(), workers.size(), threads, e.getMessage());
            }
          }
        }
      });
    }
  }

  /** A lock family run whose holds broke the lock's rule: its row must not be reported. */
  static final class HoldCheckFailed extends RuntimeException {
    HoldCheckFailed(String message) {
      super(message);
    }
  }

  /**
   * Fails the run when the workers' hold check saw a violation. Every worker reports the shared
   * count; any of them seeing one is enough.
   */
  static LoadPhase.Checked checked(List<Map<String, Object>> replies) {
    LoadPhase.Checked all = null;
    for (Map<String, Object> reply : replies) {
      LoadPhase.Checked c = LoadPhase.Checked.fromJson((Map<?, ?>) reply.get("checked"));
      all = all == null ? c : all.plus(c);
    }
    if (all != null && all.violations() > 0) {
      throw new HoldCheckFailed("the hold check saw " + all.violations() + " violation(s): " + all.firstViolation());
    }
    return all;
  }

  /**
   * The holder-killed scenario on {@code workers}: every client reopened with the {@link
   * BenchSettings#deathTimeout()}; each worker but the first takes a lock of its own and keeps it;
   * the first waits for all of those locks at once; then the holders are killed with SIGKILL one
   * after another, a third of the timeout apart (so that the kills fall at different points of a
   * renewal period), and each lock's time from its holder's kill to the waiter's acquisition is
   * what the row shows.
   */
  private TakeoverRow holderKilled(Implementation impl, List<WorkerProcess> workers) {
    Duration timeout = settings.deathTimeout();
    long limit = 2 * timeout.toMillis() + 10_000;
    redis.flushAll();
    open(impl, workers, timeout);
    List<WorkerProcess> holders = workers.subList(1, workers.size());
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < holders.size(); i++) {
      keys.add("dead-" + i);
      holders.get(i).call(Map.of("cmd", "hold-key", "key", keys.get(i)), WORKER_TIMEOUT);
    }
    WorkerProcess waiter = workers.get(0);
    waiter.send(Map.of("cmd", "await-keys", "keys", keys, "timeout_ms", limit));
    // Let the waiter's threads block in their acquire first.
    LoadPhase.sleepUntil(System.nanoTime() + Duration.ofMillis(500).toNanos());
    long[] killedAt = new long[holders.size()];
    long start = System.nanoTime();
    for (int i = 0; i < holders.size(); i++) {
      LoadPhase.sleepUntil(start + i * timeout.toNanos() / holders.size());
      killedAt[i] = holders.get(i).kill();
    }
    List<?> acquiredAt = (List<?>) waiter.await(Duration.ofMillis(limit).plus(WORKER_TIMEOUT)).get("acquired_at_ns");
    List<Double> millis = new ArrayList<>();
    for (int i = 0; i < holders.size(); i++) {
      long at = ((Number) acquiredAt.get(i)).longValue();
      millis.add(at < 0 ? Double.NaN : (at - killedAt[i]) / 1e6);
    }
    TakeoverRow row = new TakeoverRow(impl, timeout, millis, limit);
    log.printf(Locale.ROOT, "%s holder-killed        %-19s next holder in %s ms after each kill (gives up on a silent"
        + " holder after %d s)%n", elapsed(), impl.id(), millis.stream()
            .map(m -> m.isNaN() ? "never" : String.format(Locale.ROOT, "%,.0f", m)).toList(), timeout.toSeconds());
    return row;
  }

  /** Opens a client of {@code impl} with {@code lease} in every worker (closing the one open there). */
  private void open(Implementation impl, List<WorkerProcess> workers, Duration lease) {
    Map<String, Object> open = new LinkedHashMap<>();
    open.put("cmd", "open");
    open.put("impl", impl.id());
    open.put("lease_ms", lease.toMillis());
    open.put("probe", true);
    open.put("endpoint", servers == null ? null : servers.endpoint(impl.server()).orElse(null));
    workers.forEach(w -> w.send(open));
    workers.forEach(w -> w.await(WORKER_TIMEOUT));
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
      List<String> names = new ArrayList<>();
      for (int p = 0; p < count; p++) {
        names.add(impl.id() + "-" + p);
      }
      workers.addAll(WorkerProcess.startAll(names, redis.target(), logDir));
      open(impl, workers, settings.loadLease());
      firstWindow = true;
      currentImpl = impl;
      body.accept(workers);
      // The holder-killed scenario leaves only the first alive.
      List<WorkerProcess> alive = workers.stream().filter(WorkerProcess::alive).toList();
      for (WorkerProcess w : alive) {
        w.send(Map.of("cmd", "close"));
      }
      alive.forEach(w -> w.await(WORKER_TIMEOUT));
    } catch (RuntimeException e) {
      failed("load scenarios", impl, e);
    } finally {
      WorkerProcess.closeAll(workers);
    }
  }

  /**
   * A configuration's {@link BenchSettings#windows()} measuring windows. In fresh JVMs the JIT
   * compilers go on working for seconds, and on two cores they do so at the expense of the load:
   * a window in which any worker compiled for more than {@link #JIT_SETTLED} of it measured the
   * warm-up, not the library. Nor is a later configuration always compiled by then: it may run
   * paths the ones before did not (4 x 2 hands over between processes far more often than 4 x 8;
   * the lock family's rows run another kind's scripts). So every configuration goes on measuring
   * windows until {@code windows} of them were settled, for up to {@link
   * BenchSettings#settleLimit()}, and counts those. A row that never settled shows it in its JIT
   * share. The row still needs its {@link Row#withSplit call split}.
   */
  private Row measure(String scenario, Implementation impl, List<WorkerProcess> workers, List<String> keys) {
    return measure(scenario, impl, workers, keys, Workload.EXCLUSIVE);
  }

  private Row measure(String scenario, Implementation impl, List<WorkerProcess> workers, List<String> keys,
      Workload workload) {
    int wanted = settings.windows();
    long giveUpAt = System.nanoTime() + settings.settleLimit().toNanos();
    List<Row.Window> measured = new ArrayList<>();
    // For each window measured: seconds of load in this configuration before it began.
    List<Double> loadBefore = new ArrayList<>();
    double load = 0;
    int stragglers = 0;
    String firstError = "";
    LoadPhase.Checked checked = null;
    while (true) {
      int needed = Math.max(1, wanted - settledCount(measured));
      Run run = run(workers, keys, workload, needed);
      checked = checked == null ? run.checked() : checked.plus(run.checked());
      for (int i = 0; i < run.windows().size(); i++) {
        loadBefore.add(load + run.warmupSeconds() + i * settings.window().toMillis() / 1000.0);
      }
      load += run.warmupSeconds() + run.windows().stream().mapToDouble(Row.Window::seconds).sum();
      measured.addAll(run.windows());
      stragglers += run.stragglers();
      if (firstError.isEmpty()) {
        firstError = run.firstError();
      }
      if (settledCount(measured) >= wanted || System.nanoTime() - giveUpAt >= 0) {
        break;
      }
      Row.Window last = measured.get(measured.size() - 1);
      log.printf(Locale.ROOT, "%s %-19s %-14s %dx%-3d %9.0f acq/s  JIT compiling %.0f%% of the last window: more windows%n",
          elapsed(), scenario, impl.id(), workers.size(), keys.size(), last.perSecond(), 100 * last.jitShare());
    }
    List<Integer> counted = counted(measured, wanted);
    return new Row(scenario, impl, workers.size(), keys.size(), counted.stream().map(measured::get).toList(),
        CallSplit.none(), loadBefore.get(counted.get(0)), stragglers, firstError, workload, checked);
  }

  /**
   * Which of {@code measured} (in order) a row counts: the last {@code wanted} settled windows, or,
   * when fewer settled, the last {@code wanted} windows whatever their JIT share.
   */
  static List<Integer> counted(List<Row.Window> measured, int wanted) {
    List<Integer> settled = new ArrayList<>();
    for (int i = 0; i < measured.size(); i++) {
      if (settled(measured.get(i))) {
        settled.add(i);
      }
    }
    if (settled.size() >= wanted) {
      return settled.subList(settled.size() - wanted, settled.size());
    }
    List<Integer> last = new ArrayList<>();
    for (int i = Math.max(0, measured.size() - wanted); i < measured.size(); i++) {
      last.add(i);
    }
    return last;
  }

  /** How many windows were settled. */
  static int settledCount(List<Row.Window> windows) {
    return (int) windows.stream().filter(Bench::settled).count();
  }

  /**
   * Whether a window measured the settled client: every worker's JIT quiet, and something acquired
   * (a fresh client may still be connecting, its threads idle and its JIT quiet too).
   */
  static boolean settled(Row.Window w) {
    return w.jitShare() <= JIT_SETTLED && w.acquisitions() > 0;
  }

  /**
   * CPU seconds the lock server of the implementation running now used so far, when that is not
   * Redis (whose CPU {@code INFO} tells): ZooKeeper's, etcd's or PostgreSQL's; NaN otherwise.
   */
  private double serverCpu() {
    return servers == null || currentImpl == null || currentImpl.usesRedis() ? Double.NaN
        : servers.cpuSeconds(currentImpl.server());
  }

  /** What one run of consecutive windows gave: the windows, the load before the first, stragglers, the first error. */
  private record Run(List<Row.Window> windows, double warmupSeconds, int stragglers, String firstError,
      LoadPhase.Checked checked) {}

  /**
   * One run: every worker runs {@code keys} (one thread each) on its open client through a
   * warm-up and then {@code count} consecutive windows; the harness reads the servers' counters at
   * every window edge.
   */
  private Run run(List<WorkerProcess> workers, List<String> keys, Workload workload, int count) {
    redis.flushAll();
    long start = System.currentTimeMillis() + 100;
    long from = start + settings.warmup().toMillis() + (firstWindow ? settings.jvmWarmup().toMillis() : 0);
    firstWindow = false;
    List<Long> edges = new ArrayList<>();
    for (int i = 0; i <= count; i++) {
      edges.add(from + i * settings.window().toMillis());
    }
    startRun(workers, keys, start, edges, workload);
    List<RedisInfo> infos = new ArrayList<>();
    List<Double> serverCpu = new ArrayList<>();
    List<CpuAccount> machine = new ArrayList<>();
    for (long edge : edges) {
      LoadPhase.sleepUntil(LoadPhase.nanosAt(edge));
      machine.add(CpuAccount.now());
      infos.add(redis.info());
      serverCpu.add(serverCpu());
    }

    List<Map<String, Object>> replies = workers.stream().map(w -> w.await(WORKER_TIMEOUT)).toList();
    LoadPhase.Checked checked = checked(replies);
    List<Row.Window> windows = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      LatencyHistogram all = new LatencyHistogram();
      List<Long> perProcess = new ArrayList<>();
      List<Long> perThread = new ArrayList<>();
      long errors = 0;
      double cpu = 0;
      double jit = 0;
      for (Map<String, Object> reply : replies) {
        Map<?, ?> r = (Map<?, ?>) ((List<?>) reply.get("windows")).get(i);
        LatencyHistogram h = LatencyHistogram.decode((String) r.get("histogram"));
        all.add(h);
        perProcess.add(h.count());
        for (Object c : (List<?>) r.get("per_thread")) {
          perThread.add(((Number) c).longValue());
        }
        errors += ((Number) r.get("errors")).longValue();
        cpu += ((Number) r.get("cpu_s")).doubleValue();
        jit = Math.max(jit, ((Number) r.get("jit_s")).doubleValue());
      }
      double seconds = (edges.get(i + 1) - edges.get(i)) / 1000.0;
      windows.add(new Row.Window(seconds, all, perProcess, perThread.stream().mapToLong(Long::longValue).toArray(),
          infos.get(i + 1).since(infos.get(i)), cpu, serverCpu.get(i + 1) - serverCpu.get(i), errors, jit / seconds,
          machine.get(i) == null || machine.get(i + 1) == null ? Double.NaN : machine.get(i + 1).busyShareSince(machine.get(i))));
    }
    int stragglers = 0;
    String firstError = "";
    for (Map<String, Object> reply : replies) {
      stragglers += ((Number) reply.get("stragglers")).intValue();
      if (firstError.isEmpty()) {
        firstError = (String) reply.get("first_error");
      }
    }
    return new Run(windows, (from - start) / 1000.0, stragglers, firstError, checked);
  }

  /**
   * Tells every worker to run; a lock family workload with its hold check's counters set back to
   * zero first, in a file beside the worker logs that every worker maps.
   */
  private void startRun(List<WorkerProcess> workers, List<String> keys, long start, List<Long> edges,
      Workload workload) {
    Map<String, Object> run = new LinkedHashMap<>();
    run.put("cmd", "run");
    run.put("keys", keys);
    run.put("start_at", start);
    run.put("edges", edges);
    if (workload.kind() != Workload.Kind.EXCLUSIVE) {
      Path checkFile = logDir.resolve("hold-check-" + currentImpl.id());
      try {
        HoldCheck.reset(checkFile);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException("could not reset the hold check in " + checkFile, e);
      }
      run.put("workload", workload.toJson());
      run.put("check_file", checkFile.toAbsolutePath().toString());
    }
    workers.forEach(w -> w.send(run));
  }

  /**
   * A short extra window under {@code MONITOR}, right after the measured ones with the same load:
   * which share of each command came from clients rather than scripts. Its own figures are
   * dropped (monitoring slows Redis down). Not run for implementations that do not use Redis.
   */
  private CallSplit calibrate(Implementation impl, List<WorkerProcess> workers, List<String> keys) {
    return calibrate(impl, workers, keys, Workload.EXCLUSIVE);
  }

  private CallSplit calibrate(Implementation impl, List<WorkerProcess> workers, List<String> keys, Workload workload) {
    if (!impl.usesRedis()) {
      return CallSplit.none();
    }
    redis.flushAll();
    long start = System.currentTimeMillis() + 50;
    long from = start + CALIBRATION_WARMUP.toMillis();
    long to = from + CALIBRATION.toMillis();
    startRun(workers, keys, start, List.of(from, to), workload);
    LoadPhase.sleepUntil(LoadPhase.nanosAt(from));
    CallSplit split;
    // On every primary: a cluster's clients call all of them.
    try (MonitorTally.OnAll tally = MonitorTally.OnAll.start(redis.primaryUris())) {
      LoadPhase.sleepUntil(LoadPhase.nanosAt(to));
      split = tally.finish();
    }
    checked(workers.stream().map(w -> w.await(WORKER_TIMEOUT)).toList());
    return split;
  }

  private Row done(Row row) {
    progress(row);
    return row;
  }

  /**
   * Scenario 4: many locks held under the watchdog, after the load scenarios ({@code before}) and
   * with nothing else running: each implementation in turn, in a fresh worker, against a fresh
   * redis-server when the bench started its own (against {@code REDIS_URL}, the one Redis, flushed
   * after each), first with the settings' {@code heldLocks}, then with {@code moreHeldLocks}. One at
   * a time, so that no implementation's renewals run beside another's quiet window.
   */
  List<HeldRow> heldLocks(Runnable before) {
    if (redis.topology() != BenchTarget.Topology.SINGLE) {
      throw new IllegalStateException("the held-locks scenario runs on one Redis only (--topology single)");
    }
    before.run();
    List<Implementation> holding = implementations.stream().filter(Implementation::hasWatchdog).toList();
    List<HeldRow> rows = new ArrayList<>();
    for (int locks : List.of(settings.heldLocks(), settings.moreHeldLocks())) {
      for (Implementation impl : locks == 0 ? List.<Implementation>of() : holding) {
        if (redis.started()) {
          try (BenchRedis r = BenchRedis.open(null)) {
            heldOne(impl, r, locks).ifPresent(rows::add);
          }
        } else {
          heldOne(impl, redis, locks).ifPresent(rows::add);
          redis.flushAll();
        }
      }
    }
    return rows;
  }

  /**
   * One implementation holding {@code locks} locks against {@code r}: the counted window under
   * {@code MONITOR}, then two renewal ticks and {@link #STALL_MARGIN} more without it for the
   * renewal figures (see {@link BenchRedis#quietWindow}), then the fixed work (see {@link
   * BenchRedis#fixedWork}).
   */
  private Optional<HeldRow> heldOne(Implementation impl, BenchRedis r, int locks) {
    r.flushAll();
    try (WorkerProcess w = WorkerProcess.start("held-" + impl.id(), r.target(),
        logDir.resolve("held-" + impl.id() + ".log"))) {
      w.call(Map.of("cmd", "open", "impl", impl.id(), "lease_ms", settings.heldLease().toMillis()),
          WORKER_TIMEOUT);
      Map<String, Object> opened = w.call(Map.of("cmd", "sample"), WORKER_TIMEOUT);
      long memoryBefore = r.usedMemory();
      Map<String, Object> hold = w.call(Map.of("cmd", "hold", "count", locks, "threads", 8), WORKER_TIMEOUT);
      long memoryHeld = r.usedMemory() - memoryBefore;
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
      // The renewal figures get a window of their own: MONITOR makes scripts slower than they are,
      // and so does any other load on a small machine. Two ticks and a margin hold one whole tick.
      BenchRedis.QuietWindow quiet = r.quietWindow(settings.renewalTick().multipliedBy(2).plus(STALL_MARGIN),
          settings.renewalTick(), calls -> split.clientCalls(calls, impl.directDataCommands()));
      StallSample fixedWork = r.fixedWork(FIXED_WORK_MICROS, 200);
      w.call(Map.of("cmd", "close"), WORKER_TIMEOUT);
      HeldRow row = new HeldRow(impl, locks, seconds, settings.renewalTick().toMillis() / 1000.0,
          ((Number) hold.get("acquire_s")).doubleValue(), after.since(before),
          (((Number) last.get("cpu_ns")).longValue() - ((Number) first.get("cpu_ns")).longValue()) / 1e9,
          Math.max(((Number) first.get("heap_bytes")).longValue(), ((Number) last.get("heap_bytes")).longValue()),
          ((Number) opened.get("heap_bytes")).longValue(), memoryHeld, keysAtStart, keysAtEnd, split, quiet, fixedWork);
      synchronized (log) {
        log.printf(Locale.ROOT, "%s held %-14s %d locks %.0f s: %.1f calls/s, %.1f calls per renewal tick, heap %.1f MB (%.0f bytes"
            + " per lock), Redis %.0f bytes per lock, %s; a fixed %d us script: %s%n", elapsed(), impl.id(), row.locks(),
            row.seconds(), row.callsPerSecond(), row.callsPerTick(), row.heapBytes() / 1e6, row.bytesPerLock(),
            row.redisBytesPerLock(), quiet.stall().describe(), FIXED_WORK_MICROS,
            fixedWork == null ? "not measured" : fixedWork.describe());
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
    log.printf(Locale.ROOT, "%s %-19s %-14s %dx%-3d %9.0f acq/s (%s)  p50 %7.3f  p99 %8.3f  max %8.1f ms  %5s calls/acq"
            + "  CPU busy %.0f%%%s%n",
        elapsed(), r.scenario, r.impl.id(), r.processes, r.threadsPerProcess, r.perSecond(),
        r.spread(Row.Window::perSecond).rangeText(0), r.millis(50), r.millis(99), r.maxMillis(),
        Results.num(r.callsPerAcquisition(), 1), 100 * r.spread(Row.Window::machineBusy).median(),
        r.errors() > 0 ? "  errors " + r.errors() + ": " + r.firstError : "");
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

package io.relock.bench;

import io.relock.spi.RedisUri;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A closed loop of acquire-release on some threads of this process, timed against the wall clock
 * so that threads of several processes run the same windows. Each thread acquires its key,
 * releases it at once and goes again, without a pause from the warm-up to the end of the last
 * window: the measured windows are consecutive slices of one run. An acquisition counts in the
 * window in which its acquire returned; its latency is the time the acquire call took (waiting
 * included).
 */
final class LoadPhase {

  /**
   * What to run.
   *
   * @param keys one lock name per thread (the same name on every thread for contention)
   * @param startAtMillis wall clock time at which the threads start (the warm-up begins)
   * @param edgesMillis wall clock edges of the measuring windows, in order: window i runs from
   *     edge i to edge i + 1; threads stop after the last
   * @param workload what each acquisition takes: the exclusive lock, or the lock family's
   * @param checkFile for a lock family workload, the {@link HoldCheck} counters every process of
   *     the run shares; null for the exclusive lock
   */
  record Plan(List<String> keys, long startAtMillis, List<Long> edgesMillis, Workload workload, Path checkFile) {
    Plan(List<String> keys, long startAtMillis, List<Long> edgesMillis) {
      this(keys, startAtMillis, edgesMillis, Workload.EXCLUSIVE, null);
    }

    Plan {
      if (workload.kind() != Workload.Kind.EXCLUSIVE && checkFile == null) {
        throw new IllegalArgumentException("a lock family workload runs with a hold check");
      }
      keys = List.copyOf(keys);
      edgesMillis = List.copyOf(edgesMillis);
      if (edgesMillis.size() < 2) {
        throw new IllegalArgumentException("a plan needs at least one window, i.e. two edges: " + edgesMillis);
      }
      long previous = startAtMillis;
      for (int i = 0; i < edgesMillis.size(); i++) {
        long edge = edgesMillis.get(i);
        if (i == 0 ? edge < previous : edge <= previous) {
          throw new IllegalArgumentException("times out of order: start " + startAtMillis + ", edges " + edgesMillis);
        }
        previous = edge;
      }
    }

    int windows() {
      return edgesMillis.size() - 1;
    }

    double windowSeconds(int window) {
      return (edgesMillis.get(window + 1) - edgesMillis.get(window)) / 1000.0;
    }
  }

  /**
   * What one process measured in one window.
   *
   * @param latencies acquire latencies of the acquisitions counted in it
   * @param perThread those acquisitions per thread
   * @param errors failed acquisitions or releases in it (the loop goes on after each)
   * @param cpuSeconds CPU this process used during it
   * @param jitSeconds time the JIT compilers spent compiling during it (0 if unknown)
   */
  record Window(LatencyHistogram latencies, long[] perThread, long errors, double cpuSeconds, double jitSeconds) {}

  /**
   * What one process measured.
   *
   * @param windows one per window of the plan, in order
   * @param firstError the first failure's message, or empty
   * @param stragglers threads still waiting long after the last window, interrupted
   * @param checked for a lock family workload, what its hold check saw; null otherwise
   */
  record Outcome(List<Window> windows, String firstError, int stragglers, Checked checked) {
    Outcome(List<Window> windows, String firstError, int stragglers) {
      this(windows, firstError, stragglers, null);
    }
  }

  /**
   * What a lock family run's {@link HoldCheck} saw, warm-up included.
   *
   * @param reads read holds this process took (semaphore: 0)
   * @param writes write holds (semaphore: permits) this process took
   * @param violations holds that broke the lock's rule, in every process of the run so far
   * @param firstViolation the first of them this process saw, or empty
   * @param mostReaders the most read holds at once, all processes together
   * @param mostHolders the most permit holds at once, all processes together
   * @param holdingAtEnd holds still counted once this process's threads stopped (others may still run)
   */
  record Checked(long reads, long writes, long violations, String firstViolation, long mostReaders, long mostHolders,
      long holdingAtEnd) {

    /** Several processes' figures together: counts added up, the shared ones the largest seen. */
    Checked plus(Checked o) {
      return o == null ? this : new Checked(reads + o.reads, writes + o.writes, Math.max(violations, o.violations),
          firstViolation.isEmpty() ? o.firstViolation : firstViolation, Math.max(mostReaders, o.mostReaders),
          Math.max(mostHolders, o.mostHolders), Math.min(holdingAtEnd, o.holdingAtEnd));
    }

    Map<String, Object> toJson() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("reads", reads);
      m.put("writes", writes);
      m.put("violations", violations);
      m.put("first_violation", firstViolation);
      m.put("most_readers", mostReaders);
      m.put("most_holders", mostHolders);
      m.put("holding_at_end", holdingAtEnd);
      return m;
    }

    static Checked fromJson(Map<?, ?> m) {
      return m == null ? null : new Checked(((Number) m.get("reads")).longValue(), ((Number) m.get("writes")).longValue(),
          ((Number) m.get("violations")).longValue(), (String) m.get("first_violation"),
          ((Number) m.get("most_readers")).longValue(), ((Number) m.get("most_holders")).longValue(),
          ((Number) m.get("holding_at_end")).longValue());
    }
  }

  private LoadPhase() {}

  /**
   * The window {@code nanos} falls in, given the windows' edges (nanoTime values, ascending): -1
   * before the first edge, {@code edges.length - 1} at or after the last.
   */
  static int windowOf(long nanos, long[] edges) {
    int w = -1;
    while (w + 1 < edges.length && nanos - edges[w + 1] >= 0) {
      w++;
    }
    return w;
  }

  /** Per thread and window: counts, histograms, errors; each thread writes only its own slots. */
  private static final class Tally {
    final int windows;
    final LatencyHistogram[][] histograms;
    final long[][] counts;
    final long[][] errors;
    final AtomicReference<String> firstError = new AtomicReference<>("");

    Tally(int threads, int windows) {
      this.windows = windows;
      histograms = new LatencyHistogram[threads][windows];
      counts = new long[threads][windows];
      errors = new long[threads][windows];
      for (LatencyHistogram[] perWindow : histograms) {
        for (int w = 0; w < windows; w++) {
          perWindow[w] = new LatencyHistogram();
        }
      }
    }

    void error(int thread, int window, Throwable e) {
      if (window >= 0 && window < windows) {
        errors[thread][window]++;
      }
      firstError.compareAndSet("", describe(e));
    }

    void acquired(int thread, int window, long latency) {
      if (window >= 0 && window < windows) {
        histograms[thread][window].record(latency);
        counts[thread][window]++;
      }
    }

    Outcome outcome(double[] cpuSeconds, double[] jitSeconds, int stragglers) {
      List<Window> out = new ArrayList<>();
      for (int w = 0; w < windows; w++) {
        LatencyHistogram all = new LatencyHistogram();
        long[] perThread = new long[counts.length];
        long errorCount = 0;
        for (int t = 0; t < counts.length; t++) {
          all.add(histograms[t][w]);
          perThread[t] = counts[t][w];
          errorCount += errors[t][w];
        }
        out.add(new Window(all, perThread, errorCount, cpuSeconds[w], jitSeconds[w]));
      }
      return new Outcome(out, firstError.get(), stragglers);
    }
  }

  /** Runs {@code plan} on {@code client} and returns when all its threads have stopped. */
  static Outcome run(LockClient client, Plan plan) throws InterruptedException, IOException {
    if (client instanceof LockClient.Pipelined pipelined) {
      return runPipelined(pipelined, plan);
    }
    HoldCheck check = null;
    FamilyLock.Counts counts = new FamilyLock.Counts();
    if (plan.workload().kind() != Workload.Kind.EXCLUSIVE) {
      if (!(client instanceof LockClient.Family)) {
        throw new IllegalArgumentException("this implementation has no " + plan.workload().describe());
      }
      check = HoldCheck.map(plan.checkFile(), plan.workload().permits());
    }
    long seed = ThreadLocalRandom.current().nextLong();
    int n = plan.keys().size();
    long[] edges = edgesNanos(plan);
    long end = edges[edges.length - 1];
    long startAt = nanosAt(plan.startAtMillis());
    Tally tally = new Tally(n, plan.windows());
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int index = i;
      LockClient.BenchLock lock = check == null ? client.lock(plan.keys().get(i))
          : new FamilyLock((LockClient.Family) client, plan.keys().get(i), plan.workload(), check, counts, seed + i);
      Thread t = new Thread(() -> {
        sleepUntil(startAt);
        while (!Thread.currentThread().isInterrupted()) {
          long began = System.nanoTime();
          if (began - end >= 0) {
            return;
          }
          LockClient.Hold hold;
          try {
            hold = lock.acquire();
          } catch (InterruptedException e) {
            return;
          } catch (RuntimeException e) {
            tally.error(index, windowOf(System.nanoTime(), edges), e);
            sleepBriefly();
            continue;
          }
          long acquired = System.nanoTime();
          try {
            hold.release();
          } catch (RuntimeException e) {
            tally.error(index, windowOf(System.nanoTime(), edges), e);
          }
          tally.acquired(index, windowOf(acquired, edges), acquired - began);
        }
      }, "bench-" + i);
      t.setDaemon(true);
      threads.add(t);
    }
    threads.forEach(Thread::start);
    double[][] usage = sampleWindows(edges);

    int stragglers = 0;
    long joinBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    for (Thread t : threads) {
      t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(joinBy - System.nanoTime())));
      if (t.isAlive()) {
        stragglers++;
        t.interrupt();
        t.join(5_000);
      }
    }
    Outcome outcome = tally.outcome(usage[0], usage[1], stragglers);
    if (check == null) {
      return outcome;
    }
    return new Outcome(outcome.windows(), outcome.firstError(), outcome.stragglers(), new Checked(counts.reads.sum(),
        counts.writes.sum(), check.violations(), check.firstViolation(), check.mostReaders(), check.mostHolders(),
        check.holding()));
  }

  /**
   * The same windows with one asynchronous loop per key instead of a thread: each loop sends its
   * next acquire from the callback of its previous release.
   */
  private static Outcome runPipelined(LockClient.Pipelined client, Plan plan) throws InterruptedException {
    int n = plan.keys().size();
    long[] edges = edgesNanos(plan);
    Tally tally = new Tally(n, plan.windows());
    CountDownLatch stopped = new CountDownLatch(n);
    sleepUntil(nanosAt(plan.startAtMillis()));
    for (int i = 0; i < n; i++) {
      loop(client, plan.keys().get(i), i, edges, tally, stopped);
    }
    double[][] usage = sampleWindows(edges);
    boolean allStopped = stopped.await(20, TimeUnit.SECONDS);
    return tally.outcome(usage[0], usage[1], allStopped ? 0 : (int) stopped.getCount());
  }

  private static void loop(LockClient.Pipelined client, String key, int index, long[] edges, Tally tally,
      CountDownLatch stopped) {
    if (System.nanoTime() - edges[edges.length - 1] >= 0) {
      stopped.countDown();
      return;
    }
    client.acquireRelease(key).whenComplete((latency, error) -> {
      // Callbacks of one loop run one after another, each after the previous one's future: no races.
      if (error != null) {
        tally.error(index, windowOf(System.nanoTime(), edges), error);
      } else {
        // Counted by when the release was answered: the acquire's own reply time is not kept.
        tally.acquired(index, windowOf(System.nanoTime(), edges), latency);
      }
      loop(client, key, index, edges, tally, stopped);
    });
  }

  private static long[] edgesNanos(Plan plan) {
    return plan.edgesMillis().stream().mapToLong(LoadPhase::nanosAt).toArray();
  }

  /**
   * Sleeps through the windows, reading this process's CPU and JIT time at each edge: per window,
   * {cpu seconds[], jit seconds[]}.
   */
  private static double[][] sampleWindows(long[] edges) {
    int windows = edges.length - 1;
    double[] cpu = new double[windows];
    double[] jit = new double[windows];
    sleepUntil(edges[0]);
    long cpuAt = processCpuNanos();
    long jitAt = jitMillis();
    for (int w = 0; w < windows; w++) {
      sleepUntil(edges[w + 1]);
      long cpuNow = processCpuNanos();
      long jitNow = jitMillis();
      cpu[w] = (cpuNow - cpuAt) / 1e9;
      jit[w] = (jitNow - jitAt) / 1e3;
      cpuAt = cpuNow;
      jitAt = jitNow;
    }
    return new double[][] {cpu, jit};
  }

  static String describe(Throwable e) {
    // Any implementation's message: a Redis URI in it must not show its password.
    String m = e.getClass().getSimpleName() + ": " + RedisUri.redact(e.getMessage());
    return m.length() > 300 ? m.substring(0, 300) : m;
  }

  /** CPU time of this whole process (all threads, JIT and GC included), in nanoseconds. */
  static long processCpuNanos() {
    if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return 0;
  }

  /**
   * Time the JIT compilers have spent compiling since the JVM started, in milliseconds (summed
   * over compiler threads); 0 where the JVM does not tell.
   */
  static long jitMillis() {
    var jit = ManagementFactory.getCompilationMXBean();
    return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : 0;
  }

  /** The {@link System#nanoTime()} value corresponding to the wall clock time {@code millis}. */
  static long nanosAt(long millis) {
    return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis - System.currentTimeMillis());
  }

  static void sleepUntil(long nanoTime) {
    long left;
    while ((left = nanoTime - System.nanoTime()) > 0) {
      try {
        TimeUnit.NANOSECONDS.sleep(left);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private static void sleepBriefly() {
    try {
      Thread.sleep(1);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

package io.relock.bench;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A closed loop of acquire-release on some threads of this process, timed against the wall clock
 * so that threads of several processes run the same window. Each thread acquires its key, releases
 * it at once and goes again. An acquisition counts when its acquire returns inside the measuring
 * window; its latency is the time the acquire call took (waiting included).
 */
final class LoadPhase {

  /**
   * What to run.
   *
   * @param keys one lock name per thread (the same name on every thread for contention)
   * @param startAtMillis wall clock time at which the threads start (the warm-up begins)
   * @param measureFromMillis wall clock start of the measuring window
   * @param measureToMillis wall clock end of the measuring window; threads stop after it
   */
  record Plan(List<String> keys, long startAtMillis, long measureFromMillis, long measureToMillis) {
    Plan {
      keys = List.copyOf(keys);
      if (!(startAtMillis <= measureFromMillis && measureFromMillis < measureToMillis)) {
        throw new IllegalArgumentException("times out of order: " + startAtMillis + ", "
            + measureFromMillis + ", " + measureToMillis);
      }
    }

    double measureSeconds() {
      return (measureToMillis - measureFromMillis) / 1000.0;
    }
  }

  /**
   * What one process measured.
   *
   * @param latencies acquire latencies of the counted acquisitions
   * @param perThread counted acquisitions of each thread
   * @param errors failed acquisitions or releases (the loop goes on after each)
   * @param firstError the first failure's message, or empty
   * @param cpuSeconds CPU this process used during the window
   * @param stragglers threads still waiting long after the window, interrupted
   * @param jitSeconds time the JIT compilers spent compiling during the window (0 if unknown)
   */
  record Outcome(LatencyHistogram latencies, long[] perThread, long errors, String firstError,
      double cpuSeconds, int stragglers, double jitSeconds) {}

  private LoadPhase() {}

  /** Runs {@code plan} on {@code client} and returns when all its threads have stopped. */
  static Outcome run(LockClient client, Plan plan) throws InterruptedException {
    if (client instanceof LockClient.Pipelined pipelined) {
      return runPipelined(pipelined, plan);
    }
    int n = plan.keys().size();
    long measureFrom = nanosAt(plan.measureFromMillis());
    long measureTo = nanosAt(plan.measureToMillis());
    long startAt = nanosAt(plan.startAtMillis());
    LatencyHistogram[] histograms = new LatencyHistogram[n];
    long[] counts = new long[n];
    long[] errors = new long[n];
    AtomicReference<String> firstError = new AtomicReference<>("");
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int index = i;
      histograms[i] = new LatencyHistogram();
      LockClient.BenchLock lock = client.lock(plan.keys().get(i));
      Thread t = new Thread(() -> {
        sleepUntil(startAt);
        while (!Thread.currentThread().isInterrupted()) {
          long began = System.nanoTime();
          if (began - measureTo >= 0) {
            return;
          }
          LockClient.Hold hold;
          try {
            hold = lock.acquire();
          } catch (InterruptedException e) {
            return;
          } catch (RuntimeException e) {
            errors[index]++;
            firstError.compareAndSet("", describe(e));
            sleepBriefly();
            continue;
          }
          long acquired = System.nanoTime();
          try {
            hold.release();
          } catch (RuntimeException e) {
            errors[index]++;
            firstError.compareAndSet("", describe(e));
          }
          if (acquired - measureFrom >= 0 && acquired - measureTo < 0) {
            histograms[index].record(acquired - began);
            counts[index]++;
          }
        }
      }, "bench-" + i);
      t.setDaemon(true);
      threads.add(t);
    }
    threads.forEach(Thread::start);

    sleepUntil(measureFrom);
    long cpuFrom = processCpuNanos();
    long jitFrom = jitMillis();
    sleepUntil(measureTo);
    long cpuTo = processCpuNanos();
    double jit = (jitMillis() - jitFrom) / 1e3;

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
    LatencyHistogram all = new LatencyHistogram();
    long errorCount = 0;
    for (int i = 0; i < n; i++) {
      all.add(histograms[i]);
      errorCount += errors[i];
    }
    return new Outcome(all, counts, errorCount, firstError.get(), (cpuTo - cpuFrom) / 1e9, stragglers, jit);
  }

  /**
   * The same window with one asynchronous loop per key instead of a thread: each loop sends its
   * next acquire from the callback of its previous release.
   */
  private static Outcome runPipelined(LockClient.Pipelined client, Plan plan) throws InterruptedException {
    int n = plan.keys().size();
    long measureFrom = nanosAt(plan.measureFromMillis());
    long measureTo = nanosAt(plan.measureToMillis());
    LatencyHistogram[] histograms = new LatencyHistogram[n];
    long[] counts = new long[n];
    long[] errors = new long[n];
    AtomicReference<String> firstError = new AtomicReference<>("");
    CountDownLatch stopped = new CountDownLatch(n);
    sleepUntil(nanosAt(plan.startAtMillis()));
    for (int i = 0; i < n; i++) {
      histograms[i] = new LatencyHistogram();
    }
    for (int i = 0; i < n; i++) {
      loop(client, plan.keys().get(i), i, measureFrom, measureTo, histograms, counts, errors, firstError, stopped);
    }
    sleepUntil(measureFrom);
    long cpuFrom = processCpuNanos();
    long jitFrom = jitMillis();
    sleepUntil(measureTo);
    long cpuTo = processCpuNanos();
    double jit = (jitMillis() - jitFrom) / 1e3;
    boolean allStopped = stopped.await(20, TimeUnit.SECONDS);
    LatencyHistogram all = new LatencyHistogram();
    long errorCount = 0;
    for (int i = 0; i < n; i++) {
      all.add(histograms[i]);
      errorCount += errors[i];
    }
    return new Outcome(all, counts, errorCount, firstError.get(), (cpuTo - cpuFrom) / 1e9,
        allStopped ? 0 : (int) stopped.getCount(), jit);
  }

  private static void loop(LockClient.Pipelined client, String key, int index, long measureFrom, long measureTo,
      LatencyHistogram[] histograms, long[] counts, long[] errors, AtomicReference<String> firstError,
      CountDownLatch stopped) {
    if (System.nanoTime() - measureTo >= 0) {
      stopped.countDown();
      return;
    }
    client.acquireRelease(key).whenComplete((latency, error) -> {
      // Callbacks of one loop run one after another, each after the previous one's future: no races.
      if (error != null) {
        errors[index]++;
        firstError.compareAndSet("", describe(error));
      } else {
        // Counted by when the release was answered: the acquire's own reply time is not kept.
        long released = System.nanoTime();
        if (released - measureFrom >= 0 && released - measureTo < 0) {
          histograms[index].record(latency);
          counts[index]++;
        }
      }
      loop(client, key, index, measureFrom, measureTo, histograms, counts, errors, firstError, stopped);
    });
  }

  static String describe(Throwable e) {
    String m = e.getClass().getSimpleName() + ": " + e.getMessage();
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

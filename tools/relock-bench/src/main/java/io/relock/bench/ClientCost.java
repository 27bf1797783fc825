package io.relock.bench;

import com.sun.management.OperatingSystemMXBean;
import io.micrometer.observation.ObservationRegistry;
import io.relock.LockLease;
import io.relock.Relock;
import io.relock.jedis.JedisDriver;
import io.relock.lettuce.LettuceDriver;
import io.relock.micrometer.RelockObservations;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;

/**
 * The {@code --client} run: what relock's client itself costs, in this one process, on each
 * driver (Lettuce, then Jedis) against one Redis, with nothing contended:
 * <ul>
 *   <li>a multi-lock of two free locks, taken in one call and released together, beside the same
 *       two locks taken and released one after the other (what a multi-lock did before it had the
 *       one-call path, and still does across Cluster slots);
 *   <li>one thread taking and releasing one lock: the time per operation and the client's CPU per
 *       operation (all its threads);
 *   <li>eight threads, each on a lock of its own: operations per second and CPU per operation;
 *   <li>one thread taking and releasing one lock three ways, their windows taking turns: with no
 *       observer, with {@link RelockObservations} on a no-op registry (what an application without
 *       tracing pays), and on a registry with one handler that does nothing (the Observations'
 *       own cost, before any tracer's);
 *   <li>{@link GuardedSections}: a guarded section beside a plain lease, and how soon a forced unlock
 *       stops a guarded task.
 * </ul>
 * Each figure is the median of its windows after one window of warm-up, with the range of the
 * windows beside it.
 */
final class ClientCost {
  private static final String FIRST = "client-cost-a";
  private static final String SECOND = "client-cost-b";
  private static final int THREADS = 8;

  private final int windows;
  private final int opsPerWindow;
  private final Duration threadWindow;
  private final OperatingSystemMXBean os =
      (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  ClientCost(boolean shortRun) {
    this.windows = shortRun ? 3 : 5;
    this.opsPerWindow = shortRun ? 5_000 : 20_000;
    this.threadWindow = Duration.ofMillis(shortRun ? 1_000 : 3_000);
  }

  /** One figure per window: time and client CPU per operation, in microseconds. */
  private record PerOp(Spread wallMicros, Spread cpuMicros) {}

  /** The threads' run: operations per second, and time and CPU per operation. */
  private record Parallel(Spread opsPerSecond, PerOp perOp) {}

  void run(String uri, PrintStream log) throws Exception {
    Table table = new Table("client cost per operation, nothing contended (median of " + windows
        + " windows after one of warm-up; range in brackets)", List.of("driver", "what", "us per op", "client CPU us per op",
        "ops per second"));
    List<String> summary = new ArrayList<>();
    for (String driver : List.of("lettuce", "jedis")) {
      log.println("client: " + driver + " ...");
      try (Relock relock = Relock.builder().driver(connect(driver, uri)).build()) {
        PerOp joint = perOp(() -> {
          try (LockLease both = relock.multiLock(FIRST, SECOND).acquire(Duration.ZERO)) {
            both.fencingToken();
          }
        });
        PerOp oneByOne = perOp(() -> {
          try (LockLease a = relock.lock(FIRST).acquire(Duration.ZERO);
              LockLease b = relock.lock(SECOND).acquire(Duration.ZERO)) {
            b.fencingToken();
          }
        });
        PerOp single = perOp(() -> relock.lock(FIRST).acquire(Duration.ZERO).close());
        Parallel threads = threads(relock);
        List<PerOp> observed = observedTurns(relock);
        GuardedSections guardedSections = new GuardedSections(windows, opsPerWindow, opsPerWindow < 20_000);
        GuardedSections.Cost[] guarded = guardedSections.costTurns(relock);
        add(table, driver, "multi-lock of 2, one call", joint, null);
        add(table, driver, "the same 2 locks one by one", oneByOne, null);
        add(table, driver, "1 lock, 1 thread", single, null);
        add(table, driver, THREADS + " threads, a lock each", threads.perOp(), threads.opsPerSecond());
        add(table, driver, "1 lock, 1 thread: not observed (turns)", observed.get(0), null);
        add(table, driver, "1 lock, 1 thread: observations, no-op registry (turns)", observed.get(1), null);
        add(table, driver, "1 lock, 1 thread: observations, 1 idle handler (turns)", observed.get(2), null);
        add(table, driver, "1 lock, 1 thread: plain lease (turns)", new PerOp(guarded[0].wallMicros(), guarded[0].cpuMicros()), null);
        add(table, driver, "1 lock, 1 thread: guarded section, runLocked (turns)",
            new PerOp(guarded[1].wallMicros(), guarded[1].cpuMicros()), null);
        try (Relock operator = Relock.builder().driver(connect(driver, uri)).build()) {
          summary.add(guardedSections.lossDelays(relock, operator, driver, log));
        }
        summary.add(String.format(Locale.ROOT, "%s_multi_vs_one_by_one=%.2f %s_threads_ops_s=%.0f %s_threads_cpu_us=%.0f",
            driver, oneByOne.wallMicros().median() / joint.wallMicros().median(), driver,
            threads.opsPerSecond().median(), driver, threads.perOp().cpuMicros().median())
            + String.format(Locale.ROOT, " %s_noop_observed_vs_not=%.3f %s_observed_vs_not=%.3f", driver,
            observed.get(1).wallMicros().median() / observed.get(0).wallMicros().median(), driver,
            observed.get(2).wallMicros().median() / observed.get(0).wallMicros().median()));
      }
    }
    log.println(table.toText());
    log.println("bench: client " + String.join(" ", summary));
  }

  private static RedisDriver connect(String driver, String uri) {
    DriverSettings settings = new DriverSettings(Duration.ofSeconds(2), Duration.ofSeconds(5), "relock-bench-client");
    return driver.equals("jedis") ? JedisDriver.connect(uri, settings) : LettuceDriver.connect(uri, settings);
  }

  private static void add(Table table, String driver, String what, PerOp p, Spread opsPerSecond) {
    table.add(driver, what, cell(p.wallMicros(), 0), cell(p.cpuMicros(), 0), opsPerSecond == null ? "-" : cell(opsPerSecond, 0));
  }

  private static String cell(Spread s, int decimals) {
    return String.format(Locale.ROOT, "%,." + decimals + "f (%s)", s.median(), s.rangeText(decimals));
  }

  /**
   * One lock taken and released on this thread with no observer, with {@link RelockObservations}
   * on {@link ObservationRegistry#NOOP}, and on a registry with one idle handler; their windows
   * take turns, so that the machine's drift falls on all three alike.
   */
  private List<PerOp> observedTurns(Relock relock) {
    ObservationRegistry idle = ObservationRegistry.create();
    idle.observationConfig().observationHandler(context -> true);
    List<ObservationRegistry> registries = java.util.Arrays.asList(null, ObservationRegistry.NOOP, idle);
    double[][] wall = new double[3][windows];
    double[][] cpu = new double[3][windows];
    for (int w = -1; w < windows; w++) {
      for (int k = 0; k < 3; k++) {
        RelockObservations installed = registries.get(k) == null ? null : RelockObservations.install(relock, registries.get(k));
        long cpuBefore = os.getProcessCpuTime();
        long began = System.nanoTime();
        for (int i = 0; i < opsPerWindow; i++) {
          relock.lock(FIRST).acquire(Duration.ZERO).close();
        }
        if (w >= 0) {
          wall[k][w] = (System.nanoTime() - began) / 1000.0 / opsPerWindow;
          cpu[k][w] = (os.getProcessCpuTime() - cpuBefore) / 1000.0 / opsPerWindow;
        }
        if (installed != null) {
          installed.close();
        }
      }
    }
    List<PerOp> out = new ArrayList<>();
    for (int k = 0; k < 3; k++) {
      out.add(new PerOp(Spread.of(wall[k]), Spread.of(cpu[k])));
    }
    return out;
  }

  /** {@code op} run {@link #opsPerWindow} times per window on this thread. */
  private PerOp perOp(Runnable op) {
    double[] wall = new double[windows];
    double[] cpu = new double[windows];
    for (int w = -1; w < windows; w++) {
      long cpuBefore = os.getProcessCpuTime();
      long began = System.nanoTime();
      for (int i = 0; i < opsPerWindow; i++) {
        op.run();
      }
      if (w >= 0) {
        wall[w] = (System.nanoTime() - began) / 1000.0 / opsPerWindow;
        cpu[w] = (os.getProcessCpuTime() - cpuBefore) / 1000.0 / opsPerWindow;
      }
    }
    return new PerOp(Spread.of(wall), Spread.of(cpu));
  }

  /** {@link #THREADS} threads, each taking and releasing a lock of its own for a window. */
  private Parallel threads(Relock relock) throws InterruptedException {
    double[] rate = new double[windows];
    double[] wall = new double[windows];
    double[] cpu = new double[windows];
    for (int w = -1; w < windows; w++) {
      LongAdder ops = new LongAdder();
      long cpuBefore = os.getProcessCpuTime();
      long began = System.nanoTime();
      long end = began + threadWindow.toNanos();
      List<Thread> running = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        String name = "client-cost-thread-" + t;
        Thread thread = new Thread(() -> {
          while (System.nanoTime() - end < 0) {
            relock.lock(name).acquire(Duration.ZERO).close();
            ops.increment();
          }
        });
        thread.start();
        running.add(thread);
      }
      for (Thread thread : running) {
        thread.join();
      }
      if (w >= 0) {
        double seconds = (System.nanoTime() - began) / 1e9;
        rate[w] = ops.sum() / seconds;
        wall[w] = seconds * 1e6 * THREADS / ops.sum();
        cpu[w] = (os.getProcessCpuTime() - cpuBefore) / 1000.0 / ops.sum();
      }
    }
    return new Parallel(Spread.of(rate), new PerOp(Spread.of(wall), Spread.of(cpu)));
  }
}

package io.relock.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A worker process: the bench starts several on the same class path and drives them through
 * their standard input, one JSON command a line; each answers with one line starting with {@value
 * #REPLY_PREFIX} followed by a JSON object. Everything else a library prints goes to standard
 * error. Commands:
 * <ul>
 *   <li>{@code open {impl, lease_ms, probe}}: connect a client of that implementation; with {@code
 *       probe}, also take and release one lock, so that a client that connects on first use has;
 *   <li>{@code run {keys, start_at, edges, workload?, check_file?}}: a {@link LoadPhase} on the open
 *       client, one reply entry per measuring window; with a lock family {@link Workload}, what its
 *       {@link HoldCheck} on {@code check_file} saw too;
 *   <li>{@code hold {count, threads}}: acquire {@code count} locks and keep them;
 *   <li>{@code hold-key {key}}: acquire that lock and keep it (a holder the harness will kill);
 *   <li>{@code await-keys {keys, timeout_ms}}: acquire those locks at once, one thread each, and
 *       answer with when each was acquired (the next holders after a kill);
 *   <li>{@code sample}: process CPU and heap (after a GC) now;
 *   <li>{@code close}: close the client; {@code exit}: end the process.
 * </ul>
 */
public final class BenchWorker {

  static final String REPLY_PREFIX = "@bench ";

  private final BenchTarget target;
  private final PrintStream out;
  private LockClient client;
  private final List<LockClient.Hold> held = new ArrayList<>();
  private long baselineHeap;

  private BenchWorker(BenchTarget target, PrintStream out) {
    this.target = target;
    this.out = out;
  }

  /** The environment variable that tells a worker its {@link BenchTarget}, password included. */
  static final String TARGET_VARIABLE = "RELOCK_BENCH_TARGET";

  public static void main(String[] args) throws Exception {
    String target = System.getenv(TARGET_VARIABLE);
    if (args.length != 0 || target == null || target.isBlank()) {
      System.err.println("usage: " + TARGET_VARIABLE + "=<redis uri | redis-sentinel://... | redis-cluster://...>"
          + " BenchWorker   (started by BenchMain)");
      System.exit(2);
    }
    BenchMain.quietLogging();
    BenchMain.pinDriver();
    // Libraries print to stdout at times; keep stdout for replies only.
    PrintStream replies = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true,
        StandardCharsets.UTF_8);
    System.setOut(System.err);
    new BenchWorker(BenchTarget.parse(target), replies).serve();
  }

  private void serve() throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    reply(Map.of("ready", true));
    String line;
    while ((line = in.readLine()) != null) {
      Map<String, Object> cmd = BenchJson.readObject(line);
      String name = (String) cmd.get("cmd");
      try {
        if ("exit".equals(name)) {
          closeClient();
          reply(Map.of("ok", true));
          break;
        }
        reply(handle(name, cmd));
      } catch (Exception e) {
        e.printStackTrace();
        reply(Map.of("error", LoadPhase.describe(e)));
      }
    }
    System.exit(0);
  }

  private Map<String, Object> handle(String name, Map<String, Object> cmd) throws Exception {
    Map<String, Object> r = new LinkedHashMap<>();
    switch (name) {
      case "open" -> {
        closeClient();
        baselineHeap = heapAfterGc();
        Implementation impl = Implementation.byId((String) cmd.get("impl"));
        client = impl.open(target, Duration.ofMillis(((Number) cmd.get("lease_ms")).longValue()),
            (String) cmd.get("endpoint"));
        if (Boolean.TRUE.equals(cmd.get("probe"))) {
          // Some clients connect on first use (Spring's connection factory): take that out of the windows.
          client.lock("bench-open-" + ProcessHandle.current().pid()).acquire().release();
        }
      }
      case "run" -> {
        @SuppressWarnings("unchecked")
        List<String> keys = (List<String>) cmd.get("keys");
        List<Long> edges = ((List<?>) cmd.get("edges")).stream().map(e -> ((Number) e).longValue()).toList();
        String checkFile = (String) cmd.get("check_file");
        LoadPhase.Outcome o = LoadPhase.run(client, new LoadPhase.Plan(keys, longOf(cmd, "start_at"), edges,
            Workload.fromJson((Map<?, ?>) cmd.get("workload")), checkFile == null ? null : java.nio.file.Path.of(checkFile)));
        List<Map<String, Object>> windows = new ArrayList<>();
        for (LoadPhase.Window w : o.windows()) {
          Map<String, Object> window = new LinkedHashMap<>();
          window.put("histogram", w.latencies().encode());
          window.put("per_thread", java.util.Arrays.stream(w.perThread()).boxed().toList());
          window.put("errors", w.errors());
          window.put("cpu_s", w.cpuSeconds());
          window.put("jit_s", w.jitSeconds());
          windows.add(window);
        }
        r.put("windows", windows);
        r.put("first_error", o.firstError());
        r.put("stragglers", o.stragglers());
        if (o.checked() != null) {
          r.put("checked", o.checked().toJson());
        }
      }
      case "hold" -> {
        int count = ((Number) cmd.get("count")).intValue();
        int threads = ((Number) cmd.get("threads")).intValue();
        long began = System.nanoTime();
        holdLocks(count, threads);
        r.put("acquire_s", (System.nanoTime() - began) / 1e9);
      }
      case "hold-key" -> {
        String key = (String) cmd.get("key");
        held.add(client.lock(key).acquire());
      }
      case "await-keys" -> {
        @SuppressWarnings("unchecked")
        List<String> keys = (List<String>) cmd.get("keys");
        r.put("acquired_at_ns", awaitKeys(keys, Duration.ofMillis(longOf(cmd, "timeout_ms"))));
      }
      case "sample" -> {
        r.put("cpu_ns", LoadPhase.processCpuNanos());
        r.put("heap_bytes", heapAfterGc() - baselineHeap);
      }
      case "close" -> closeClient();
      default -> throw new IllegalArgumentException("unknown command " + name);
    }
    r.put("ok", true);
    return r;
  }

  private void holdLocks(int count, int threads) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<List<LockClient.Hold>>> parts = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int first = t;
        parts.add(pool.submit(() -> {
          List<LockClient.Hold> mine = new ArrayList<>();
          for (int i = first; i < count; i += threads) {
            mine.add(client.lock("held-" + i).acquire());
          }
          return mine;
        }));
      }
      for (Future<List<LockClient.Hold>> part : parts) {
        held.addAll(part.get());
      }
    } finally {
      pool.shutdown();
    }
  }

  /**
   * Acquires each of {@code keys} on a thread of its own, all at once, and keeps them; returns
   * when all are held or {@code timeout} has passed, each key's {@link System#nanoTime()} when its
   * acquire returned (-1 if it did not within the timeout). On Linux nanoTime is the system-wide
   * monotonic clock, so the harness can set it against the moment it killed the previous holder.
   */
  private List<Long> awaitKeys(List<String> keys, Duration timeout) throws InterruptedException {
    long[] at = new long[keys.size()];
    java.util.Arrays.fill(at, -1);
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      int index = i;
      LockClient.BenchLock lock = client.lock(keys.get(i));
      Thread t = new Thread(() -> {
        try {
          LockClient.Hold hold = lock.acquire();
          at[index] = System.nanoTime();
          synchronized (held) {
            held.add(hold);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
          System.err.println("await-keys: " + keys.get(index) + ": " + LoadPhase.describe(e));
        }
      }, "await-" + keys.get(i));
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
    long until = System.nanoTime() + timeout.toNanos();
    for (Thread t : threads) {
      t.join(Math.max(1, (until - System.nanoTime()) / 1_000_000));
    }
    threads.forEach(Thread::interrupt);
    List<Long> out = new ArrayList<>();
    for (long a : at) {
      out.add(a);
    }
    return out;
  }

  private void closeClient() {
    held.clear();
    if (client != null) {
      client.close();
      client = null;
    }
  }

  private static long longOf(Map<String, Object> cmd, String key) {
    return ((Number) cmd.get(key)).longValue();
  }

  static long heapAfterGc() {
    for (int i = 0; i < 3; i++) {
      System.gc();
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private void reply(Map<String, Object> r) {
    out.println(REPLY_PREFIX + BenchJson.line(r));
  }
}

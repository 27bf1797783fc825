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
 *   <li>{@code open {impl, lease_ms}}: connect a client of that implementation;
 *   <li>{@code run {keys, start_at, from, to}}: a {@link LoadPhase} on the open client;
 *   <li>{@code hold {count, threads}}: acquire {@code count} locks and keep them;
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

  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println("usage: BenchWorker <redis uri | redis-sentinel://... | redis-cluster://...>   (started by BenchMain)");
      System.exit(2);
    }
    BenchMain.quietLogging();
    // Libraries print to stdout at times; keep stdout for replies only.
    PrintStream replies = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true,
        StandardCharsets.UTF_8);
    System.setOut(System.err);
    new BenchWorker(BenchTarget.parse(args[0]), replies).serve();
  }

  private void serve() throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    reply(Map.of("ready", true));
    String line;
    while ((line = in.readLine()) != null) {
      Map<String, Object> cmd = Json.parseObject(line);
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
        client = impl.open(target, Duration.ofMillis(((Number) cmd.get("lease_ms")).longValue()));
      }
      case "run" -> {
        @SuppressWarnings("unchecked")
        List<String> keys = (List<String>) cmd.get("keys");
        LoadPhase.Plan plan = new LoadPhase.Plan(keys, longOf(cmd, "start_at"), longOf(cmd, "from"),
            longOf(cmd, "to"));
        LoadPhase.Outcome o = LoadPhase.run(client, plan);
        r.put("histogram", o.latencies().encode());
        List<Long> perThread = new ArrayList<>();
        for (long c : o.perThread()) {
          perThread.add(c);
        }
        r.put("per_thread", perThread);
        r.put("errors", o.errors());
        r.put("first_error", o.firstError());
        r.put("cpu_s", o.cpuSeconds());
        r.put("stragglers", o.stragglers());
        r.put("jit_s", o.jitSeconds());
      }
      case "hold" -> {
        int count = ((Number) cmd.get("count")).intValue();
        int threads = ((Number) cmd.get("threads")).intValue();
        long began = System.nanoTime();
        holdLocks(count, threads);
        r.put("acquire_s", (System.nanoTime() - began) / 1e9);
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
    out.println(REPLY_PREFIX + Json.write(r));
  }
}

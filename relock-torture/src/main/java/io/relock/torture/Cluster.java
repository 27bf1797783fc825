package io.relock.torture;

import io.relock.testkit.JvmProcess;
import io.relock.testkit.RedisServer;
import io.relock.testkit.TcpProxy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Everything one run needs: the lock Redis (the one under fault), the fenced store's Redis (never
 * faulted), and the worker processes, each reaching the lock Redis through a {@link TcpProxy} of
 * its own, so that one worker can be cut off while the others carry on.
 */
final class Cluster implements AutoCloseable {
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
  private static final List<String> WORKER_JVM_OPTIONS =
      List.of("-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

  /** One worker process and its proxy. */
  static final class Worker {
    final String name;
    final TcpProxy proxy;
    final JvmProcess process;
    final Path history;
    volatile String clientId;
    volatile boolean killed;

    Worker(String name, TcpProxy proxy, JvmProcess process, Path history) {
      this.name = name;
      this.proxy = proxy;
      this.process = process;
      this.history = history;
    }

    @Override
    public String toString() {
      return name + " (pid " + process.pid() + ")";
    }
  }

  final TortureSettings settings;
  final Path runDir;
  final RedisServer lockRedis;
  final RedisServer storeRedis;
  final List<Worker> workers = new CopyOnWriteArrayList<>();
  /** The nemesis's history, which also records the workers killed at the end of a run. */
  final HistoryWriter log;
  private final Path stopFile;
  private final long seed;
  private final int abandonOneIn;
  private int started;

  private Cluster(TortureSettings settings, Path runDir, long seed, int abandonOneIn, RedisServer lockRedis,
      RedisServer storeRedis, HistoryWriter log) {
    this.settings = settings;
    this.abandonOneIn = abandonOneIn;
    this.log = log;
    this.runDir = runDir;
    this.seed = seed;
    this.lockRedis = lockRedis;
    this.storeRedis = storeRedis;
    this.stopFile = runDir.resolve("stop");
  }

  /**
   * Starts both servers and {@link TortureSettings#processes()} workers; returns once all are ready.
   *
   * @param abandonOneIn see {@link WorkerConfig#abandonOneIn()}
   */
  static Cluster start(TortureSettings settings, Path runDir, long seed, int abandonOneIn, HistoryWriter log) {
    try {
      Files.createDirectories(runDir);
      Files.deleteIfExists(runDir.resolve("stop"));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare " + runDir, e);
    }
    RedisServer lock = RedisServer.start();
    RedisServer store = null;
    try {
      store = RedisServer.start();
      Cluster c = new Cluster(settings, runDir, seed, abandonOneIn, lock, store, log);
      List<Worker> starting = new ArrayList<>();
      for (int i = 0; i < settings.processes(); i++) {
        starting.add(c.launchWorker());
      }
      for (Worker w : starting) {
        c.awaitReady(w);
      }
      return c;
    } catch (RuntimeException e) {
      lock.close();
      if (store != null) {
        store.close();
      }
      throw e;
    }
  }

  /** Starts one more worker (a replacement for a killed one) and waits until it is ready. */
  Worker addWorker() {
    Worker w = launchWorker();
    awaitReady(w);
    return w;
  }

  private synchronized Worker launchWorker() {
    String name = "w" + (++started);
    TcpProxy proxy = TcpProxy.start(lockRedis.host(), lockRedis.port());
    Path history = runDir.resolve(name + ".jsonl");
    WorkerConfig config = new WorkerConfig(name, proxy.uri(), storeRedis.uri(), history, stopFile,
        settings.threads(), settings.locks(), settings.lease(), settings.commandTimeout(),
        settings.recheckInterval(), settings.acquireWait(), settings.holdMin(), settings.holdMax(),
        settings.longHoldOneIn(), settings.longHoldMax(), abandonOneIn, seed * 1009 + started);
    JvmProcess process;
    try {
      process = JvmProcess.start(WORKER_JVM_OPTIONS, WorkerMain.class, config.toArgs().toArray(String[]::new));
    } catch (RuntimeException e) {
      proxy.close();
      throw e;
    }
    Worker w = new Worker(name, proxy, process, history);
    workers.add(w);
    return w;
  }

  private void awaitReady(Worker w) {
    String line = w.process.awaitLine(l -> l.startsWith("ready "), READY_TIMEOUT);
    w.clientId = line.substring("ready ".length()).trim();
  }

  List<Worker> alive() {
    return workers.stream().filter(w -> !w.killed).toList();
  }

  /**
   * Which live worker holds each lock now, read straight from the lock Redis (locks that nobody
   * holds, or that a killed worker still holds, are absent).
   */
  Map<String, Worker> holders() {
    Map<String, Worker> holders = new LinkedHashMap<>();
    for (String lock : settings.locks()) {
      Object owner = lockRedis.execute("HGET", "relock:{" + lock + "}", "o");
      if (owner instanceof String o) {
        for (Worker w : alive()) {
          if (w.clientId != null && o.startsWith(w.clientId + ":")) {
            holders.put(lock, w);
          }
        }
      }
    }
    return holders;
  }

  /**
   * Asks every worker to stop after its current critical sections and waits for them to exit;
   * returns the workers that had to be killed because they did not.
   */
  List<Worker> stopWorkers(Duration patience) {
    try {
      Files.createFile(stopFile);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + stopFile, e);
    }
    List<Worker> forced = new ArrayList<>();
    long deadline = System.nanoTime() + patience.toNanos();
    for (Worker w : alive()) {
      long left = Math.max(1, deadline - System.nanoTime());
      try {
        w.process.waitFor(Duration.ofNanos(left));
      } catch (IllegalStateException stillRunning) {
        log.record(Event.KILLED, null, null, 0, HistoryWriter.fields("target", w.name, "reason", "did not stop"));
        w.process.kill9();
        w.killed = true;
        forced.add(w);
      }
    }
    return forced;
  }

  @Override
  public void close() {
    for (Worker w : workers) {
      w.process.close();
      w.proxy.close();
    }
    lockRedis.close();
    storeRedis.close();
  }
}

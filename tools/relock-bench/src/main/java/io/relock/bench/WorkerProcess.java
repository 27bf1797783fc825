package io.relock.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The harness's side of one {@link BenchWorker}: a child JVM on this process's class path, with
 * its standard error kept in a log file.
 */
final class WorkerProcess implements AutoCloseable {

  private final Process process;
  private final Writer commands;
  private final BlockingQueue<String> replies = new LinkedBlockingQueue<>();
  private final String name;
  /** Whether it was asked to exit already. */
  private boolean exiting;

  private WorkerProcess(Process process, String name) {
    this.process = process;
    this.name = name;
    this.commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    Thread reader = new Thread(this::readReplies, name + "-replies");
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Starts a worker and waits until it is ready; {@code target} is where its clients connect (in
   * its environment, see {@link BenchWorker#TARGET_VARIABLE} and {@link BenchTarget}): one Redis
   * URI, or a Sentinel or Cluster target.
   */
  static WorkerProcess start(String name, BenchTarget target, Path log) {
    WorkerProcess w = launch(name, target, log);
    w.await(READY_TIMEOUT);
    return w;
  }

  /**
   * Starts {@code names.size()} workers at once (JVMs start faster side by side than one after
   * another) and waits until all are ready; each logs to {@code logDir/<name>.log}.
   */
  static List<WorkerProcess> startAll(List<String> names, BenchTarget target, Path logDir) {
    List<WorkerProcess> started = new ArrayList<>();
    try {
      for (String name : names) {
        started.add(launch(name, target, logDir.resolve(name + ".log")));
      }
      started.forEach(w -> w.await(READY_TIMEOUT));
      return started;
    } catch (RuntimeException e) {
      started.forEach(WorkerProcess::close);
      throw e;
    }
  }

  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

  private static WorkerProcess launch(String name, BenchTarget target, Path log) {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx1g", "-Djava.awt.headless=true"));
    // For profiling, e.g. RELOCK_BENCH_WORKER_OPTS="-XX:StartFlightRecording=filename=w.jfr"; {name} is replaced.
    String extra = System.getenv("RELOCK_BENCH_WORKER_OPTS");
    if (extra != null && !extra.isBlank()) {
      for (String option : extra.trim().split("\\s+")) {
        command.add(option.replace("{name}", name));
      }
    }
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), BenchWorker.class.getName()));
    ProcessBuilder pb = new ProcessBuilder(command);
    // In the environment, not on the command line: a REDIS_URL's password stays out of the process list.
    pb.environment().put(BenchWorker.TARGET_VARIABLE, target.spec());
    pb.redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
    try {
      return new WorkerProcess(pb.start(), name);
    } catch (IOException e) {
      throw new UncheckedIOException("could not start worker " + name, e);
    }
  }

  private void readReplies() {
    try (BufferedReader in = new BufferedReader(
        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        if (line.startsWith(BenchWorker.REPLY_PREFIX)) {
          replies.add(line.substring(BenchWorker.REPLY_PREFIX.length()));
        }
      }
    } catch (IOException e) {
      // The process ended; await() reports it.
    }
  }

  /** Sends one command without waiting for its reply. */
  void send(Map<String, Object> command) {
    try {
      commands.write(BenchJson.line(command));
      commands.write('\n');
      commands.flush();
    } catch (IOException e) {
      throw new IllegalStateException("worker " + name + " is gone", e);
    }
  }

  /**
   * The next reply.
   *
   * @throws IllegalStateException if the worker reported an error, died, or did not answer in time
   */
  Map<String, Object> await(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      while (true) {
        String line = replies.poll(100, TimeUnit.MILLISECONDS);
        if (line != null) {
          Map<String, Object> reply = BenchJson.readObject(line);
          if (reply.containsKey("error")) {
            throw new IllegalStateException("worker " + name + ": " + reply.get("error"));
          }
          return reply;
        }
        if (!process.isAlive() && replies.isEmpty()) {
          throw new IllegalStateException("worker " + name + " exited with " + process.exitValue());
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("worker " + name + " did not answer within " + timeout);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for worker " + name, e);
    }
  }

  Map<String, Object> call(Map<String, Object> command, Duration timeout) {
    send(command);
    return await(timeout);
  }

  String name() {
    return name;
  }

  boolean alive() {
    return process.isAlive();
  }

  /**
   * Kills the worker at once with SIGKILL, as a crash would: no shutdown hooks, no release, its
   * sockets closed by the kernel. Returns the {@link System#nanoTime()} just before the signal.
   */
  long kill() {
    long at = System.nanoTime();
    process.destroyForcibly();
    return at;
  }

  /** Closes every worker, all at once: each is asked to exit before any is waited for. */
  static void closeAll(List<WorkerProcess> workers) {
    for (WorkerProcess w : workers) {
      try {
        if (w.process.isAlive()) {
          w.send(java.util.Map.of("cmd", "exit"));
          w.exiting = true;
        }
      } catch (RuntimeException e) {
        w.process.destroyForcibly();
      }
    }
    workers.forEach(WorkerProcess::close);
  }

  @Override
  public void close() {
    try {
      if (process.isAlive()) {
        if (!exiting) {
          send(Map.of("cmd", "exit"));
        }
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
          process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
      }
    } catch (RuntimeException e) {
      process.destroyForcibly();
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}

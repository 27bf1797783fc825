package io.relock.demo.load;

import io.relock.demo.production.OrderWriter;
import io.relock.testkit.JvmProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The production strategy's order writer processes ({@link OrderWriter}), each a plain JVM named
 * {@code w1}, {@code w2}, ..., all writing every partition of the given items to one database. The
 * demo strikes them with faults ({@link FaultDirector}) and stops them with SIGTERM at the end, so
 * that they release their partition locks.
 */
public final class WriterFleet implements AutoCloseable {

  private static final Duration STARTUP_DEADLINE = Duration.ofSeconds(120);
  private static final Duration STOP_DEADLINE = Duration.ofSeconds(20);

  /** As the service processes': small heaps, serial GC, C1 only; the writers mostly wait on I/O. */
  private static final List<String> JVM_OPTIONS =
      List.of("-Xms32m", "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss512k");

  private final List<String> names;
  private final List<JvmProcess> processes;

  private WriterFleet(List<String> names, List<JvmProcess> processes) {
    this.names = names;
    this.processes = processes;
  }

  /**
   * Starts {@code count} writers and returns once each is running.
   *
   * @param redisUri the sales' Redis; null when the writers should read {@code REDIS_URL}
   * @param jdbcUrl the orders' database; null when the writers should read {@code DATABASE_URL}
   *     (either way keeps a password out of the process list)
   * @param items the items whose orders they write
   * @param partitions the order streams per item, as the services have them
   * @param lease the writers' partition lease: how soon a stopped writer's partitions are taken over
   * @param faultPoints whether the writers obey the demo's fault plans
   * @throws IllegalStateException with the output, if a writer does not start within 120 s
   */
  public static WriterFleet start(int count, String redisUri, String jdbcUrl, List<String> items, int partitions,
      Duration lease, boolean faultPoints) {
    if (count < 1) {
      throw new IllegalArgumentException("at least one order writer is needed: " + count);
    }
    List<String> names = new ArrayList<>();
    List<JvmProcess> processes = new ArrayList<>();
    try {
      for (int i = 1; i <= count; i++) {
        String name = "w" + i;
        List<String> args = new ArrayList<>(List.of("--name", name, "--items", String.join(",", items),
            "--partitions", Integer.toString(partitions), "--lease", lease.toMillis() + "ms"));
        if (redisUri != null) {
          args.addAll(List.of("--redis-uri", redisUri));
        }
        if (jdbcUrl != null) {
          args.addAll(List.of("--jdbc-url", jdbcUrl));
        }
        if (faultPoints) {
          args.add("--fault-points");
        }
        names.add(name);
        processes.add(JvmProcess.start(JVM_OPTIONS, OrderWriter.class, args.toArray(String[]::new)));
      }
      for (JvmProcess process : processes) {
        process.awaitLine(line -> line.startsWith(OrderWriter.READY_LINE), STARTUP_DEADLINE);
      }
      return new WriterFleet(names, processes);
    } catch (RuntimeException e) {
      processes.forEach(JvmProcess::close);
      throw e;
    }
  }

  /** The writers' names, {@code w1} first. */
  public List<String> names() {
    return List.copyOf(names);
  }

  /** The writer named {@code name}, if there is one. */
  public Optional<JvmProcess> writer(String name) {
    int i = names.indexOf(name);
    return i < 0 ? Optional.empty() : Optional.of(processes.get(i));
  }

  /** Every writer's output lines so far, writer by writer. */
  public List<List<String>> outputs() {
    return processes.stream().map(JvmProcess::output).toList();
  }

  /**
   * Stops every writer still alive with SIGTERM, so that it finishes its batch and releases its
   * locks, and waits for it; one that outlives the deadline is killed. A frozen writer is thawed
   * first.
   *
   * @return the writers that had to be killed
   */
  public List<String> stop() {
    List<String> killed = new ArrayList<>();
    for (JvmProcess process : processes) {
      if (process.isAlive()) {
        process.resume();
        ProcessHandle.of(process.pid()).ifPresent(ProcessHandle::destroy);
      }
    }
    for (int i = 0; i < processes.size(); i++) {
      JvmProcess process = processes.get(i);
      try {
        process.waitFor(STOP_DEADLINE);
      } catch (IllegalStateException e) {
        process.kill9();
        killed.add(names.get(i));
      }
    }
    return killed;
  }

  /** Kills every writer still alive. */
  @Override
  public void close() {
    processes.forEach(JvmProcess::close);
  }
}

package io.relock.demo.load;

import io.relock.demo.service.ServiceApplication;
import io.relock.testkit.JvmProcess;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Several seckill service processes, each a Spring Boot application in its own JVM on a free port,
 * all using one Redis. They are started together (startup is the costly part) and killed at {@link
 * #close()}.
 */
public final class ServiceFleet implements AutoCloseable {

  /** Generous: on a two-core machine shared with other builds, three Spring Boot starts have taken over 90 s. */
  private static final Duration STARTUP_DEADLINE = Duration.ofSeconds(180);

  /**
   * JVM options of the service processes, which share a small machine with Redis and the driver:
   * small heaps, no parallel GC threads, and the C1 compiler only. C2 would double the CPU time of
   * Spring Boot's startup (measured: 4.1 s against 2.3 s per process), which is most of the demo's
   * cost, while the service spends its time waiting for Redis, not computing.
   */
  private static final List<String> JVM_OPTIONS =
      List.of("-Xms64m", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss512k");

  private final List<JvmProcess> processes;
  private final List<URI> endpoints;

  private ServiceFleet(List<JvmProcess> processes, List<URI> endpoints) {
    this.processes = processes;
    this.endpoints = endpoints;
  }

  /**
   * Starts {@code count} service processes and returns once all of them accept requests.
   *
   * @param count how many processes
   * @param redisUri the Redis they share
   * @param serviceArgs further service settings, e.g. {@code --demo.processing-time=10ms}
   * @throws IllegalStateException with the process output, if one does not start within 180 s
   */
  public static ServiceFleet start(int count, String redisUri, List<String> serviceArgs) {
    if (count < 1) {
      throw new IllegalArgumentException("at least one service process is needed: " + count);
    }
    List<JvmProcess> processes = new ArrayList<>();
    try {
      for (int i = 1; i <= count; i++) {
        List<String> args = new ArrayList<>();
        args.add("--server.port=0");
        args.add("--server.address=127.0.0.1");
        args.add("--server.tomcat.max-keep-alive-requests=-1");
        if (!redisUri.equals(System.getenv("REDIS_URL"))) {
          // With REDIS_URL the children read it from the environment they inherit, which keeps a
          // password out of the process list.
          args.add("--demo.redis-uri=" + redisUri);
        }
        args.add("--demo.instance=svc-" + i);
        args.addAll(serviceArgs);
        processes.add(JvmProcess.start(JVM_OPTIONS, ServiceApplication.class, args.toArray(String[]::new)));
      }
      List<URI> endpoints = new ArrayList<>();
      for (JvmProcess process : processes) {
        String ready = process.awaitLine(line -> line.startsWith(ServiceApplication.READY_LINE), STARTUP_DEADLINE);
        int port = Integer.parseInt(ready.substring(ServiceApplication.READY_LINE.length()).trim());
        endpoints.add(URI.create("http://127.0.0.1:" + port));
      }
      return new ServiceFleet(processes, endpoints);
    } catch (RuntimeException e) {
      processes.forEach(JvmProcess::close);
      throw e;
    }
  }

  /** The base URIs of the processes, e.g. {@code http://127.0.0.1:41234}, in start order. */
  public List<URI> endpoints() {
    return List.copyOf(endpoints);
  }

  /** The processes' pids, in start order. */
  public List<Long> pids() {
    return processes.stream().map(JvmProcess::pid).toList();
  }

  /** Kills every process. */
  @Override
  public void close() {
    processes.forEach(JvmProcess::close);
  }
}

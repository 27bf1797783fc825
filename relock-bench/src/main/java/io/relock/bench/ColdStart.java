package io.relock.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code --cold} run: how soon a fresh JVM holds its first lock. Each round starts one JVM per
 * implementation, in turn (relock, then Redisson, then the other way round in the next round),
 * on the bench's class path; the JVM creates the client, takes one lock, releases it, closes the
 * client and says, in milliseconds since the JVM started: when the client was built, when the lock
 * was held, when it was released. The parent also times the whole process, start to exit.
 */
final class ColdStart {
  private static final List<Implementation> COMPARED = List.of(Implementation.RELOCK, Implementation.REDISSON);

  private final int rounds;

  ColdStart(boolean shortRun) {
    this.rounds = shortRun ? 2 : 4;
  }

  /** One cold start, in milliseconds since its JVM started (process: since the parent started it). */
  record Start(double builtMs, double heldMs, double releasedMs, double processMs) {}

  /** In a fresh JVM: {@code <impl id> <redis uri>}; prints one line of figures and exits. */
  public static void main(String[] args) throws Exception {
    Implementation impl = Implementation.valueOf(args[0]);
    long jvmStart = ManagementFactory.getRuntimeMXBean().getStartTime();
    LockClient client = impl.open(BenchTarget.single(args[1]), Duration.ofSeconds(30), null);
    long built = System.currentTimeMillis();
    LockClient.Hold hold = client.lock("cold-start").acquire();
    long held = System.currentTimeMillis();
    hold.release();
    long released = System.currentTimeMillis();
    client.close();
    System.out.printf(Locale.ROOT, "COLD built_ms=%d held_ms=%d released_ms=%d%n", built - jvmStart, held - jvmStart,
        released - jvmStart);
    System.out.flush();
    System.exit(0);
  }

  Map<Implementation, List<Start>> run(BenchRedis redis, Path logDir, PrintStream log) throws IOException,
      InterruptedException {
    Map<Implementation, List<Start>> starts = new LinkedHashMap<>();
    COMPARED.forEach(i -> starts.put(i, new ArrayList<>()));
    for (int round = 0; round < rounds; round++) {
      List<Implementation> order = new ArrayList<>(COMPARED);
      if (round % 2 == 1) {
        java.util.Collections.reverse(order);
      }
      for (Implementation impl : order) {
        starts.get(impl).add(once(impl, redis.target().uri(), logDir.resolve("cold-" + impl.id() + "-" + round + ".log")));
      }
    }
    Table table = new Table("a fresh JVM: build the client, hold and release one lock (median of " + rounds
        + " cold starts, taking turns; range in brackets; ms)", List.of("implementation", "client built",
        "first lock held", "released", "whole process"));
    for (Implementation impl : COMPARED) {
      List<Start> s = starts.get(impl);
      table.add(impl.id(), cell(s, Start::builtMs), cell(s, Start::heldMs), cell(s, Start::releasedMs),
          cell(s, Start::processMs));
    }
    log.println(table.toText());
    log.printf(Locale.ROOT, "bench: cold relock_held_ms=%.0f redisson_held_ms=%.0f relock_vs_redisson=%.2f%n",
        median(starts.get(Implementation.RELOCK), Start::heldMs), median(starts.get(Implementation.REDISSON), Start::heldMs),
        median(starts.get(Implementation.RELOCK), Start::heldMs) / median(starts.get(Implementation.REDISSON), Start::heldMs));
    return starts;
  }

  private static double median(List<Start> s, java.util.function.ToDoubleFunction<Start> f) {
    return Spread.of(s.stream().mapToDouble(f).toArray()).median();
  }

  private static String cell(List<Start> s, java.util.function.ToDoubleFunction<Start> f) {
    Spread spread = Spread.of(s.stream().mapToDouble(f).toArray());
    return String.format(Locale.ROOT, "%,.0f (%s)", spread.median(), spread.rangeText(0));
  }

  private static Start once(Implementation impl, String uri, Path log) throws IOException, InterruptedException {
    List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
        System.getProperty("java.class.path"), ColdStart.class.getName(), impl.name(), uri);
    long began = System.nanoTime();
    Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    String line = null;
    try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String l = out.readLine(); l != null; l = out.readLine()) {
        if (l.startsWith("COLD ")) {
          line = l;
        }
      }
    }
    int exit = p.waitFor();
    double processMs = (System.nanoTime() - began) / 1e6;
    if (exit != 0 || line == null) {
      throw new IllegalStateException(impl.id() + " cold start failed (exit " + exit + "); see " + log);
    }
    Map<String, Double> f = new LinkedHashMap<>();
    for (String part : line.substring(5).split(" ")) {
      String[] kv = part.split("=");
      f.put(kv[0], Double.parseDouble(kv[1]));
    }
    return new Start(f.get("built_ms"), f.get("held_ms"), f.get("released_ms"), processMs);
  }
}

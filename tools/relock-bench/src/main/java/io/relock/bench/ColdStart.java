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
 * starter, in turn (the order reversed every other round), on the bench's class path; the JVM
 * creates the client, takes one lock, releases it, closes the client and says, in milliseconds since
 * the JVM started: when the client was built, when the lock was held, when it was released. The
 * parent also times the whole process, start to exit.
 *
 * <p>Besides relock (on its default driver, Lettuce, with and without Lettuce's JFR events, and on
 * Jedis) and Redisson, one starter takes no
 * lock: bare Lettuce, which opens the two connections relock's Lettuce driver opens (commands and
 * notifications, both at once), subscribes and sends a {@code PING}. It is the floor under relock
 * on Lettuce: what Lettuce itself takes before relock does anything.
 */
final class ColdStart {
  /** One kind of fresh JVM the run starts. */
  enum Starter {
    RELOCK("relock (Lettuce)"),
    RELOCK_NO_JFR("relock (Lettuce, -Dio.lettuce.core.jfr=false)", "-Dio.lettuce.core.jfr=false"),
    RELOCK_JEDIS("relock (Jedis)", "-Drelock.driver=jedis"),
    REDISSON("Redisson"),
    LETTUCE("bare Lettuce: connect, subscribe, PING");

    final String label;
    final List<String> jvmOptions;

    Starter(String label, String... jvmOptions) {
      this.label = label;
      this.jvmOptions = List.of(jvmOptions);
    }
  }

  private final int rounds;

  ColdStart(boolean shortRun) {
    this.rounds = shortRun ? 2 : 4;
  }

  /** One cold start, in milliseconds since its JVM started (process: since the parent started it). */
  record Start(double builtMs, double heldMs, double releasedMs, double processMs) {}

  /** In a fresh JVM: {@code <starter> <redis uri>}; prints one line of figures and exits. */
  public static void main(String[] args) throws Exception {
    Starter starter = Starter.valueOf(args[0]);
    long jvmStart = ManagementFactory.getRuntimeMXBean().getStartTime();
    if (starter == Starter.LETTUCE) {
      bareLettuce(args[1], jvmStart);
      return;
    }
    Implementation impl = starter == Starter.REDISSON ? Implementation.REDISSON : Implementation.RELOCK;
    LockClient client = impl.open(BenchTarget.single(args[1]), Duration.ofSeconds(30), null);
    long built = System.currentTimeMillis();
    LockClient.Hold hold = client.lock("cold-start").acquire();
    long held = System.currentTimeMillis();
    hold.release();
    long released = System.currentTimeMillis();
    client.close();
    report(built - jvmStart, held - jvmStart, released - jvmStart);
  }

  private static void bareLettuce(String uri, long jvmStart) throws Exception {
    io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create();
    io.lettuce.core.RedisURI redisUri = io.lettuce.core.RedisURI.create(uri);
    var notifications = client.connectPubSubAsync(io.lettuce.core.codec.StringCodec.UTF8, redisUri);
    var commands = client.connect(redisUri);
    notifications.get().async().subscribe("cold-start").get();
    long built = System.currentTimeMillis();
    commands.sync().ping();
    long answered = System.currentTimeMillis();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    report(built - jvmStart, answered - jvmStart, answered - jvmStart);
  }

  private static void report(long built, long held, long released) {
    System.out.printf(Locale.ROOT, "COLD built_ms=%d held_ms=%d released_ms=%d%n", built, held, released);
    System.out.flush();
    System.exit(0);
  }

  Map<Starter, List<Start>> run(BenchRedis redis, Path logDir, PrintStream log) throws IOException,
      InterruptedException {
    Map<Starter, List<Start>> starts = new LinkedHashMap<>();
    for (Starter s : Starter.values()) {
      starts.put(s, new ArrayList<>());
    }
    for (int round = 0; round < rounds; round++) {
      List<Starter> order = new ArrayList<>(List.of(Starter.values()));
      if (round % 2 == 1) {
        java.util.Collections.reverse(order);
      }
      for (Starter starter : order) {
        String logName = "cold-" + starter.name().toLowerCase(Locale.ROOT) + "-" + round + ".log";
        starts.get(starter).add(once(starter, redis.target().uri(), logDir.resolve(logName)));
      }
    }
    Table table = new Table("a fresh JVM: build the client, hold and release one lock (median of " + rounds
        + " cold starts, taking turns; range in brackets; ms)", List.of("implementation", "client built",
        "first lock held", "released", "whole process"));
    for (Starter starter : Starter.values()) {
      List<Start> s = starts.get(starter);
      table.add(starter.label, cell(s, Start::builtMs), cell(s, Start::heldMs), cell(s, Start::releasedMs),
          cell(s, Start::processMs));
    }
    log.println(table.toText());
    log.println("(bare Lettuce takes no lock: its \"first lock held\" is its PING answered)");
    double relock = median(starts.get(Starter.RELOCK), Start::heldMs);
    double jedis = median(starts.get(Starter.RELOCK_JEDIS), Start::heldMs);
    double redisson = median(starts.get(Starter.REDISSON), Start::heldMs);
    double lettuce = median(starts.get(Starter.LETTUCE), Start::heldMs);
    log.printf(Locale.ROOT, "bench: cold relock_held_ms=%.0f relock_jedis_held_ms=%.0f redisson_held_ms=%.0f"
        + " bare_lettuce_ms=%.0f relock_vs_redisson=%.2f relock_jedis_vs_redisson=%.2f relock_over_bare_lettuce_ms=%.0f%n",
        relock, jedis, redisson, lettuce, relock / redisson, jedis / redisson, relock - lettuce);
    return starts;
  }

  private static double median(List<Start> s, java.util.function.ToDoubleFunction<Start> f) {
    return Spread.of(s.stream().mapToDouble(f).toArray()).median();
  }

  private static String cell(List<Start> s, java.util.function.ToDoubleFunction<Start> f) {
    Spread spread = Spread.of(s.stream().mapToDouble(f).toArray());
    return String.format(Locale.ROOT, "%,.0f (%s)", spread.median(), spread.rangeText(0));
  }

  private static Start once(Starter starter, String uri, Path log) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(starter.jvmOptions);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), ColdStart.class.getName(), starter.name(), uri));
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
      throw new IllegalStateException(starter.label + " cold start failed (exit " + exit + "); see " + log);
    }
    Map<String, Double> f = new LinkedHashMap<>();
    for (String part : line.substring(5).split(" ")) {
      String[] kv = part.split("=");
      f.put(kv[0], Double.parseDouble(kv[1]));
    }
    return new Start(f.get("built_ms"), f.get("held_ms"), f.get("released_ms"), processMs);
  }
}

package io.relock.bench;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The {@code --redis-cpu} run: what one uncontended lock and unlock costs Redis, relock beside the
 * articles' recipe ({@code SET NX PX}, then a compare-and-delete script), read from Redis's own
 * counters rather than from a scratch script. One thread in this process takes and releases a
 * lock of its own (eight names in turn) through the bench's {@link LockClient} of each, so each
 * operation is two round trips for both. Windows alternate between the implementations; before
 * each, {@code CONFIG RESETSTAT}, after it {@code INFO}:
 * <ul>
 *   <li>Redis CPU per lock and unlock: the server's user and system CPU ({@code INFO cpu}), which
 *       includes reading and answering the two calls;
 *   <li>command time per lock and unlock: the run time Redis counts for the commands the client
 *       sent ({@code INFO commandstats}; a script's inner commands are inside its own);
 *   <li>commands per lock and unlock, the scripts' inner ones included, and how many of each.
 * </ul>
 * Each figure is the median of its windows after one window of warm-up each.
 *
 * <p>Then a semaphore whose permits are all held, by another client of the same implementation,
 * relock beside Redisson's {@code RPermitExpirableSemaphore}: what one try at it costs Redis, by
 * how many permits are held (5, 100, 1,000), so that a cost growing with the holders shows. Each
 * try is one script call for both; the command time is that call's, its inner commands included.
 */
final class RedisCost {
  private static final List<Implementation> COMPARED = List.of(Implementation.RELOCK, Implementation.RECIPE);
  private static final int NAMES = 8;
  private static final List<Implementation> WIDE = List.of(Implementation.RELOCK, Implementation.REDISSON);
  private static final int[] HELD = {5, 100, 1_000};

  private final int windows;
  private final int opsPerWindow;

  RedisCost(boolean shortRun) {
    this.windows = shortRun ? 3 : 7;
    this.opsPerWindow = shortRun ? 5_000 : 20_000;
  }

  /** One window of one implementation: per lock and unlock. */
  record Window(double cpuMicros, double commandMicros, double commands, String eachCommand) {}

  /** The run's figures, per implementation, the windows of each in order. */
  Map<Implementation, List<Window>> run(BenchRedis redis, PrintStream log) throws Exception {
    Map<Implementation, LockClient> clients = new LinkedHashMap<>();
    Map<Implementation, List<Window>> measured = new LinkedHashMap<>();
    try {
      for (Implementation impl : COMPARED) {
        clients.put(impl, impl.open(redis.target(), Duration.ofSeconds(30), null));
        measured.put(impl, new ArrayList<>());
        window(redis, impl, clients.get(impl)); // warm-up
      }
      for (int w = 0; w < windows; w++) {
        for (Implementation impl : COMPARED) {
          measured.get(impl).add(window(redis, impl, clients.get(impl)));
        }
      }
    } finally {
      for (LockClient c : clients.values()) {
        c.close();
      }
    }
    Table table = new Table("Redis cost of one uncontended lock and unlock, one thread (median of " + windows
        + " windows of " + opsPerWindow + "; range in brackets)", List.of("implementation", "Redis CPU us",
        "command time us", "commands", "of which"));
    for (Implementation impl : COMPARED) {
      List<Window> ws = measured.get(impl);
      Spread cpu = Spread.of(ws.stream().mapToDouble(Window::cpuMicros).toArray());
      Spread cmd = Spread.of(ws.stream().mapToDouble(Window::commandMicros).toArray());
      Spread n = Spread.of(ws.stream().mapToDouble(Window::commands).toArray());
      Window last = ws.get(ws.size() - 1);
      table.add(impl.id(), cell(cpu), cell(cmd), Results.num(n.median(), 2), last.eachCommand());
    }
    log.println(table.toText());
    double cpuRatio = median(measured.get(Implementation.RELOCK), Window::cpuMicros)
        / median(measured.get(Implementation.RECIPE), Window::cpuMicros);
    double cmdRatio = median(measured.get(Implementation.RELOCK), Window::commandMicros)
        / median(measured.get(Implementation.RECIPE), Window::commandMicros);
    log.printf(Locale.ROOT, "bench: redis_cpu relock_cpu_vs_recipe=%.2f relock_command_time_vs_recipe=%.2f"
        + " relock_commands=%.2f%n", cpuRatio, cmdRatio, median(measured.get(Implementation.RELOCK), Window::commands));
    wideSemaphores(redis, log);
    return measured;
  }

  /**
   * The tries at full semaphores: a table by permits held, and a summary line with, per
   * implementation, the command time of a try with the most permits held over that with the fewest.
   */
  private void wideSemaphores(BenchRedis redis, PrintStream log) throws Exception {
    int tries = Math.max(200, opsPerWindow / 10);
    Table table = new Table("Redis cost of one try at a semaphore whose permits are all held, by permits (median of "
        + windows + " windows of " + tries + " tries; range in brackets)", List.of("implementation", "permits held",
        "command time us", "commands", "of which"));
    Map<Implementation, double[]> byHeld = new LinkedHashMap<>();
    for (Implementation impl : WIDE) {
      double[] micros = new double[HELD.length];
      for (int h = 0; h < HELD.length; h++) {
        List<Counted> ws = tries(redis, impl, HELD[h], tries);
        Spread cmd = Spread.of(ws.stream().mapToDouble(Counted::commandMicros).toArray());
        Spread n = Spread.of(ws.stream().mapToDouble(Counted::commands).toArray());
        table.add(impl.id(), String.format(Locale.ROOT, "%,d", HELD[h]), cell(cmd), Results.num(n.median(), 1),
            ws.get(ws.size() - 1).eachCommand());
        micros[h] = cmd.median();
      }
      byHeld.put(impl, micros);
    }
    log.println(table.toText());
    StringBuilder line = new StringBuilder("bench: wide_semaphore");
    for (Map.Entry<Implementation, double[]> e : byHeld.entrySet()) {
      double[] m = e.getValue();
      line.append(String.format(Locale.ROOT, " %s_try_us_%d=%.1f %s_%d_vs_%d=%.2f", e.getKey().id(), HELD[HELD.length - 1],
          m[m.length - 1], e.getKey().id(), HELD[HELD.length - 1], HELD[0], m[m.length - 1] / m[0]));
    }
    log.println(line);
  }

  /** Windows of tries at a semaphore of {@code held} permits, every one held by another client. */
  private List<Counted> tries(BenchRedis redis, Implementation impl, int held, int tries) throws Exception {
    String name = "redis-cost-wide-" + impl.id() + "-" + held;
    List<Counted> out = new ArrayList<>();
    try (LockClient holder = impl.open(redis.target(), Duration.ofSeconds(30), null);
        LockClient trier = impl.open(redis.target(), Duration.ofSeconds(30), null)) {
      LockClient.BenchLock permits = ((LockClient.Family) holder).semaphore(name, held);
      List<LockClient.Hold> holds = new ArrayList<>();
      for (int i = 0; i < held; i++) {
        holds.add(permits.acquire());
      }
      LockClient.Family family = (LockClient.Family) trier;
      family.semaphore(name, held);
      try {
        for (int w = -1; w < windows; w++) { // window -1: warm-up
          redis.resetStats();
          RedisInfo before = redis.info();
          for (int i = 0; i < tries; i++) {
            LockClient.Hold got = family.tryPermit(name, held);
            if (got != null) {
              got.release();
              throw new IllegalStateException(impl.id() + " granted a permit of " + name + " beyond its " + held);
            }
          }
          RedisInfo after = redis.info();
          if (w >= 0) {
            out.add(Counted.between(before, after, tries, impl));
          }
        }
      } finally {
        holds.forEach(LockClient.Hold::release);
      }
    }
    return out;
  }

  private static String cell(Spread s) {
    return String.format(Locale.ROOT, "%,.1f (%s)", s.median(), s.rangeText(1));
  }

  private static double median(List<Window> ws, java.util.function.ToDoubleFunction<Window> f) {
    return Spread.of(ws.stream().mapToDouble(f).toArray()).median();
  }

  private Window window(BenchRedis redis, Implementation impl, LockClient client) throws Exception {
    List<LockClient.BenchLock> locks = new ArrayList<>();
    for (int i = 0; i < NAMES; i++) {
      locks.add(client.lock("redis-cost-" + impl.id() + "-" + i));
    }
    redis.resetStats();
    RedisInfo before = redis.info();
    for (int i = 0; i < opsPerWindow; i++) {
      locks.get(i % NAMES).acquire().release();
    }
    RedisInfo after = redis.info();
    Counted c = Counted.between(before, after, opsPerWindow, impl);
    return new Window((after.cpuSeconds() - before.cpuSeconds()) * 1e6 / opsPerWindow, c.commandMicros(),
        c.commands(), c.eachCommand());
  }

  /**
   * What Redis counted for {@code ops} operations of {@code impl} between two readings (after a
   * {@code CONFIG RESETSTAT}), per operation: the command time of the calls the client sent (a
   * script's inner commands inside its own), every command run, and how many of each.
   */
  record Counted(double commandMicros, double commands, String eachCommand) {
    static Counted between(RedisInfo before, RedisInfo after, long ops, Implementation impl) {
      Map<String, Long> usec = new TreeMap<>(after.commandMicros());
      usec.keySet().removeIf(c -> RedisInfo.isHarness(c) || !RedisInfo.isClientOnly(c) && !impl.directDataCommands()
          .contains(c));
      long all = 0;
      List<String> each = new ArrayList<>();
      for (Map.Entry<String, Long> e : after.since(before).withoutHarness().entrySet()) {
        all += e.getValue();
        each.add(e.getKey() + " " + Results.num((double) e.getValue() / ops, 1));
      }
      return new Counted(usec.values().stream().mapToLong(Long::longValue).sum() / (double) ops, all / (double) ops,
          String.join(", ", each));
    }
  }
}

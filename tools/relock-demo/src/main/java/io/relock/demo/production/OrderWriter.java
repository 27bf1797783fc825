package io.relock.demo.production;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.relock.Relock;
import io.relock.demo.store.RedisInventory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An order writer process of the production strategy: for each item and partition it runs a
 * {@link PartitionWriter}, which competes with the other processes' for the partition's lock and,
 * while it holds it, stores the partition's queued orders in PostgreSQL. Several processes run
 * side by side; each partition is written by one of them at a time, and taken over by another when
 * its owner dies or freezes.
 *
 * <pre>
 * java -cp ... io.relock.demo.production.OrderWriter --name w1 --redis-uri redis://127.0.0.1:6379 \
 *     --jdbc-url jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres --items sku-1 --partitions 4
 * </pre>
 *
 * <p>Options: {@code --lease} (default 2s: how soon a dead owner's partition is taken over),
 * {@code --batch} (default 50 orders per read), {@code --fault-points} (obey the demo's fault
 * plans, see {@link FaultPoints}). Prints {@value #READY_LINE} when its writers are running, and a
 * line per ownership change, claim and refused batch. Stops on SIGTERM: each writer finishes its
 * batch and releases its lock.
 */
public final class OrderWriter {

  /** Printed, followed by the writer's name, once the partition writers are running. */
  public static final String READY_LINE = "relock-demo order writer ready: ";

  private static final Duration STOP_DEADLINE = Duration.ofSeconds(10);

  private OrderWriter() {}

  public static void main(String[] args) throws InterruptedException {
    Settings settings = Settings.parse(args);
    AtomicBoolean running = new AtomicBoolean(true);
    RedisClient redisClient = RedisClient.create(RedisURI.create(settings.redisUri));
    redisClient.setOptions(RedisInventory.failFastOptions(Duration.ofSeconds(2)));
    Relock relock = Relock.builder().uri(settings.redisUri).defaultLease(settings.lease).build();
    FaultPoints faults = new FaultPoints(settings.faultPoints);
    List<Thread> threads = new ArrayList<>();
    for (String item : settings.items) {
      for (int p = 0; p < settings.partitions; p++) {
        PartitionWriter writer = new PartitionWriter(settings.name, item, p, relock, redisClient, settings.jdbcUrl,
            settings.batch, faults, running);
        Thread thread = new Thread(writer, "writer-" + item + "-p" + p);
        threads.add(thread);
      }
    }
    Thread stopper = new Thread(() -> stop(running, threads, relock, redisClient), "writer-stop");
    Runtime.getRuntime().addShutdownHook(stopper);
    threads.forEach(Thread::start);
    System.out.println(READY_LINE + settings.name);
    System.out.flush();
    for (Thread thread : threads) {
      thread.join();
    }
  }

  /** SIGTERM: every writer finishes its batch and releases its lock, within a deadline. */
  private static void stop(AtomicBoolean running, List<Thread> threads, Relock relock, RedisClient redisClient) {
    running.set(false);
    long deadline = System.nanoTime() + STOP_DEADLINE.toNanos();
    for (Thread thread : threads) {
      try {
        thread.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    relock.close();
    redisClient.shutdown();
    System.out.println("relock-demo order writer stopped");
    System.out.flush();
  }

  /** The command line. */
  static final class Settings {
    String name;
    String redisUri;
    String jdbcUrl;
    List<String> items = new ArrayList<>();
    int partitions = 4;
    Duration lease = Duration.ofSeconds(2);
    int batch = 50;
    boolean faultPoints;

    /**
     * @throws IllegalArgumentException naming the option whose value is missing or invalid
     */
    static Settings parse(String[] args) {
      Settings s = new Settings();
      for (int i = 0; i < args.length; i++) {
        String option = args[i];
        if (option.equals("--fault-points")) {
          s.faultPoints = true;
          continue;
        }
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException("option " + option + " needs a value");
        }
        String value = args[++i];
        switch (option) {
          case "--name" -> s.name = value;
          case "--redis-uri" -> s.redisUri = value;
          case "--jdbc-url" -> s.jdbcUrl = value;
          case "--items" -> s.items = List.of(value.split(","));
          case "--partitions" -> s.partitions = positive(option, value);
          case "--lease" -> s.lease = Duration.ofMillis(positive(option, value.replaceFirst("ms$", "")));
          case "--batch" -> s.batch = positive(option, value);
          default -> throw new IllegalArgumentException("unknown option " + option);
        }
      }
      if (s.redisUri == null) {
        s.redisUri = System.getenv().getOrDefault("REDIS_URL", "redis://127.0.0.1:6379");
      }
      if (s.jdbcUrl == null) {
        String url = System.getenv("DATABASE_URL");
        if (url == null || url.isBlank()) {
          throw new IllegalArgumentException("--jdbc-url or DATABASE_URL is required");
        }
        s.jdbcUrl = OrderDatabase.jdbcUrl(url);
      }
      if (s.name == null || s.name.isBlank()) {
        s.name = "writer-" + ProcessHandle.current().pid();
      }
      if (s.items.isEmpty()) {
        throw new IllegalArgumentException("--items is required: the items whose orders to write");
      }
      s.items.forEach(SaleKeys::sale);
      return s;
    }

    private static int positive(String option, String value) {
      try {
        int n = Integer.parseInt(value);
        if (n >= 1) {
          return n;
        }
      } catch (NumberFormatException e) {
        // Reported below.
      }
      throw new IllegalArgumentException(option + " must be a positive whole number, got " + value);
    }
  }
}

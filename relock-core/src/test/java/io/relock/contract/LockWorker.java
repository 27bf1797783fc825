package io.relock.contract;

import io.relock.LockLease;
import io.relock.Relock;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;
import io.relock.spi.RedisDriverFactory;
import java.time.Duration;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.CountDownLatch;

/**
 * A lock holder in its own JVM, for {@link MultiProcessContract}. Finds the driver on its class
 * path. Modes:
 *
 * <ul>
 *   <li>{@code count <uri> <lock> <rounds>}: per round, takes the lock and does a deliberately
 *       non-atomic read-then-write of {@code shared-counter}, printing {@code ENTRY <value read>
 *       <token>}; overlapping holders would read the same value.
 *   <li>{@code hold <uri> <lock> <leaseMs>}: takes the lock with that default lease, prints {@code
 *       HELD <token>}, and on loss prints {@code LOST}, closes the lease and prints {@code CLOSE
 *       <exception>}.
 * </ul>
 */
public final class LockWorker {
  private static final String READ_SCRIPT = "return {redis.call('GET', KEYS[1]) or '0'}";
  private static final String WRITE_SCRIPT = "redis.call('SET', KEYS[1], ARGV[1]) return {1}";

  private LockWorker() {}

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    String uri = args[1];
    String name = args[2];
    if (mode.equals("count")) {
      count(uri, name, Integer.parseInt(args[3]));
    } else {
      hold(uri, name, Long.parseLong(args[3]));
    }
  }

  private static void count(String uri, String name, int rounds) throws Exception {
    RedisDriverFactory factory = ServiceLoader.load(RedisDriverFactory.class).findFirst().orElseThrow();
    try (Relock relock = Relock.connect(uri);
         RedisDriver raw = factory.connect(uri, new DriverSettings(Duration.ofSeconds(5), Duration.ofSeconds(5), "worker"))) {
      String get = raw.scriptLoad(READ_SCRIPT).get();
      String set = raw.scriptLoad(WRITE_SCRIPT).get();
      for (int i = 0; i < rounds; i++) {
        try (LockLease lease = relock.lock(name).acquire(Duration.ofMinutes(1))) {
          long value = Long.parseLong((String) raw.evalSha(get, List.of("shared-counter"), List.of()).get().get(0));
          raw.evalSha(set, List.of("shared-counter"), List.of(Long.toString(value + 1))).get();
          System.out.println("ENTRY " + value + " " + lease.fencingToken());
        }
      }
    }
  }

  private static void hold(String uri, String name, long leaseMs) throws Exception {
    Relock relock = Relock.builder().uri(uri).defaultLease(Duration.ofMillis(leaseMs)).build();
    LockLease lease = relock.lock(name).acquire(Duration.ofSeconds(30));
    CountDownLatch lost = new CountDownLatch(1);
    lease.onLost(lost::countDown);
    System.out.println("HELD " + lease.fencingToken());
    lost.await();
    System.out.println("LOST");
    try {
      lease.close();
      System.out.println("CLOSE none");
    } catch (RuntimeException e) {
      System.out.println("CLOSE " + e.getClass().getName());
    }
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }
}

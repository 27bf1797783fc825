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
 *   <li>{@code permit <uri> <semaphore> <permits> <leaseMs>}: the same with one of a semaphore's
 *       permits.
 *   <li>{@code permits <uri> <semaphore> <permits> <rounds>}: per round, takes a permit and counts
 *       itself in {@code <semaphore>-inside} for a few milliseconds, printing {@code INSIDE <how many
 *       were inside> <token>}.
 *   <li>{@code readwrite <uri> <lock> <rounds>}: per round, reads (three rounds in four) or writes
 *       under a read-write lock, counting itself in {@code <lock>-readers} or {@code
 *       <lock>-writers}, printing {@code READ <writers inside>} or {@code WRITE <readers inside>
 *       <writers inside> <token>}.
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
    switch (mode) {
      case "count" -> count(uri, name, Integer.parseInt(args[3]));
      case "permits" -> permits(uri, name, Integer.parseInt(args[3]), Integer.parseInt(args[4]));
      case "readwrite" -> readWrite(uri, name, Integer.parseInt(args[3]));
      case "permit" -> {
        Relock relock = Relock.builder().uri(uri).defaultLease(Duration.ofMillis(Long.parseLong(args[4]))).build();
        hold(relock.semaphore(name, Integer.parseInt(args[3])).acquire(Duration.ofSeconds(30)));
      }
      default -> {
        Relock relock = Relock.builder().uri(uri).defaultLease(Duration.ofMillis(Long.parseLong(args[3]))).build();
        hold(relock.lock(name).acquire(Duration.ofSeconds(30)));
      }
    }
  }

  private static RedisDriver rawDriver(String uri) {
    RedisDriverFactory factory = ServiceLoader.load(RedisDriverFactory.class).findFirst().orElseThrow();
    return factory.connect(uri, new DriverSettings(Duration.ofSeconds(5), Duration.ofSeconds(5), "worker"));
  }

  /** Adds {@code delta} to counter {@code key} and returns the new value. */
  private static long add(RedisDriver raw, String sha, String key, long delta) throws Exception {
    return (Long) raw.evalSha(sha, List.of(key), List.of(Long.toString(delta))).get().get(0);
  }

  private static final String ADD_SCRIPT = "return {redis.call('INCRBY', KEYS[1], ARGV[1])}";

  private static void permits(String uri, String name, int permits, int rounds) throws Exception {
    try (Relock relock = Relock.connect(uri); RedisDriver raw = rawDriver(uri)) {
      String add = raw.scriptLoad(ADD_SCRIPT).get();
      for (int i = 0; i < rounds; i++) {
        try (LockLease lease = relock.semaphore(name, permits).acquire(Duration.ofMinutes(1))) {
          long inside = add(raw, add, name + "-inside", 1);
          Thread.sleep(3);
          add(raw, add, name + "-inside", -1);
          System.out.println("INSIDE " + inside + " " + lease.fencingToken());
        }
      }
    }
  }

  private static void readWrite(String uri, String name, int rounds) throws Exception {
    java.util.Random random = new java.util.Random();
    try (Relock relock = Relock.connect(uri); RedisDriver raw = rawDriver(uri)) {
      String add = raw.scriptLoad(ADD_SCRIPT).get();
      String get = raw.scriptLoad(READ_SCRIPT).get();
      io.relock.DistributedReadWriteLock lock = relock.readWriteLock(name);
      for (int i = 0; i < rounds; i++) {
        if (random.nextInt(4) < 3) {
          try (LockLease lease = lock.readLock().acquire(Duration.ofMinutes(1))) {
            add(raw, add, name + "-readers", 1);
            Thread.sleep(2);
            String writers = (String) raw.evalSha(get, List.of(name + "-writers"), List.of()).get().get(0);
            add(raw, add, name + "-readers", -1);
            System.out.println("READ " + writers);
          }
        } else {
          try (LockLease lease = lock.writeLock().acquire(Duration.ofMinutes(1))) {
            long writers = add(raw, add, name + "-writers", 1);
            String readers = (String) raw.evalSha(get, List.of(name + "-readers"), List.of()).get().get(0);
            Thread.sleep(2);
            add(raw, add, name + "-writers", -1);
            System.out.println("WRITE " + readers + " " + writers + " " + lease.fencingToken());
          }
        }
      }
    }
  }

  private static void count(String uri, String name, int rounds) throws Exception {
    try (Relock relock = Relock.connect(uri); RedisDriver raw = rawDriver(uri)) {
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

  private static void hold(LockLease lease) throws Exception {
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

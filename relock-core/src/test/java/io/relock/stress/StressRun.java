package io.relock.stress;

import io.relock.Relock;
import io.relock.contract.RelockContract;
import io.relock.testkit.RedisServer;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * One randomized stress run: several clients, each with platform and virtual worker threads
 * running {@link StressWorker}s against a few shared lock names, while a fault injector pauses
 * Redis past the command timeout, flushes its scripts and kills client connections, an
 * interrupter interrupts workers at random moments, and a closer closes whole clients and replaces
 * them. Each round ends at a quiescent checkpoint: the workers stop, and within a claim time plus
 * a few command timeouts every lock must be free in Redis with no queue entries left, and no
 * client may keep local state for any name. A lock left held for nobody is caught there (or keeps
 * a worker waiting past the stop bound), since every lease ({@link #LEASE}) outlasts both.
 */
final class StressRun {
  private static final Duration WORKER_STOP_BOUND = Duration.ofSeconds(30);
  /**
   * Every lease of a run, default and explicit. Far longer than a round, the stop bound and the
   * checkpoint's patience together, so that a lock left held for nobody is still held when the
   * checkpoint looks (or keeps a worker waiting past the stop bound), instead of expiring first.
   */
  static final Duration LEASE = Duration.ofMinutes(3);
  /** The permits of every semaphore of a run. */
  static final int PERMITS = 2;

  private final StressSettings settings;
  /** The lock Redis servers: one, or a Redlock group's masters. Faults hit one at a time. */
  private final List<RedisServer> servers;
  private final Supplier<Relock> connect;
  private final StressLog log = new StressLog();
  private final AtomicReferenceArray<Relock> clients;
  private final Set<Relock> closedClients = ConcurrentHashMap.newKeySet();
  private final CriticalSections sections;
  private final ExecutorService otherThreads = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "stress-other-thread");
    t.setDaemon(true);
    return t;
  });
  private final List<String> names = new ArrayList<>();
  private final List<Thread> workers = new ArrayList<>();
  private volatile boolean stopping;

  /** Whether the workers also use read-write locks and semaphores (not on Redlock, which has none). */
  private final boolean family;
  /** See the constructor. */
  private final boolean lossesExpected;

  /**
   * @param family whether the workers also use read-write locks and semaphores, beside exclusive
   *     locks and multi-locks
   */
  StressRun(StressSettings settings, List<RedisServer> servers, Supplier<Relock> connect, boolean family) {
    this(settings, servers, connect, family, false);
  }

  /**
   * @param lossesExpected whether the run's network can keep a holder from Redis for longer than
   *     its lease or claim (the simulated network): a lease lost and reported is then documented,
   *     and a holder told of its loss may be met inside by the next one (see CriticalSections)
   */
  StressRun(StressSettings settings, List<RedisServer> servers, Supplier<Relock> connect, boolean family,
      boolean lossesExpected) {
    this.settings = settings;
    this.servers = List.copyOf(servers);
    this.family = family;
    this.lossesExpected = lossesExpected;
    this.clients = new AtomicReferenceArray<>(settings.clients());
    this.sections = new CriticalSections(log, closedClients::contains, PERMITS, lossesExpected);
    this.connect = () -> {
      Relock client = connect.get();
      client.addListener(new io.relock.RelockListener() {
        @Override
        public void leaseLost(String lockName, String reason) {
          sections.lost(client, lockName);
        }
      });
      return client;
    };
    for (int i = 0; i < settings.names(); i++) {
      names.add("stress-" + i);
    }
    for (int i = 0; i < settings.names() * 8; i++) {
      names.add("stress-cold-" + i);
    }
  }

  StressSettings settings() {
    return settings;
  }

  StressLog log() {
    return log;
  }

  CriticalSections sections() {
    return sections;
  }

  boolean stopping() {
    return stopping;
  }

  boolean family() {
    return family;
  }

  boolean lossesExpected() {
    return lossesExpected;
  }

  /** A name of a read-write lock (a kind of its own: no other kind ever uses it). */
  String readWriteName(java.util.Random random) {
    return "stress-rw-" + random.nextInt(settings.names());
  }

  /** A name of a semaphore of {@link #PERMITS} permits. */
  String semaphoreName(java.util.Random random) {
    return "stress-sem-" + random.nextInt(settings.names());
  }

  /** A hot name two times in three, else a cold one. */
  String name(java.util.Random random) {
    int hot = settings.names();
    return random.nextInt(3) < 2 ? names.get(random.nextInt(hot)) : names.get(hot + random.nextInt(names.size() - hot));
  }

  Relock client(int slot) {
    return clients.get(slot % settings.clients());
  }

  /**
   * Command connections killed so far. A call in flight when its connection is killed may be sent
   * again by the driver once it has reconnected (Lettuce's default, at-least-once delivery): a
   * release that ran the first time and handed the lock on then runs again, finds another owner,
   * and reports the lease lost although it was released. Workers excuse a loss reported by an
   * operation that such a kill overlapped; the overlap and token checks still hold everywhere.
   */
  long connectionKills() {
    return connectionKills.get();
  }

  private final java.util.concurrent.atomic.AtomicLong connectionKills = new java.util.concurrent.atomic.AtomicLong();

  boolean wasClosed(Relock client) {
    return closedClients.contains(client);
  }

  Future<?> otherThread(Runnable task) {
    return otherThreads.submit(task);
  }

  /** Runs every round and the final check; returns what was seen. */
  StressLog run() {
    try {
      for (int i = 0; i < settings.clients(); i++) {
        clients.set(i, connect.get());
      }
      for (int round = 0; round < settings.rounds(); round++) {
        runRound(round);
        checkpoint("round " + round);
        System.out.println("stress: round " + round + " done, " + log.violationCount() + " violation(s) so far");
      }
      for (int i = 0; i < settings.clients(); i++) {
        closeClient(clients.get(i));
      }
      checkpoint("after closing every client");
    } finally {
      for (int i = 0; i < settings.clients(); i++) {
        Relock c = clients.get(i);
        if (c != null) {
          c.close();
        }
      }
      otherThreads.shutdownNow();
    }
    return log;
  }

  private void runRound(int round) {
    stopping = false;
    workers.clear();
    int perClient = settings.threadsPerClient();
    for (int i = 0; i < settings.clients() * perClient; i++) {
      long seed = settings.seed() * 1_000_003L + round * 7_919L + i;
      boolean virtual = i % 2 == 1 && VirtualThreads.AVAILABLE;
      workers.add(newThread(new StressWorker(this, i / perClient, seed), virtual, "stress-worker-" + i));
      log.count(virtual ? "workers: virtual" : "workers: platform");
    }
    List<Thread> helpers = new ArrayList<>();
    if (settings.faults()) {
      Random random = new Random(settings.seed() * 31 + round);
      helpers.add(newThread(() -> injectFaults(new Random(random.nextLong())), false, "stress-faults"));
      helpers.add(newThread(() -> interrupt(new Random(random.nextLong())), false, "stress-interrupter"));
      helpers.add(newThread(() -> replaceClients(new Random(random.nextLong())), false, "stress-closer"));
    }
    workers.forEach(Thread::start);
    helpers.forEach(Thread::start);
    LockSupport.parkNanos(settings.round().toNanos()); // the workload runs this long
    stopping = true;
    for (Thread h : helpers) {
      join(h, WORKER_STOP_BOUND);
    }
    if (settings.faults()) {
      unpause();
    }
    long deadline = System.nanoTime() + WORKER_STOP_BOUND.toNanos();
    List<Thread> hung = new ArrayList<>();
    for (Thread w : workers) {
      if (!join(w, Duration.ofNanos(Math.max(1_000_000, deadline - System.nanoTime())))) {
        hung.add(w);
        log.violation(w.getName() + " still running " + WORKER_STOP_BOUND.toSeconds() + " s after the round ended: "
            + Arrays.toString(w.getStackTrace()));
      }
    }
    if (!hung.isEmpty()) {
      // Closing the clients fails what they still wait for; a worker stuck beyond that ends the run.
      for (int i = 0; i < settings.clients(); i++) {
        closeClient(clients.getAndSet(i, connect.get()));
      }
      for (Thread w : hung) {
        if (!join(w, WORKER_STOP_BOUND)) {
          throw new IllegalStateException(w.getName() + " hangs even after its client was closed: "
              + Arrays.toString(w.getStackTrace()) + "\n" + log.report(settings));
        }
      }
    }
  }

  private void injectFaults(Random random) {
    while (!stopping) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200 + random.nextInt(800)));
      if (stopping) {
        return;
      }
      int kind = random.nextInt(5);
      RedisServer redis = servers.get(random.nextInt(servers.size()));
      try {
        switch (kind) {
          case 0, 1 -> redis.execute("CLIENT", "PAUSE", Integer.toString(100 + random.nextInt(600)), "ALL");
          case 2 -> redis.execute("SCRIPT", "FLUSH");
          case 3 -> {
            redis.execute("CLIENT", "KILL", "TYPE", "normal");
            connectionKills.incrementAndGet();
          }
          default -> redis.execute("CLIENT", "KILL", "TYPE", "pubsub");
        }
        log.count("fault: " + new String[] {"pause", "pause", "script flush", "kill connections", "kill pub/sub"}[kind]);
      } catch (RuntimeException e) {
        log.count("fault: injection failed");
      }
    }
  }

  private void interrupt(Random random) {
    while (!stopping) {
      LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(500 + random.nextInt(8_000)));
      workers.get(random.nextInt(workers.size())).interrupt();
      log.count("fault: interrupt");
    }
  }

  private void replaceClients(Random random) {
    while (!stopping) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(700 + random.nextInt(1_300)));
      if (stopping) {
        return;
      }
      int slot = random.nextInt(settings.clients());
      Relock fresh;
      try {
        fresh = connect.get();
      } catch (RuntimeException e) {
        // The driver is built directly here, so its own exception says Redis could not be
        // reached (paused by the fault injector); Relock.connect would wrap it in RelockException.
        log.count("fault: client replacement failed to connect");
        continue;
      }
      Relock old = clients.getAndSet(slot, fresh);
      closeClient(old);
      log.count("fault: client closed and replaced");
    }
  }

  private void closeClient(Relock client) {
    closedClients.add(client); // before close() releases its locks: see CriticalSections
    try {
      client.close();
    } catch (RuntimeException e) {
      log.violation("Relock.close() threw " + e);
    }
  }

  private void unpause() {
    for (RedisServer redis : servers) {
      try {
        redis.execute("CLIENT", "UNPAUSE");
      } catch (RuntimeException e) {
        // Paused clients resume by themselves within the pause's length anyway.
      }
    }
  }

  /**
   * Every lock free and every queue empty in Redis, and no local state left in any open client,
   * within a claim time plus a few command timeouts of the workers stopping.
   */
  private void checkpoint(String when) {
    Duration patience = Duration.ofSeconds(2).plus(settings.commandTimeout().multipliedBy(4)).plusSeconds(8);
    long deadline = System.nanoTime() + patience.toNanos();
    List<String> left;
    while (true) {
      left = leftovers();
      if (left.isEmpty() || System.nanoTime() - deadline > 0) {
        break;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
    if (!left.isEmpty()) {
      log.violation(when + ": " + patience.toSeconds() + " s after the workers stopped: " + left);
      for (RedisServer redis : servers) {
        for (String key : lockKeys(redis)) {
          redis.execute("DEL", key); // start the next round clean; the violation is recorded
        }
      }
    }
    log.count("checkpoint: passed" + (left.isEmpty() ? "" : " NOT"));
  }

  private List<String> leftovers() {
    List<String> left = new ArrayList<>();
    for (RedisServer redis : servers) {
      for (String key : lockKeys(redis)) {
        left.add((servers.size() > 1 ? redis.port() + ": " : "") + describe(redis, key));
      }
    }
    for (int i = 0; i < settings.clients(); i++) {
      Relock c = clients.get(i);
      if (!closedClients.contains(c)) {
        int local = RelockContract.localStates(c);
        if (local > 0) {
          left.add("client " + i + " keeps local state for " + local + " name(s)");
        }
      }
    }
    return left;
  }

  /**
   * Every relock key but those meant to stay: the fences and the markers that say a name is a
   * semaphore or a read-write lock.
   */
  private static List<String> lockKeys(RedisServer redis) {
    List<String> keys = new ArrayList<>();
    String cursor = "0";
    do {
      List<?> reply = (List<?>) redis.execute("SCAN", cursor, "MATCH", "relock:{*", "COUNT", "1000");
      cursor = (String) reply.get(0);
      for (Object k : (List<?>) reply.get(1)) {
        String key = (String) k;
        if (!key.endsWith(":fence") && !(key.endsWith("}") && isMarker(redis.execute("GET", key)))) {
          keys.add(key);
        }
      }
    } while (!"0".equals(cursor));
    return keys;
  }

  private static boolean isMarker(Object value) {
    return value instanceof String v && (v.equals("readwrite") || v.matches("semaphore \\d+"));
  }

  private String describe(RedisServer redis, String key) {
    String type = (String) redis.execute("TYPE", key);
    Object content = "string".equals(type) ? redis.execute("GET", key) : "hash".equals(type) ? redis.execute("HGETALL", key)
        : "zset".equals(type) ? redis.execute("ZRANGE", key, "0", "-1") : type;
    String owner = "";
    if (content != null && "string".equals(type) && !key.endsWith(":fence")) {
      owner = " (" + whose(io.relock.contract.StoredLock.of(content).owner()) + ")";
    }
    return key + " " + content + " pttl " + redis.execute("PTTL", key) + owner;
  }

  private String whose(String owner) {
    for (int i = 0; i < settings.clients(); i++) {
      Relock c = clients.get(i);
      if (owner.startsWith(c.clientId())) {
        return "owner of open client " + i;
      }
    }
    return "owner of a closed client";
  }

  private static boolean join(Thread t, Duration bound) {
    try {
      t.join(bound.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return !t.isAlive();
  }

  /** A daemon platform thread, or a virtual thread where the JVM has them (Java 21+). */
  private static Thread newThread(Runnable r, boolean virtual, String name) {
    if (virtual && VirtualThreads.AVAILABLE) {
      return VirtualThreads.unstarted(r, name);
    }
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  /** Thread.ofVirtual() through reflection, so that the suite still compiles for Java 17. */
  static final class VirtualThreads {
    static final boolean AVAILABLE;
    private static final Method OF_VIRTUAL;
    private static final Method NAME;
    private static final Method UNSTARTED;

    static {
      Method of = null;
      Method name = null;
      Method unstarted = null;
      try {
        of = Thread.class.getMethod("ofVirtual");
        Class<?> builder = Class.forName("java.lang.Thread$Builder");
        name = builder.getMethod("name", String.class);
        unstarted = builder.getMethod("unstarted", Runnable.class);
      } catch (ReflectiveOperationException e) {
        of = null;
      }
      OF_VIRTUAL = of;
      NAME = name;
      UNSTARTED = unstarted;
      AVAILABLE = of != null;
    }

    static Thread unstarted(Runnable r, String name) {
      try {
        Object builder = NAME.invoke(OF_VIRTUAL.invoke(null), name);
        return (Thread) UNSTARTED.invoke(builder, r);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("could not start a virtual thread", e);
      }
    }
  }
}

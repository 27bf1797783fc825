package io.relock.torture;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The resource the locks protect: three counters per lock on a redis-server of its own, which the
 * nemesis never touches (see {@code read.lua} for why three). Workers read and write it through
 * {@link #read} and {@link #write}; the coordinator takes a {@link #snapshot} at the end of a run.
 * Thread-safe (one multiplexed Lettuce connection).
 */
final class FencedStore implements AutoCloseable {
  private static final Script READ = Script.load("read.lua");
  private static final Script WRITE = Script.load("write.lua");
  private static final Script READER = Script.load("reader.lua");
  private static final Script PERMIT_ENTER = Script.load("permit_enter.lua");
  private static final Script PERMIT_LEAVE = Script.load("permit_leave.lua");

  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final RedisCommands<String, String> redis;

  FencedStore(String uri) {
    RedisURI redisUri = RedisURI.create(uri);
    redisUri.setTimeout(Duration.ofSeconds(10));
    this.client = RedisClient.create(redisUri);
    this.connection = client.connect();
    this.redis = connection.sync();
  }

  /** What a critical section read: whether the fenced read was accepted, and the three values. */
  record Read(boolean fencedOk, long fencedValue, long writeOnlyValue, long unfencedValue) {}

  /** Outcome of a critical section's write: 1 accepted, 0 refused, -1 skipped, per counter. */
  record Write(int fenced, int writeOnly) {}

  Read read(String lock, long token) {
    List<Object> r = READ.run(redis, keys(lock, false), Long.toString(token));
    return new Read((Long) r.get(0) == 1L, (Long) r.get(1), (Long) r.get(2), (Long) r.get(3));
  }

  Write write(String lock, long token, Read read, String hold) {
    List<Object> r = WRITE.run(redis, keys(lock, true), Long.toString(token),
        read.fencedOk() ? Long.toString(read.fencedValue()) : "", Long.toString(read.writeOnlyValue()),
        Long.toString(read.unfencedValue()), hold);
    return new Write(((Long) r.get(0)).intValue(), ((Long) r.get(1)).intValue());
  }

  /** A read-write lock's reader reads the counters; see {@code reader.lua}. */
  Read readShared(String lock, long token) {
    List<Object> r = READER.run(redis, keys(lock, false), Long.toString(token));
    return new Read((Long) r.get(0) == 1L, (Long) r.get(1), (Long) r.get(2), (Long) r.get(3));
  }

  /** A semaphore's holder enters the resource; see {@code permit_enter.lua}. */
  record Entry(boolean admitted, long inside) {}

  Entry enter(String semaphore, long token, String hold, int permits) {
    List<Object> r = PERMIT_ENTER.run(redis, permitKeys(semaphore), Long.toString(token), hold,
        Integer.toString(permits));
    return new Entry((Long) r.get(0) == 1L, (Long) r.get(1));
  }

  /** A semaphore's holder leaves the resource: 1 accepted, 0 refused (it had been dropped); see {@code permit_leave.lua}. */
  int leave(String semaphore, String hold) {
    List<Object> r = PERMIT_LEAVE.run(redis, permitKeys(semaphore), hold);
    return ((Long) r.get(0)).intValue();
  }

  /** What a semaphore's store counted: holders admitted, refused, dropped by newer ones, left; most inside at once. */
  record PermitCounts(long entered, long refused, long evicted, long left, long maxInside) {}

  PermitCounts permitCounts(String semaphore) {
    Map<String, String> c = redis.hgetall(permitKeys(semaphore)[1]);
    return new PermitCounts(num(c, "entered"), num(c, "refused"), num(c, "evicted"), num(c, "left"),
        num(c, "max_inside"));
  }

  private static String[] permitKeys(String semaphore) {
    String base = "store:{" + semaphore + "}";
    return new String[] {base + ":inside", base + ":permit-counts"};
  }

  /** One accepted fenced write, from the store's log. */
  record LoggedWrite(long token, long base, String hold) {}

  /** The final state of one lock's counters. */
  record Counters(long fencedValue, long fencedWrites, List<LoggedWrite> fencedLog, long writeOnlyValue,
      long writeOnlyWrites, long unfencedValue, long unfencedWrites) {}

  /** The counters of every lock, for the checker. */
  Map<String, Counters> snapshot(List<String> locks) {
    Map<String, Counters> all = new LinkedHashMap<>();
    for (String lock : locks) {
      String[] k = keys(lock, true);
      Map<String, String> f = redis.hgetall(k[0]);
      Map<String, String> w = redis.hgetall(k[1]);
      Map<String, String> u = redis.hgetall(k[2]);
      List<LoggedWrite> log = new ArrayList<>();
      for (String entry : redis.lrange(k[3], 0, -1)) {
        String[] parts = entry.split(" ", 3);
        log.add(new LoggedWrite(Long.parseLong(parts[0]), Long.parseLong(parts[1]), parts[2]));
      }
      all.put(lock, new Counters(num(f, "value"), num(f, "writes"), List.copyOf(log), num(w, "value"),
          num(w, "writes"), num(u, "value"), num(u, "writes")));
    }
    return all;
  }

  private static long num(Map<String, String> hash, String field) {
    String v = hash.get(field);
    return v == null ? 0 : Long.parseLong(v);
  }

  private static String[] keys(String lock, boolean withLog) {
    String base = "store:{" + lock + "}";
    return withLog
        ? new String[] {base + ":fenced", base + ":write-only", base + ":unfenced", base + ":fenced-log"}
        : new String[] {base + ":fenced", base + ":write-only", base + ":unfenced"};
  }

  @Override
  public void close() {
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }

  /** A script of this package, called by SHA1 and loaded when the server does not know it. */
  private record Script(String name, String source, String sha1) {

    static Script load(String name) {
      try (InputStream in = FencedStore.class.getResourceAsStream(name)) {
        if (in == null) {
          throw new IllegalStateException("script resource missing: " + name);
        }
        String source = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        return new Script(name, source, HexFormat.of().formatHex(
            MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8))));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read script " + name, e);
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("SHA-1 is required of every JVM", e);
      }
    }

    List<Object> run(RedisCommands<String, String> redis, String[] keys, String... args) {
      try {
        return redis.evalsha(sha1, ScriptOutputType.MULTI, keys, args);
      } catch (RedisNoScriptException e) {
        redis.scriptLoad(source);
        return redis.evalsha(sha1, ScriptOutputType.MULTI, keys, args);
      }
    }
  }
}

package io.relock.torture;

import static io.relock.torture.HistoryWriter.fields;

import io.relock.testkit.RedisServer;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What the workers left on the lock servers: once every worker has stopped (each released its
 * holds and closed its client), reads every lock on every lock server, and records each key still
 * there as a {@link Event#LEFTOVER}, with when it was gone. Keys are watched until all are gone or
 * {@code patience} has passed, so a run that left nothing costs one read per lock and server.
 * {@link StuckLockCheck} judges them: held by a majority means held for nobody; a key on a
 * minority (a Redlock give-back or release a master missed) must expire within the lease. A
 * read-write lock's or a semaphore's holds are keys of their own, each read and watched alone.
 */
final class Leftovers {
  private static final Duration POLL = Duration.ofMillis(50);
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(2);

  private Leftovers() {}

  /** One key found: where, whose, and when it was first seen gone (-1 while it is there). */
  private static final class Key {
    final String lock;
    /** The Redis key: the lock's, or, for the lock family, the hold's own. */
    final String key;
    final int node;
    final String owner;
    final String token;
    long goneMillis = -1;

    Key(String lock, String key, int node, String owner, String token) {
      this.lock = lock;
      this.key = key;
      this.node = node;
      this.owner = owner;
      this.token = token;
    }
  }

  /** Records what is left and returns how many keys were found. */
  static int check(Cluster cluster, Duration patience) {
    long start = System.nanoTime();
    List<Key> found = new ArrayList<>();
    Map<String, List<RedisServer>> nodesOf = new HashMap<>();
    for (String lock : cluster.settings.locks()) {
      List<RedisServer> nodes = cluster.lockNodes(lock);
      nodesOf.put(lock, nodes);
      for (int i = 0; i < nodes.size(); i++) {
        if (cluster.workload != Workload.EXCLUSIVE) {
          // A read-write lock or a semaphore: each hold is a key of its own.
          Object holds = read(nodes.get(i), "EVAL", Cluster.FAMILY_HOLDS, "1", Cluster.lockKey(lock), "all");
          for (Object value : holds instanceof List<?> l ? l : List.of()) {
            LockView.Entry held = LockView.Entry.ofValue(value);
            if (held != null) {
              found.add(new Key(lock, Cluster.lockKey(lock) + ":h:" + held.owner(), i, held.owner(), held.token()));
            }
          }
          continue;
        }
        LockView.Entry held = LockView.Entry.ofValue(read(nodes.get(i), "GET", Cluster.lockKey(lock)));
        if (held != null) {
          found.add(new Key(lock, Cluster.lockKey(lock), i, held.owner(), held.token()));
        }
      }
    }
    List<Key> present = new ArrayList<>(found);
    long deadline = start + patience.toNanos();
    while (!present.isEmpty() && System.nanoTime() - deadline < 0) {
      sleep(POLL);
      long now = System.nanoTime();
      for (Key k : List.copyOf(present)) {
        if (Long.valueOf(0).equals(read(nodesOf.get(k.lock).get(k.node), "EXISTS", k.key))) {
          k.goneMillis = (now - start) / 1_000_000;
          present.remove(k);
        }
      }
    }
    for (Key k : found) {
      cluster.log.record(start, Event.LEFTOVER, k.lock, null, 0, fields("node", cluster.nodeName(k.node),
          "nodes", nodesOf.get(k.lock).size(), "owner", k.owner, "token", k.token,
          "gone_ms", k.goneMillis < 0 ? null : k.goneMillis));
    }
    return found.size();
  }

  private static Object read(RedisServer node, String... command) {
    try {
      return node.execute(READ_TIMEOUT, command);
    } catch (UncheckedIOException | RedisServer.ErrorReply e) {
      throw new IllegalStateException("the lock server " + node + " did not answer after the workers stopped: "
          + e.getMessage(), e);
    }
  }

  private static void sleep(Duration d) {
    try {
      TimeUnit.NANOSECONDS.sleep(d.toNanos());  // polling: the keys expire on the server's clock
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}

package io.relock.contract;

import io.relock.testkit.RedisServer;
import java.time.Duration;
import java.util.List;

/**
 * A lock as Redis stores it (see relock-core's lockvalue.lua), for tests that look at Redis
 * directly or plant a holder there. The one place in the tests that knows the layout.
 *
 * @param owner the holder's owner id
 * @param token its fencing token
 * @param count its holds as Redis counts them
 * @param waiters whether the value says waiters may be queued
 */
public record StoredLock(String owner, long token, int count, boolean waiters) {

  /** The lock in a {@code GET} reply, or null if the key was absent. */
  public static StoredLock of(Object value) {
    if (value == null) {
      return null;
    }
    String[] f = value.toString().split(" ");
    if (f.length != 7) {
      throw new AssertionError("not a relock lock value: '" + value + "'");
    }
    return new StoredLock(f[0], Long.parseLong(f[1]), Integer.parseInt(f[2]), f[5].equals("w"));
  }

  /** The lock {@code key} on {@code server}, or null if it is free there. */
  public static StoredLock read(RedisServer server, String key) {
    return of(server.execute("GET", key));
  }

  /** The holder of {@code key} on {@code server}, or null if it is free there. */
  public static String holder(RedisServer server, String key) {
    StoredLock lock = read(server, key);
    return lock == null ? null : lock.owner();
  }

  /** Makes {@code owner} the holder of {@code key} on {@code server} for {@code ttl}, as relock would. */
  public static void plant(RedisServer server, String key, String owner, long token, Duration ttl) {
    List<?> time = (List<?>) server.execute("TIME");
    long nowUs = Long.parseLong(time.get(0).toString()) * 1_000_000 + Long.parseLong(time.get(1).toString());
    server.execute("SET", key, owner + " " + token + " 1 " + ttl.toMillis() + " " + nowUs + " - -", "PX",
        Long.toString(ttl.toMillis()));
  }
}

package io.relock.internal;

import io.relock.testkit.RedisServer;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs a relock script on a real redis-server with Redis's clock stopped, so that several scripts
 * share one microsecond for certain: the script's source is preceded by a local {@code redis}
 * whose {@code call} answers {@code TIME} with the given time and passes every other command on.
 * It shadows the global for the whole chunk, fragments included (the scripts reach Redis only
 * through {@code redis.call}). Key expiries still follow Redis's own clock.
 */
final class StoppedClock {
  private StoppedClock() {}

  /** {@code EVAL} of {@code script} with {@code TIME} answering {@code micros}. */
  static Object eval(RedisServer server, long micros, LuaScript script, List<String> keys, List<String> args) {
    String clock = "local redis = setmetatable({call = function(command, ...)\n"
        + "  if command == 'TIME' then return {'" + micros / 1_000_000 + "', '" + micros % 1_000_000 + "'} end\n"
        + "  return redis.call(command, ...)\n"
        + "end}, {__index = redis})\n";
    List<String> command = new ArrayList<>(List.of("EVAL", clock + script.source(), Integer.toString(keys.size())));
    command.addAll(keys);
    command.addAll(args);
    return server.execute(command.toArray(new String[0]));
  }

  /** Redis's clock now, in microseconds. */
  static long serverMicros(RedisServer server) {
    List<?> time = (List<?>) server.execute("TIME");
    return Long.parseLong(time.get(0).toString()) * 1_000_000 + Long.parseLong(time.get(1).toString());
  }
}

package io.relock.bench;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * One reading of {@code INFO commandstats}, {@code INFO cpu} and {@code INFO server} from the
 * Redis under test, and the differences between two readings.
 *
 * <h2>Counting the calls clients made</h2>
 * Redis counts the commands a Lua script runs like commands sent by clients, both in {@code
 * commandstats} and in {@code total_commands_processed} (checked on 6.2 and 7.0: one {@code EVAL}
 * that runs four commands adds five). The deltas here are therefore split into client and script
 * calls by {@link CallSplit}; the harness's own commands ({@code INFO}, {@code CONFIG}, {@code
 * FLUSHALL}) count for nobody. Commands a script cannot run ({@code EVAL*}, {@code FCALL*}, the
 * subscribe family, {@code SCRIPT}, {@code CLIENT}, {@code HELLO}, {@code MULTI}/{@code EXEC},
 * blocking pops, ...) and {@code PING} are client calls by their name alone.
 */
public final class RedisInfo {

  /**
   * Commands nobody under test sent: the harness's own, and a replica's replication traffic to its
   * primary ({@code REPLCONF ACK} every second, {@code PSYNC}/{@code SYNC} when it links).
   */
  private static final Set<String> HARNESS = Set.of("info", "config", "flushall", "flushdb", "dbsize", "monitor",
      "latency", "slowlog", "replconf", "psync", "sync");

  private static final Set<String> CLIENT_ONLY = Set.of(
      "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro", "function",
      "subscribe", "unsubscribe", "psubscribe", "punsubscribe", "ssubscribe", "sunsubscribe",
      "script", "client", "hello", "auth", "select", "ping", "echo", "quit", "reset", "command",
      "multi", "exec", "discard", "watch", "unwatch", "wait", "waitaof", "readonly", "readwrite",
      "cluster", "asking", "blpop", "brpop", "blmove", "blmpop", "brpoplpush", "bzpopmin",
      "bzpopmax", "bzmpop", "xread", "xreadgroup");

  private final Map<String, Long> commandCalls;
  private final Map<String, Long> commandMicros;
  private final Map<String, String> fields;

  private RedisInfo(Map<String, Long> commandCalls, Map<String, Long> commandMicros, Map<String, String> fields) {
    this.commandCalls = commandCalls;
    this.commandMicros = commandMicros;
    this.fields = fields;
  }

  /**
   * Reads the text of {@code INFO} (any sections). Sub-commands such as {@code config|resetstat}
   * (Redis 7) are counted under their command, {@code config}, as Redis 6 does.
   */
  public static RedisInfo parse(String info) {
    Map<String, Long> calls = new TreeMap<>();
    Map<String, Long> micros = new TreeMap<>();
    Map<String, String> fields = new LinkedHashMap<>();
    for (String raw : info.split("\r?\n")) {
      String line = raw.trim();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      int colon = line.indexOf(':');
      if (colon < 0) {
        continue;
      }
      String key = line.substring(0, colon);
      String value = line.substring(colon + 1);
      if (key.startsWith("cmdstat_")) {
        String command = key.substring("cmdstat_".length()).toLowerCase(Locale.ROOT);
        int bar = command.indexOf('|');
        if (bar >= 0) {
          command = command.substring(0, bar);
        }
        calls.merge(command, callsOf(value), Long::sum);
        micros.merge(command, fieldOf(value, "usec"), Long::sum);
      } else {
        fields.put(key, value);
      }
    }
    return new RedisInfo(Collections.unmodifiableMap(calls), Collections.unmodifiableMap(micros),
        Collections.unmodifiableMap(fields));
  }

  private static long callsOf(String stat) {
    for (String part : stat.split(",")) {
      if (part.startsWith("calls=")) {
        return Long.parseLong(part.substring("calls=".length()));
      }
    }
    throw new IllegalArgumentException("no calls= in commandstats entry: " + stat);
  }

  /** A numeric field of a commandstats entry ({@code usec=...}); 0 if absent. */
  private static long fieldOf(String stat, String name) {
    for (String part : stat.split(",")) {
      if (part.startsWith(name + "=")) {
        return Long.parseLong(part.substring(name.length() + 1));
      }
    }
    return 0;
  }

  /**
   * Several servers read at one moment as one: each command's calls summed over {@code primaries}
   * (where clients send their calls; a replica's commandstats count the writes it replays), CPU
   * summed over {@code primaries} and {@code others} (replicas replay every write), every other
   * field from the first primary.
   */
  static RedisInfo combine(List<RedisInfo> primaries, List<RedisInfo> others) {
    if (primaries.isEmpty()) {
      throw new IllegalArgumentException("no primary to read");
    }
    Map<String, Long> calls = new TreeMap<>();
    primaries.forEach(p -> p.commandCalls.forEach((k, v) -> calls.merge(k, v, Long::sum)));
    Map<String, Long> micros = new TreeMap<>();
    primaries.forEach(p -> p.commandMicros.forEach((k, v) -> micros.merge(k, v, Long::sum)));
    Map<String, String> fields = new LinkedHashMap<>(primaries.get(0).fields);
    for (String cpu : List.of("used_cpu_user", "used_cpu_sys")) {
      double sum = 0;
      for (RedisInfo i : primaries) {
        sum += i.number(cpu);
      }
      for (RedisInfo i : others) {
        sum += i.number(cpu);
      }
      fields.put(cpu, Double.toString(sum));
    }
    return new RedisInfo(Collections.unmodifiableMap(calls), Collections.unmodifiableMap(micros),
        Collections.unmodifiableMap(fields));
  }

  /** Calls per command name since the server started or its stats were reset. */
  public Map<String, Long> commandCalls() {
    return commandCalls;
  }

  /**
   * Run time per command name (commandstats {@code usec}) since the server started or its stats
   * were reset, in microseconds; a script's own includes the commands it ran, which are also
   * counted under their names.
   */
  public Map<String, Long> commandMicros() {
    return commandMicros;
  }

  /** CPU time of the server process, user plus system, in seconds. */
  public double cpuSeconds() {
    return number("used_cpu_user") + number("used_cpu_sys");
  }

  /** A field such as {@code redis_version}; empty if absent. */
  public String field(String name) {
    return fields.getOrDefault(name, "");
  }

  private double number(String name) {
    String v = fields.get(name);
    return v == null ? 0 : Double.parseDouble(v);
  }

  /** What happened between {@code earlier} and this reading. */
  public Delta since(RedisInfo earlier) {
    Map<String, Long> calls = new TreeMap<>();
    for (Map.Entry<String, Long> e : commandCalls.entrySet()) {
      long d = e.getValue() - earlier.commandCalls.getOrDefault(e.getKey(), 0L);
      if (d > 0) {
        calls.put(e.getKey(), d);
      }
    }
    return new Delta(Collections.unmodifiableMap(calls), cpuSeconds() - earlier.cpuSeconds());
  }

  /** Whether {@code command} (lower case) is one nobody under test sent (see {@link #HARNESS}). */
  static boolean isHarness(String command) {
    return HARNESS.contains(command);
  }

  /** Whether a client must have sent {@code command} itself (scripts cannot run it), or PING. */
  static boolean isClientOnly(String command) {
    return CLIENT_ONLY.contains(command);
  }

  /**
   * Commands counted between two readings.
   *
   * @param calls calls per command, script-inner ones included, harness ones too
   * @param redisCpuSeconds server CPU used
   */
  public record Delta(Map<String, Long> calls, double redisCpuSeconds) {

    /** Calls per command without the harness's own. */
    public Map<String, Long> withoutHarness() {
      Map<String, Long> out = new TreeMap<>(calls);
      out.keySet().removeAll(HARNESS);
      return out;
    }
  }
}

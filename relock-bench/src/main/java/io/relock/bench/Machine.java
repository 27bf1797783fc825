package io.relock.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.net.URI;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The machine a run measured: what docs/benchmarks.md must state next to the numbers.
 *
 * @param redis where Redis ran: "started by the bench on loopback" or "REDIS_URL (host:port)"
 */
record Machine(int cores, String cpuModel, long memoryBytes, String os, String jvm, String redisVersion,
    String redis, String loadBefore) {

  static Machine describe(BenchRedis redis) {
    String where = redis.started() ? "redis-server started by the bench, loopback"
        : "REDIS_URL " + URI.create(redis.uri()).getHost() + ":" + URI.create(redis.uri()).getPort();
    return new Machine(Runtime.getRuntime().availableProcessors(), readCpuModel(), memTotal(),
        System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"),
        System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"),
        redis.version(), where, loadAverage());
  }

  /** The 1, 5 and 15 minute load averages, as /proc/loadavg gives them; "unknown" elsewhere. */
  static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  private static String readCpuModel() {
    return procField("/proc/cpuinfo", "model name").orElse(System.getProperty("os.arch"));
  }

  private static long memTotal() {
    return procField("/proc/meminfo", "MemTotal")
        .map(v -> Long.parseLong(v.replaceAll("[^0-9]", "")) * 1024)
        .orElse(Runtime.getRuntime().maxMemory());
  }

  private static Optional<String> procField(String file, String name) {
    try {
      for (String line : Files.readAllLines(Path.of(file))) {
        int colon = line.indexOf(':');
        if (colon > 0 && line.substring(0, colon).trim().equals(name)) {
          return Optional.of(line.substring(colon + 1).trim());
        }
      }
    } catch (IOException | RuntimeException e) {
      // Not Linux: fall back.
    }
    return Optional.empty();
  }

  String oneLine() {
    return String.format(Locale.ROOT, "%d cores (%s), %.0f GiB, %s, %s, Redis %s (%s)",
        cores, cpuModel, memoryBytes / (1024.0 * 1024 * 1024), os, jvm, redisVersion, redis);
  }

  Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("cores", cores);
    m.put("cpu_model", cpuModel);
    m.put("memory_bytes", memoryBytes);
    m.put("os", os);
    m.put("jvm", jvm);
    m.put("redis_version", redisVersion);
    m.put("redis", redis);
    m.put("load_average_before", loadBefore);
    return m;
  }
}

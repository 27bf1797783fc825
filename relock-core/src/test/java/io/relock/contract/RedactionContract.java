package io.relock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.relock.LockLease;
import io.relock.Relock;
import io.relock.RelockException;
import io.relock.spi.RedisUri;
import io.relock.testkit.RedisClusterGroup;
import io.relock.testkit.RedisMasterGroup;
import io.relock.testkit.RedisSentinelGroup;
import io.relock.testkit.RedisServer;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * No password ever shows, on any topology and through every path whose message names the target:
 * a wrong password at {@code build()}, a user whose ACL allows no scripts, a script error, a
 * command timeout, and Redis unreachable (for a running client, then at {@code build()}). Each
 * failure's whole cause chain (messages, {@code toString}, suppressed) and every line logged
 * meanwhile are searched for the password, its percent-encoded form, and the pieces of it a
 * parser that cut it at a reserved character would show. The passwords hold a space and every
 * URI delimiter. Each topology starts once; the driver is the module's, found by ServiceLoader.
 */
public abstract class RedactionContract {
  /** The data nodes' password (and that of a user without script rights). */
  static final String PASSWORD = "kQ7v/@:%# Zx9w";
  /** The sentinels' password, another one. */
  static final String SENTINEL_PASSWORD = "Jm4t/@:%# Wy2r";
  /** A wrong password: it must not show either. */
  static final String WRONG = "Hb8u/@:%# Vq5s";
  /** What must never appear: each password's pieces around its delimiters, and the encoded forms. */
  static final List<String> SECRETS = List.of("kQ7v", "Zx9w", "Jm4t", "Wy2r", "Hb8u", "Vq5s",
      RedisUri.encode(PASSWORD), RedisUri.encode(SENTINEL_PASSWORD), RedisUri.encode(WRONG), "%2F%40%3A");
  private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(600);

  enum Topology { SINGLE, SENTINEL, CLUSTER, REDLOCK }

  /** A running topology whose data nodes need {@link #PASSWORD}. */
  private interface Deployment extends AutoCloseable {
    /** A client builder that logs in to the data nodes as {@code user} (null: default) with {@code password}. */
    Relock.Builder builder(String user, String password);

    List<RedisServer> dataNodes();

    /** The data nodes that hold {@code key}: the primary of its slot, or every Redlock master. */
    List<RedisServer> holding(String key);

    /** Stops every process, sentinels included. */
    void stopAll();

    @Override
    void close();
  }

  @ParameterizedTest
  @EnumSource(Topology.class)
  void everyFailureThatNamesTheTarget_hidesEveryPassword(Topology topology) {
    Map<String, Throwable> failures = new LinkedHashMap<>();
    ByteArrayOutputStream logged = new ByteArrayOutputStream();
    PrintStream original = System.err;
    System.setErr(new PrintStream(new Tee(original, logged), true, StandardCharsets.UTF_8));
    try (Deployment d = deploy(topology)) {
      for (RedisServer node : d.dataNodes()) {
        node.execute("ACL", "SETUSER", "scriptless", "on", ">" + PASSWORD, "~*", "&*", "+@all", "-@scripting");
      }

      failures.put("wrong password at build()", catchThrowable(() -> d.builder(null, WRONG).build().close()));
      if (topology == Topology.SENTINEL) {
        failures.put("wrong sentinel password at build()", catchThrowable(() -> Relock.builder()
            .sentinel(((SentinelDeployment) d).group.masterName(), ((SentinelDeployment) d).sentinelUris(WRONG))
            .sentinelPrimaryCredentials(null, PASSWORD).connectTimeout(Duration.ofSeconds(2)).build().close()));
      }

      Throwable refused;
      try (Relock scriptless = d.builder("scriptless", PASSWORD).build()) {
        refused = catchThrowable(() -> scriptless.lock("redact:acl").acquire(Duration.ZERO).close());
      } catch (RelockException e) {
        refused = e; // the server check's script call may already be refused
      }
      failures.put("a user without script rights", refused);
      assertThat(refused).as("an ACL refusal named as such, on " + topology)
          .isInstanceOf(RelockException.class).hasMessageContaining("Redis rejected").hasMessageContaining("ACL");

      try (Relock relock = d.builder(null, PASSWORD).build()) {
        try (LockLease lease = relock.lock("redact:ok").acquire(Duration.ZERO)) {
          assertThat(lease.isValid()).as("the right password works").isTrue();
        }

        String wrongType = "relock:{redact:wrongtype}";
        for (RedisServer node : d.holding(wrongType)) {
          node.execute("HSET", wrongType, "not", "a lock");
        }
        Throwable scriptError = catchThrowable(() -> relock.lock("redact:wrongtype").acquire(Duration.ZERO).close());
        failures.put("a script error", scriptError);
        assertThat(scriptError).isInstanceOf(RelockException.class).hasMessageContaining("WRONGTYPE");

        String slowKey = "relock:{redact:slow}";
        for (RedisServer node : d.holding(slowKey)) {
          node.execute("CLIENT", "PAUSE", "1500", "ALL");
        }
        failures.put("a command timeout",
            catchThrowable(() -> relock.lock("redact:slow").acquire(Duration.ZERO).close()));
        for (RedisServer node : d.holding(slowKey)) {
          node.execute("PING"); // answered once the pause is over
        }

        d.stopAll();
        failures.put("Redis unreachable, a running client",
            catchThrowable(() -> relock.lock("redact:gone").acquire(Duration.ZERO).close()));
      }
      failures.put("Redis unreachable at build()",
          catchThrowable(() -> d.builder(null, PASSWORD).connectTimeout(Duration.ofSeconds(1)).build().close()));
    } finally {
      System.setErr(original);
    }

    failures.forEach((path, thrown) -> {
      System.err.println("RedactionContract " + topology + ", " + path + ": " + thrown);
      assertThat(thrown).as(path + " on " + topology + " fails").isInstanceOf(RuntimeException.class);
      assertThat(thrown.getMessage()).as(path + " on " + topology + " names the target")
          .containsAnyOf("***@", "primary as", "redlock [", "sentinel '", "cluster [");
      assertHidden(path + " on " + topology, thrown);
    });
    String log = logged.toString(StandardCharsets.UTF_8);
    for (String secret : SECRETS) {
      assertThat(log).as("the log lines of " + topology).doesNotContain(secret);
    }
  }

  /** Neither the message nor toString of any throwable in the chain, nor of any suppressed one, shows a secret. */
  static void assertHidden(String what, Throwable thrown) {
    List<Throwable> all = new ArrayList<>();
    collect(thrown, all);
    for (Throwable t : all) {
      for (String secret : SECRETS) {
        assertThat(String.valueOf(t.getMessage())).as(what + ": message of " + t.getClass().getName())
            .doesNotContain(secret);
        assertThat(t.toString()).as(what + ": " + t.getClass().getName()).doesNotContain(secret);
      }
    }
  }

  private static void collect(Throwable t, List<Throwable> into) {
    if (t == null || into.contains(t)) {
      return;
    }
    into.add(t);
    for (Throwable s : t.getSuppressed()) {
      collect(s, into);
    }
    collect(t.getCause(), into);
  }

  private static String credentials(String user, String password) {
    return (user == null ? "" : RedisUri.encode(user)) + ":" + RedisUri.encode(password) + "@";
  }

  private static String withCredentials(String uri, String user, String password) {
    return "redis://" + credentials(user, password) + uri.substring(uri.lastIndexOf('@') + 1);
  }

  private static Relock.Builder timeouts(Relock.Builder b) {
    return b.commandTimeout(COMMAND_TIMEOUT).connectTimeout(Duration.ofSeconds(3)).defaultLease(Duration.ofSeconds(5));
  }

  private Deployment deploy(Topology topology) {
    return switch (topology) {
      case SINGLE -> new SingleDeployment(RedisServer.builder().password(PASSWORD).start());
      case SENTINEL -> new SentinelDeployment(RedisSentinelGroup.builder().replicas(0).downAfter(Duration.ofMinutes(1))
          .password(PASSWORD).sentinelPassword(SENTINEL_PASSWORD).start());
      case CLUSTER -> new ClusterDeployment(RedisClusterGroup.builder().password(PASSWORD).start());
      case REDLOCK -> new RedlockDeployment(RedisMasterGroup.start(3, b -> b.password(PASSWORD)));
    };
  }

  private record SingleDeployment(RedisServer server) implements Deployment {
    @Override
    public Relock.Builder builder(String user, String password) {
      return timeouts(Relock.builder().uri(withCredentials(server.uri(), user, password)));
    }

    @Override
    public List<RedisServer> dataNodes() {
      return List.of(server);
    }

    @Override
    public List<RedisServer> holding(String key) {
      return List.of(server);
    }

    @Override
    public void stopAll() {
      server.stop();
    }

    @Override
    public void close() {
      server.close();
    }
  }

  private record SentinelDeployment(RedisSentinelGroup group) implements Deployment {
    String[] sentinelUris(String password) {
      return group.sentinelUris().stream().map(u -> withCredentials(u, null, password)).toArray(String[]::new);
    }

    @Override
    public Relock.Builder builder(String user, String password) {
      return timeouts(Relock.builder().sentinel(group.masterName(), sentinelUris(SENTINEL_PASSWORD))
          .sentinelPrimaryCredentials(user, password));
    }

    @Override
    public List<RedisServer> dataNodes() {
      return group.nodes();
    }

    @Override
    public List<RedisServer> holding(String key) {
      return List.of(group.primary());
    }

    @Override
    public void stopAll() {
      group.sentinels().forEach(RedisServer::stop);
      group.nodes().forEach(RedisServer::stop);
    }

    @Override
    public void close() {
      group.close();
    }
  }

  /** {@code seeds} are read at once: once the nodes are stopped, the group cannot tell its primaries. */
  private record ClusterDeployment(RedisClusterGroup group, List<String> seeds) implements Deployment {
    ClusterDeployment(RedisClusterGroup group) {
      this(group, group.seedUris());
    }

    @Override
    public Relock.Builder builder(String user, String password) {
      return timeouts(Relock.builder().cluster(seeds.stream()
          .map(u -> withCredentials(u, user, password)).toArray(String[]::new)));
    }

    @Override
    public List<RedisServer> dataNodes() {
      return group.nodes();
    }

    @Override
    public List<RedisServer> holding(String key) {
      return List.of(group.primaryFor(key));
    }

    @Override
    public void stopAll() {
      group.nodes().forEach(RedisServer::stop);
    }

    @Override
    public void close() {
      group.close();
    }
  }

  private record RedlockDeployment(RedisMasterGroup masters) implements Deployment {
    @Override
    public Relock.Builder builder(String user, String password) {
      return timeouts(Relock.builder().redlock(Arrays.stream(masters.uris())
          .map(u -> withCredentials(u, user, password)).toArray(String[]::new)));
    }

    @Override
    public List<RedisServer> dataNodes() {
      return masters.masters();
    }

    @Override
    public List<RedisServer> holding(String key) {
      return masters.masters();
    }

    @Override
    public void stopAll() {
      masters.masters().forEach(RedisServer::stop);
    }

    @Override
    public void close() {
      masters.close();
    }
  }

  /** Writes to the console as usual, and to the capture the test searches. */
  private static final class Tee extends OutputStream {
    private final OutputStream console;
    private final OutputStream capture;

    Tee(OutputStream console, OutputStream capture) {
      this.console = console;
      this.capture = capture;
    }

    @Override
    public synchronized void write(int b) throws java.io.IOException {
      console.write(b);
      capture.write(b);
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) throws java.io.IOException {
      console.write(b, off, len);
      capture.write(b, off, len);
    }
  }
}

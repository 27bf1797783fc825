package io.relock.cli;

import static io.relock.cli.Cli.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.relock.LockLease;
import io.relock.Relock;
import io.relock.testkit.RedisExtension;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code status}, {@code list}, {@code watch} and {@code unlock}: their output for people and with
 * {@code --json}, against locks held and waited for through the library.
 */
class InspectionCommandsTest {
  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  private final List<Relock> clients = new ArrayList<>();

  @BeforeEach
  void empty() {
    redis.server().execute("FLUSHALL");
  }

  @AfterEach
  void closeClients() {
    clients.forEach(Relock::close);
    clients.clear();
  }

  private Relock client() {
    Relock c = Relock.connect(redis.server().uri());
    clients.add(c);
    return c;
  }

  private static String uri() {
    return redis.server().uri();
  }

  /** A JSON document as nested maps and lists, read with Jackson's streaming parser. */
  static Object json(String text) {
    try (JsonParser p = new JsonFactory().createParser(text)) {
      p.nextToken();
      return value(p);
    } catch (IOException e) {
      throw new AssertionError("not JSON: " + text, e);
    }
  }

  private static Object value(JsonParser p) throws IOException {
    JsonToken t = p.currentToken();
    if (t == JsonToken.START_OBJECT) {
      Map<String, Object> m = new LinkedHashMap<>();
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        p.nextToken();
        m.put(name, value(p));
      }
      return m;
    }
    if (t == JsonToken.START_ARRAY) {
      List<Object> l = new ArrayList<>();
      while (p.nextToken() != JsonToken.END_ARRAY) {
        l.add(value(p));
      }
      return l;
    }
    return switch (t) {
      case VALUE_NUMBER_INT -> p.getLongValue();
      case VALUE_TRUE -> true;
      case VALUE_FALSE -> false;
      case VALUE_NULL -> null;
      default -> p.getText();
    };
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> object(Object o) {
    return (Map<String, Object>) o;
  }

  @Test
  void status_showsTheHolderTokenLeaseAndWaitersInOrder_forPeopleAndAsJson() throws Exception {
    Relock holder = client();
    Relock waiter = client();
    LockLease held = holder.lock("report").acquire(Duration.ZERO);
    CompletableFuture<LockLease> waiting = waiter.lock("report").acquireAsync(Cli.PATIENCE);
    await("the waiter is queued", () -> holder.inspect("report").waiters().size() == 1);

    Cli people = Cli.run("status", "--uri", uri(), "report");
    assertThat(people.exitCode()).as(people.describe()).isZero();
    assertThat(people.stdoutLines()).contains("lock        report", "state       held",
        "client      " + holder.clientId(), "token       " + held.fencingToken(), "holds       1", "waiters     1");
    java.time.Instant since = holder.inspect("report").holder().orElseThrow().since().orElseThrow();
    assertThat(people.stdoutLines()).contains("since       " + since);
    assertThat(people.stdoutLines()).anyMatch(l -> l.matches("lease       \\d+\\.\\ds remaining"));
    assertThat(people.stdoutLines().get(people.stdoutLines().size() - 1))
        .startsWith("  1. client " + waiter.clientId() + "  owner " + waiter.clientId() + ":");

    Cli json = Cli.run("status", "--json", "--uri", uri(), "report");
    Map<String, Object> doc = object(json(json.stdout()));
    assertThat(doc).containsEntry("name", "report").containsEntry("held", true);
    assertThat((Long) doc.get("lastToken")).as("tokens are issued to attempts too, the waiter's included")
        .isGreaterThanOrEqualTo(held.fencingToken());
    Map<String, Object> h = object(doc.get("holder"));
    assertThat(h).containsEntry("client", holder.clientId()).containsEntry("fencingToken", held.fencingToken())
        .containsEntry("holdCount", 1L).containsEntry("since", since.toString());
    assertThat((Long) h.get("remainingLeaseMillis")).isBetween(1L, 30_000L);
    assertThat((List<?>) doc.get("waiters")).singleElement().satisfies(w ->
        assertThat(object(w)).containsEntry("client", waiter.clientId()));

    held.close();
    waiting.get(Cli.PATIENCE.toSeconds(), TimeUnit.SECONDS).close();
    Cli free = Cli.run("status", "--uri", uri(), "report");
    assertThat(free.stdoutLines()).contains("state       free", "waiters     none");
    assertThat(object(json(Cli.run("status", "--json", "--uri", uri(), "report").stdout())))
        .containsEntry("held", false).containsEntry("holder", null);
  }

  @Test
  void list_showsTheHeldLocksMatchingThePattern_asAnAlignedTableAndAsJson() {
    Relock holder = client();
    LockLease one = holder.lock("orders:1").acquire(Duration.ZERO);
    LockLease two = holder.lock("orders:2").acquire(Duration.ZERO);
    LockLease other = holder.lock("other").acquire(Duration.ZERO);

    Cli table = Cli.run("list", "--uri", uri(), "--match", "orders:*");
    assertThat(table.exitCode()).as(table.describe()).isZero();
    List<String> lines = table.stdoutLines();
    assertThat(lines).hasSize(3);
    assertThat(lines.get(0)).matches("NAME +CLIENT +SINCE +LEASE +TOKEN +HOLDS +WAITERS");
    String shortId = holder.clientId().substring(0, 8);
    String since = "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d+Z";
    assertThat(lines.get(1)).matches("orders:1 +" + shortId + " +" + since + " +\\d+\\.\\ds +" + one.fencingToken() + " +1 +0");
    assertThat(lines.get(2)).matches("orders:2 +" + shortId + " +" + since + " +\\d+\\.\\ds +" + two.fencingToken() + " +1 +0");
    assertThat(lines.get(1).indexOf(shortId)).as("aligned").isEqualTo(lines.get(0).indexOf("CLIENT"));
    assertThat(lines.get(2).indexOf(Long.toString(two.fencingToken()))).as("aligned")
        .isEqualTo(lines.get(0).indexOf("TOKEN"));

    List<?> all = (List<?>) json(Cli.run("list", "--json", "--uri", uri()).stdout());
    assertThat(all).extracting(o -> object(o).get("name")).containsExactly("orders:1", "orders:2", "other");
    assertThat(object(object(all.get(2)).get("holder"))).containsEntry("fencingToken", other.fencingToken());

    assertThat(Cli.run("list", "--uri", uri(), "--match", "none:*").stdout()).isEqualTo("no held locks match 'none:*'\n");
    assertThat(json(Cli.run("list", "--json", "--uri", uri(), "--match", "none:*").stdout())).isEqualTo(List.of());
  }

  @Test
  void watch_printsTheStateThenALinePerChange_untilInterrupted() throws Exception {
    Cli.assumeSigintIsDelivered();
    Relock holder = client();
    Relock waiter = client();
    try (Cli people = Cli.start("watch", "--interval", "50ms", "--uri", uri(), "watched");
        Cli json = Cli.start("watch", "--json", "--interval", "50ms", "--uri", uri(), "watched")) {
      people.awaitStdoutLine("the first state", l -> l.endsWith("free (last token -), no waiters"));
      json.awaitStdoutLine("the first state", l -> l.contains("\"held\":false"));

      LockLease first = holder.lock("watched").acquire(Duration.ZERO);
      String holderId = holder.clientId().substring(0, 8);
      people.awaitStdoutLine("the holder", l -> l.contains("held by " + holderId + " ") && l.endsWith("no waiters"));
      CompletableFuture<LockLease> waiting = waiter.lock("watched").acquireAsync(Cli.PATIENCE);
      people.awaitStdoutLine("the waiter", l -> l.contains("held by " + holderId + " ")
          && l.endsWith("1 waiting: " + waiter.clientId().substring(0, 8)));
      first.close();
      LockLease second = waiting.get(Cli.PATIENCE.toSeconds(), TimeUnit.SECONDS);
      people.awaitStdoutLine("the hand-over", l -> l.contains("held by " + waiter.clientId().substring(0, 8)
          + " (owner " + waiter.clientId() + ":") && l.contains("token " + second.fencingToken()));
      json.awaitStdoutLine("the hand-over", l -> l.contains("\"fencingToken\":" + second.fencingToken()));
      second.close();
      people.awaitStdoutLine("the lock free again", l -> l.contains("free (last token " + second.fencingToken() + ")"));
      json.awaitStdoutLine("the lock free again", l -> l.contains("\"held\":false") && l.contains(
          "\"lastToken\":" + second.fencingToken()));

      people.signal("INT");
      json.signal("TERM");
      assertThat(people.exitCode()).as(people.describe()).isZero();
      assertThat(json.exitCode()).as(json.describe()).isZero();
      assertThat(people.stdoutLines()).allMatch(l -> l.matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3}  .*"));
      assertThat(people.stdoutLines()).as("one line per change, not per read").hasSizeLessThanOrEqualTo(5);
      List<Long> tokens = new ArrayList<>();
      for (String line : json.stdoutLines()) {
        Map<String, Object> state = object(json(line));
        assertThat(state).containsKeys("time", "name", "held", "holder", "waiters", "lastToken");
        if (state.get("holder") != null) {
          tokens.add((Long) object(state.get("holder")).get("fencingToken"));
        }
      }
      assertThat(tokens).contains(first.fencingToken(), second.fencingToken());
      assertThat(people.stderr()).isEmpty();
    }
  }

  @Test
  void unlock_releasesOnlyWithForce_andWithoutATerminalOnlyWithYes_andSaysWhatItReleased() {
    Relock holder = client();
    LockLease held = holder.lock("stuck").acquire(Duration.ZERO);

    Cli noForce = Cli.run("unlock", "--uri", uri(), "stuck");
    assertThat(noForce.exitCode()).isEqualTo(ExitCode.USAGE);
    assertThat(noForce.stderrLines()).singleElement().asString().contains("--force");
    Cli noTerminal = Cli.run("unlock", "--force", "--uri", uri(), "stuck");
    assertThat(noTerminal.exitCode()).isEqualTo(ExitCode.USAGE);
    assertThat(noTerminal.stderrLines()).singleElement().asString().contains("--yes");
    assertThat(holder.inspect("stuck").holder().orElseThrow().fencingToken()).isEqualTo(held.fencingToken());

    Cli json = Cli.run("unlock", "--force", "--yes", "--json", "--uri", uri(), "stuck");
    assertThat(json.exitCode()).as(json.describe()).isZero();
    Map<String, Object> doc = object(json(json.stdout()));
    assertThat(doc).containsEntry("name", "stuck").containsEntry("released", true);
    assertThat(object(doc.get("holder"))).containsEntry("client", holder.clientId())
        .containsEntry("fencingToken", held.fencingToken());
    assertThat(holder.inspect("stuck").isHeld()).isFalse();

    Cli again = Cli.run("unlock", "--force", "--yes", "--uri", uri(), "stuck");
    assertThat(again.exitCode()).isZero();
    assertThat(again.stdout()).isEqualTo("lock 'stuck' is not held; nothing to release\n");
  }
}

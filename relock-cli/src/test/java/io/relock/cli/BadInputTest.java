package io.relock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.testkit.RedisExtension;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Bad durations, URIs and names: one line on stderr naming the value, the usage exit code, and
 * no connection to Redis at all.
 */
class BadInputTest {
  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  private static long connectionsReceived() {
    String stats = String.valueOf(redis.server().execute("INFO", "stats"));
    for (String line : stats.split("\r?\n")) {
      if (line.startsWith("total_connections_received:")) {
        return Long.parseLong(line.substring("total_connections_received:".length()).trim());
      }
    }
    throw new AssertionError("no total_connections_received in INFO stats");
  }

  private static Cli rejected(String value, String... args) {
    return rejected(Map.of(), value, args);
  }

  private static Cli rejected(Map<String, String> environment, String value, String... args) {
    long before = connectionsReceived();
    Cli cli = Cli.run(environment, args);
    assertThat(cli.exitCode()).as(cli.describe()).isEqualTo(ExitCode.USAGE);
    assertThat(cli.stderrLines()).as("one line naming " + value).singleElement().asString().contains(value)
        .startsWith("relock " + args[0] + ": ");
    assertThat(cli.stdout()).isEmpty();
    // One connection is this check's own INFO call.
    assertThat(connectionsReceived()).as("connections to Redis").isEqualTo(before + 1);
    return cli;
  }

  @Test
  void badDurations_areRejected_naming() {
    String uri = redis.server().uri();
    rejected("'5x'", "run", "--uri", uri, "--wait", "5x", "job", "--", "true");
    rejected("'-1s'", "run", "--uri", uri, "--lease", "-1s", "job", "--", "true");
    rejected("'10 s'", "run", "--uri", uri, "--grace", "10 s", "job", "--", "true");
    rejected("--lease must be at least 1ms, was 0ms", "run", "--uri", uri, "--lease", "0", "job", "--", "true");
    rejected("1ms", "watch", "--uri", uri, "--interval", "1ms", "job");
    rejected("'fast'", "status", "--uri", uri, "--timeout", "fast", "job");
  }

  @Test
  void badUris_areRejected_naming() {
    rejected("'http://localhost:6379'", "status", "--uri", "http://localhost:6379", "job");
    rejected("redis-sentinel", "status", "--uri", "redis-sentinel://localhost:26379", "job");
    rejected("--redlock", "status", "--redlock", "redis://a:1,redis://b:1", "job");
    rejected("--master", "status", "--sentinel", "redis://a:26379", "job");
  }

  /** Once Lettuce's {@code For input string: "pw@localhost:6379"}, which showed a piece of the password. */
  @Test
  void aRawReservedCharacterInAPassword_isRejected_sayingToPercentEncodeIt_withoutShowingThePassword() {
    Cli fromOption = rejected("must be percent-encoded", "status", "--uri", "redis://weak:We4k/pw@localhost:6379", "job");
    assertThat(fromOption.stderr()).contains("'redis://weak:***@localhost:6379'").doesNotContain("We4k")
        .doesNotContain("pw@");
    Cli fromEnvironment = rejected(Map.of("REDIS_URL", "redis://weak:We4k#pw@localhost:6379"), "must be percent-encoded",
        "status", "job");
    assertThat(fromEnvironment.stderr()).doesNotContain("We4k").doesNotContain("pw@");
  }

  @Test
  void badNames_areRejected_naming() {
    String uri = redis.server().uri();
    rejected("' '", "status", "--uri", uri, " ");
    rejected("1025 UTF-8 bytes", "run", "--uri", uri, "x".repeat(1025), "--", "true");
    rejected("'COMMAND'", "run", "--uri", uri, "job");
  }

  @Test
  void noCommand_printsTheUsageProblem_andHelpWorksForEveryCommand() {
    Cli none = Cli.run();
    assertThat(none.exitCode()).isEqualTo(ExitCode.USAGE);
    assertThat(none.stderrLines()).singleElement().asString().contains("give a command");
    for (String command : List.of("run", "status", "list", "unlock", "watch")) {
      Cli help = Cli.run(command, "--help");
      assertThat(help.exitCode()).isZero();
      assertThat(help.stdout()).startsWith("Usage: relock " + command).contains("Examples:");
    }
    assertThat(Cli.run("--help").stdout()).contains("Exit codes:").contains(ExitCode.BUSY + "   run:");
  }
}

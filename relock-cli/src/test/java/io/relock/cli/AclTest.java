package io.relock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.RedisAcl;
import io.relock.testkit.RedisServer;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The command line under exactly relock's least-privilege ACL rule ({@link RedisAcl#RULE}), as the
 * only user of a server the test kit runs, and under a narrower rule.
 */
class AclTest {
  private static final Map<String, String> LOGIN = Map.of("REDIS_USER", "locks", "REDIS_PASSWORD", "pw");

  @Test
  void underExactlyTheRule_runStatusListWatchAndUnlockWork() {
    try (RedisServer server = RedisServer.builder().aclUser("locks", "pw", RedisAcl.RULE).start()) {
      String uri = "redis://127.0.0.1:" + server.port();
      Cli run = Cli.run(LOGIN, "run", "--uri", uri, "acl", "--", "sh", "-c", "echo $RELOCK_FENCING_TOKEN");
      assertThat(run.exitCode()).as(run.describe()).isZero();
      assertThat(run.stderr()).isEmpty();
      try (Cli holder = Cli.start(LOGIN, "run", "--uri", uri, "--lease", "1500ms", "held", "--", "sleep", "60")) {
        Cli.await("the lock is listed", () -> Cli.run(LOGIN, "list", "--uri", uri).stdout().contains("held "));
        Cli status = Cli.run(LOGIN, "status", "--uri", uri, "held");
        assertThat(status.exitCode()).as(status.describe()).isZero();
        assertThat(status.stdoutLines()).contains("state       held");
        Cli unlock = Cli.run(LOGIN, "unlock", "--force", "--yes", "--uri", uri, "held");
        assertThat(unlock.exitCode()).as(unlock.describe()).isZero();
        assertThat(unlock.stdout()).startsWith("released lock 'held'");
        assertThat(holder.exitCode()).as("its run was told").isEqualTo(ExitCode.LOST);
      }
      try (Cli watch = Cli.start(LOGIN, "watch", "--uri", uri, "acl")) {
        watch.awaitStdoutLine("the lock's state", l -> l.contains("free (last token "));
      }
    }
  }

  @Test
  void underANarrowerRule_theCommandFails_withOneLineNamingWhatRedisRefused() {
    try (RedisServer server = RedisServer.builder().aclUser("locks", "pw", RedisAcl.RULE.replace(" +@sortedset", ""))
        .start()) {
      String uri = "redis://127.0.0.1:" + server.port();
      // An uncontended acquisition touches no sorted set; one that must queue does.
      try (Cli holder = Cli.start(LOGIN, "run", "--uri", uri, "narrow", "--", "sh", "-c", "echo held; sleep 60")) {
        holder.awaitStdoutLine("the holder runs its command", l -> l.equals("held"));
        Cli run = Cli.run(LOGIN, "run", "--uri", uri, "--wait", "5s", "narrow", "--", "true");
        assertThat(run.exitCode()).as(run.describe()).isEqualTo(ExitCode.REDIS);
        assertThat(run.stderrLines()).singleElement().asString()
            .startsWith("relock run: ")
            .contains("'narrow'")
            .contains("ZADD in acquire.lua")
            .contains("RedisAcl")
            .doesNotContain("pw@");
      }
    }
  }
}

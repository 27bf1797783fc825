package io.relock.cli;

import static io.relock.cli.Cli.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.relock.LockInfo;
import io.relock.LockLease;
import io.relock.Relock;
import io.relock.testkit.RedisExtension;
import io.relock.testkit.RedisServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code relock run}, the real jar through its launcher, against a real redis-server. */
class RunCommandTest {
  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  private static Relock library;

  @TempDir
  Path dir;

  @BeforeAll
  static void connect() {
    library = Relock.connect(redis.server().uri());
  }

  @AfterAll
  static void disconnect() {
    library.close();
  }

  @BeforeEach
  void empty() {
    redis.server().execute("FLUSHALL");
  }

  private static String uri() {
    return redis.server().uri();
  }

  /** A command that writes "ready" to {@code file} and then sleeps until signalled. */
  private static String readyThenSleep(Path file, String onTerm) {
    return "trap '" + onTerm + "' TERM; trap 'echo INT >> " + file + "; exit 6' INT; echo $$ > " + file + ".pid;"
        + " echo ready >> " + file + "; while true; do sleep 0.05; done";
  }

  private static String read(Path file) {
    try {
      return Files.exists(file) ? Files.readString(file) : "";
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void threeConcurrentRuns_neverOverlap_andTheirTokensIncrease() {
    Path log = dir.resolve("log");
    String section = "echo start $RELOCK_FENCING_TOKEN >> " + log + "; sleep 1; echo end $RELOCK_FENCING_TOKEN >> " + log;
    List<Cli> runs = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        runs.add(Cli.start("run", "--uri", uri(), "--wait", "60s", "shared", "--", "sh", "-c", section));
      }
      for (Cli run : runs) {
        assertThat(run.exitCode()).as(run.describe()).isZero();
      }
    } finally {
      runs.forEach(Cli::close);
    }
    List<String> lines = List.of(read(log).split("\n"));
    assertThat(lines).hasSize(6);
    long previous = 0;
    for (int i = 0; i < 6; i += 2) {
      assertThat(lines.get(i)).as("a section starts only after the previous one ended: " + lines).startsWith("start ");
      String token = lines.get(i).substring("start ".length());
      assertThat(lines.get(i + 1)).as("the same section ends next: " + lines).isEqualTo("end " + token);
      assertThat(Long.parseLong(token)).as("tokens increase").isGreaterThan(previous);
      previous = Long.parseLong(token);
    }
    assertThat(library.inspect("shared").isHeld()).isFalse();
  }

  @Test
  void theCommandGetsTheLocksNameAndToken_andRunExitsWithItsCode_andReleases() {
    Cli run = Cli.run("run", "--uri", uri(), "job", "--", "sh", "-c", "echo $RELOCK_NAME $RELOCK_FENCING_TOKEN; exit 7");
    assertThat(run.exitCode()).as(run.describe()).isEqualTo(7);
    LockInfo after = library.inspect("job");
    assertThat(after.isHeld()).isFalse();
    assertThat(run.stdout()).isEqualTo("job " + after.lastToken() + "\n");
    assertThat(run.stderr()).isEmpty();
  }

  @Test
  void aLockHeldThroughTheWait_exitsBusy_withoutRunningTheCommand() {
    Path marker = dir.resolve("ran");
    try (LockLease held = library.lock("busy").acquire(Duration.ZERO)) {
      Cli run = Cli.run("run", "--uri", uri(), "--wait", "300ms", "busy", "--", "touch", marker.toString());
      assertThat(run.exitCode()).as(run.describe()).isEqualTo(ExitCode.BUSY);
      assertThat(run.stderrLines()).singleElement().asString().contains("'busy'").contains("still held");
      assertThat(marker).doesNotExist();
      assertThat(library.inspect("busy").holder().orElseThrow().fencingToken()).isEqualTo(held.fencingToken());
    }
  }

  @Test
  void aCommandThatCannotBeFound_exits127_andTheLockIsReleased() {
    Cli run = Cli.run("run", "--uri", uri(), "missing", "--", "/no/such/command");
    assertThat(run.exitCode()).isEqualTo(ExitCode.NOT_FOUND);
    assertThat(run.stderrLines()).singleElement().asString().contains("/no/such/command");
    assertThat(library.inspect("missing").isHeld()).isFalse();
    assertThat(library.inspect("missing").lastToken()).as("it was taken, then released").isPositive();
  }

  @Test
  void sigtermAndSigint_arePassedToTheCommand_andRunExitsWithItsCode_releasingTheLock() {
    Cli.assumeSigintIsDelivered();
    for (String signal : List.of("TERM", "INT")) {
      Path file = dir.resolve("signalled-" + signal);
      try (Cli run = Cli.start("run", "--uri", uri(), "passed-on", "--", "sh", "-c",
          readyThenSleep(file, "echo TERM >> " + file + "; exit 5"))) {
        await("the command runs", () -> read(file).contains("ready"));
        run.signal(signal);
        assertThat(run.exitCode()).as(run.describe()).isEqualTo(signal.equals("TERM") ? 5 : 6);
        assertThat(read(file)).isEqualTo("ready\n" + signal + "\n");
        assertThat(library.inspect("passed-on").isHeld()).isFalse();
      }
    }
  }

  @Test
  void aForcedUnlock_stopsTheCommandWithSigterm_andRunExitsLost_sayingWhy() {
    Path file = dir.resolve("lost");
    // A 10-minute lease: the first renewal would come minutes later; the notice of the forced unlock does not wait.
    try (Cli run = Cli.start("run", "--uri", uri(), "--lease", "10m", "taken", "--", "sh", "-c",
        readyThenSleep(file, "echo TERM >> " + file + "; exit 9"))) {
      await("the command runs", () -> read(file).contains("ready"));
      Cli unlock = Cli.run("unlock", "--force", "--yes", "--uri", uri(), "taken");
      assertThat(unlock.exitCode()).as(unlock.describe()).isZero();
      assertThat(unlock.stdout()).startsWith("released lock 'taken', held by client ");

      assertThat(run.exitCode()).as(run.describe()).isEqualTo(ExitCode.LOST);
      assertThat(read(file)).isEqualTo("ready\nTERM\n");
      assertThat(run.stderr()).contains("lost lock 'taken'").contains("SIGTERM");
    }
  }

  @Test
  void aCommandThatIgnoresSigterm_isKilledAfterTheGrace_onceTheLockIsLost() {
    Path file = dir.resolve("stubborn");
    try (Cli run = Cli.start("run", "--uri", uri(), "--lease", "1500ms", "--grace", "500ms", "stubborn", "--", "sh",
        "-c", readyThenSleep(file, ""))) {
      await("the command runs", () -> read(file).contains("ready"));
      long pid = Long.parseLong(read(dir.resolve("stubborn.pid")).trim());
      Cli.run("unlock", "--force", "--yes", "--uri", uri(), "stubborn");

      assertThat(run.exitCode()).as(run.describe()).isEqualTo(ExitCode.LOST);
      assertThat(run.stderr()).contains("SIGKILL");
      await("the command is gone", () -> ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true));
    }
  }

  @Test
  void sigkillOfRun_leavesTheLockToExpireWithinItsLease() {
    Path file = dir.resolve("orphan");
    try (Cli run = Cli.start("run", "--uri", uri(), "--lease", "2s", "orphaned", "--", "sh", "-c",
        readyThenSleep(file, ""))) {
      await("the command runs", () -> read(file).contains("ready"));
      LockInfo held = library.inspect("orphaned");
      assertThat(held.holder().orElseThrow().remainingLease()).isLessThanOrEqualTo(Duration.ofSeconds(2));
      run.signal("KILL");
      await("the lock expires", () -> !library.inspect("orphaned").isHeld());
      try (LockLease next = library.lock("orphaned").acquire(Duration.ZERO)) {
        assertThat(next.fencingToken()).isGreaterThan(held.holder().orElseThrow().fencingToken());
      }
    } finally {
      ProcessHandle.of(Long.parseLong(read(dir.resolve("orphan.pid")).trim())).ifPresent(ProcessHandle::destroyForcibly);
    }
  }

  @Test
  void theRedisPassword_comesFromTheEnvironment_andIsNeverPrinted() {
    try (RedisServer secured = RedisServer.builder().password("s3cret-pw").start()) {
      String bare = "redis://127.0.0.1:" + secured.port();
      Cli ok = Cli.run(Map.of("REDIS_PASSWORD", "s3cret-pw"), "run", "--uri", bare, "pw", "--", "true");
      assertThat(ok.exitCode()).as(ok.describe()).isZero();
      Cli refused = Cli.run(Map.of("REDIS_PASSWORD", "wrong-pw"), "status", "--uri", bare, "pw");
      assertThat(refused.exitCode()).isEqualTo(ExitCode.REDIS);
      assertThat(refused.stderrLines()).singleElement().asString().contains("WRONGPASS").doesNotContain("wrong-pw");
      Cli fromUrl = Cli.run(Map.of("REDIS_URL", secured.uri()), "status", "pw");
      assertThat(fromUrl.exitCode()).as(fromUrl.describe()).isZero();
      assertThat(fromUrl.stdout() + fromUrl.stderr()).doesNotContain("s3cret-pw");
    }
  }
}

package io.relock.cli;

import io.relock.testkit.JvmProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.junit.jupiter.api.Assumptions;

/**
 * The real command line in a child process: the launcher script the build puts next to {@code
 * relock.jar} ({@code target/relock}), with stdout and stderr kept apart in files. Closing it kills
 * the process and every process it started.
 */
final class Cli implements AutoCloseable {
  /** Generous: the machine is shared and slow; never a timing assertion. */
  static final Duration PATIENCE = Duration.ofSeconds(30);

  private static final Path LAUNCHER = Path.of(System.getProperty("relock.cli.launcher", "target/relock"));

  private final Process process;
  private final Path out;
  private final Path err;
  private final String shown;

  private Cli(Process process, Path out, Path err, String shown) {
    this.process = process;
    this.out = out;
    this.err = err;
    this.shown = shown;
  }

  /** Starts {@code relock args...} with the given environment on top of a clean one (no REDIS_* of the caller's). */
  static Cli start(Map<String, String> env, String... args) {
    List<String> command = new ArrayList<>(List.of(LAUNCHER.toAbsolutePath().toString()));
    command.addAll(Arrays.asList(args));
    try {
      Path dir = Files.createTempDirectory("relock-cli-test-");
      Path out = dir.resolve("stdout");
      Path err = dir.resolve("stderr");
      ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile())
          .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
      pb.environment().keySet().removeIf(k -> k.startsWith("REDIS_") || k.startsWith("RELOCK_"));
      pb.environment().putAll(env);
      return new Cli(pb.start(), out, err, String.join(" ", args));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + command, e);
    }
  }

  static Cli start(String... args) {
    return start(Map.of(), args);
  }

  /** Runs {@code relock args...} to its end. */
  static Cli run(Map<String, String> env, String... args) {
    Cli cli = start(env, args);
    cli.exitCode();
    return cli;
  }

  static Cli run(String... args) {
    return run(Map.of(), args);
  }

  long pid() {
    return process.pid();
  }

  /** Waits for the exit, within {@link #PATIENCE}. */
  int exitCode() {
    try {
      if (!process.waitFor(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new AssertionError("relock " + shown + " still running after " + PATIENCE + describe());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
    return process.exitValue();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  String stdout() {
    return read(out);
  }

  List<String> stdoutLines() {
    String text = stdout();
    return text.isEmpty() ? List.of() : List.of(text.split("\n"));
  }

  /** What the command wrote to stderr, without the notices the JVM itself prints first (see {@link JvmProcess#isLauncherNotice}). */
  String stderr() {
    String text = read(err);
    while (!text.isEmpty()) {
      int end = text.indexOf('\n');
      String first = end < 0 ? text : text.substring(0, end);
      if (!JvmProcess.isLauncherNotice(first)) {
        break;
      }
      text = end < 0 ? "" : text.substring(end + 1);
    }
    return text;
  }

  List<String> stderrLines() {
    String text = stderr();
    return text.isEmpty() ? List.of() : List.of(text.split("\n"));
  }

  /** Waits until a line of stdout matches. */
  String awaitStdoutLine(String what, Predicate<String> match) {
    String[] found = new String[1];
    await(what + " on the stdout of relock " + shown, () -> {
      for (String line : stdoutLines()) {
        if (match.test(line)) {
          found[0] = line;
          return true;
        }
      }
      return false;
    });
    return found[0];
  }

  /** Sends a signal with {@code kill}. */
  /**
   * Skips the calling test when this JVM started with SIGINT ignored, as every process started from
   * a non-interactive shell's background job is ({@code ./mvnw verify &} in a script): the CLI and
   * its command inherit that, so a SIGINT sent to them is dropped by the kernel before relock sees
   * it. Read from {@code /proc/self/status}; elsewhere nothing is skipped.
   */
  static void assumeSigintIsDelivered() {
    Path status = Path.of("/proc/self/status");
    if (!Files.isReadable(status)) {
      return;
    }
    try {
      for (String line : Files.readAllLines(status)) {
        if (line.startsWith("SigIgn:")) {
          long ignored = Long.parseUnsignedLong(line.substring("SigIgn:".length()).strip(), 16);
          Assumptions.assumeTrue((ignored & (1L << (2 - 1))) == 0,
              "SIGINT is ignored in this build's processes (started from a background job?), so a SIGINT "
                  + "sent to the CLI never reaches it; run the build in the foreground to test SIGINT");
        }
      }
    } catch (IOException e) {
      // Unknown: run the test.
    }
  }

  void signal(String name) {
    try {
      new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start().waitFor();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  String describe() {
    return "\n--- stdout:\n" + stdout() + "--- stderr:\n" + stderr();
  }

  @Override
  public void close() {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
  }

  private static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Waits for {@code condition}, checking every 20 ms, failing after {@link #PATIENCE}. */
  static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out after " + PATIENCE + " waiting until " + what);
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting until " + what, e);
      }
    }
  }
}

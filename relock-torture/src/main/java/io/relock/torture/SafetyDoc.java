package io.relock.torture;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Writes {@code docs/safety.md}: the prose of {@code safety-template.md} with the measured table,
 * the command, the machine and the summary line filled in. Numbers come from the run, never from
 * the template.
 */
final class SafetyDoc {

  private SafetyDoc() {}

  static Path write(Path docsDir, List<RunResult> results, TortureSettings settings, long seed, String command,
      Duration elapsed, String summary) {
    String text = template()
        .replace("{{COMMAND}}", command)
        .replace("{{SEED}}", Long.toString(seed))
        .replace("{{DATE}}", LocalDate.now(ZoneOffset.UTC).toString())
        .replace("{{MACHINE}}", machine())
        .replace("{{ELAPSED}}", String.format(Locale.ROOT, "%.1f minutes", elapsed.toMillis() / 60000.0))
        .replace("{{SETTINGS}}", settings(settings))
        .replace("{{TABLE}}", String.join("\n", SummaryTable.markdown(results)))
        .replace("{{FAULTS}}", faults(results))
        .replace("{{EXAMPLES}}", examples(results))
        .replace("{{SUMMARY}}", summary)
        .replace("{{FAULT_LIST}}", faultList())
        .replace("{{LONG_HOLD_ONE_IN}}", Integer.toString(settings.longHoldOneIn()))
        .replace("{{COMMIT}}", commit());
    try {
      Files.createDirectories(docsDir);
      Path doc = docsDir.resolve("safety.md");
      Files.writeString(doc, text, StandardCharsets.UTF_8);
      return doc;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + docsDir.resolve("safety.md"), e);
    }
  }

  private static String template() {
    try (InputStream in = SafetyDoc.class.getResourceAsStream("safety-template.md")) {
      if (in == null) {
        throw new IllegalStateException("resource safety-template.md is missing");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read safety-template.md", e);
    }
  }

  private static String machine() {
    String cpu = "unknown CPU";
    try {
      cpu = Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
          .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElse(cpu);
    } catch (IOException | RuntimeException e) {
      // Not Linux, or no /proc: the rest of the line still says enough.
    }
    String redis = io.relock.testkit.RedisServer.binary().toString();
    return String.format(Locale.ROOT, "%d cores (%s), %s %s, Java %s, redis-server %s",
        Runtime.getRuntime().availableProcessors(), cpu, System.getProperty("os.name"),
        System.getProperty("os.arch"), System.getProperty("java.version"), redisVersion(redis));
  }

  private static String redisVersion(String binary) {
    try {
      Process p = new ProcessBuilder(binary, "--version").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      p.waitFor();
      int v = out.indexOf("v=");
      return v < 0 ? binary : out.substring(v + 2, out.indexOf(' ', v));
    } catch (IOException e) {
      return binary;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return binary;
    }
  }

  private static String settings(TortureSettings s) {
    return String.format(Locale.ROOT,
        "%d worker processes x %d threads, locks %s, lease %d ms (watchdog-renewed; one hold in four uses a"
            + " fixed lease of the same length), command timeout %d ms, recheck interval %d ms, acquire wait %d ms,"
            + " %d-%d ms between a critical section's read and write (one watchdog-renewed hold in %d: %d-%d ms),"
            + " %d s per single-fault run, %d s per combined run (%d). Stuck-lock limit: lease + %d ms = %d ms.",
        s.processes(), s.threads(), s.locks(), s.lease().toMillis(), s.commandTimeout().toMillis(),
        s.recheckInterval().toMillis(), s.acquireWait().toMillis(), s.holdMin().toMillis(), s.holdMax().toMillis(),
        s.longHoldOneIn(), s.lease().toMillis(), s.longHoldMax().toMillis(), s.runLength().toSeconds(), s.combinedLength().toSeconds(), s.combinedRuns(), s.stuckBound().toMillis(),
        s.lease().plus(s.stuckBound()).toMillis());
  }

  private static String faultList() {
    List<String> lines = new ArrayList<>();
    for (Fault f : Fault.values()) {
      if (f != Fault.BLACKHOLE_RESUME) {
        lines.add("- `" + f.id + "`: " + f.description);
      }
    }
    return String.join("\n", lines);
  }

  /** The commit the run was built from, and whether relock's own modules had local changes. */
  private static String commit() {
    String head = git("rev-parse", "--short", "HEAD");
    if (head.isEmpty()) {
      return "(commit unknown)";
    }
    String dirty = git("status", "--porcelain", "--", "relock-core", "relock-lettuce", "relock-testkit");
    return "at commit " + head + (dirty.isEmpty() ? "" : " with local changes to relock-core, -lettuce or -testkit");
  }

  private static String git(String... args) {
    List<String> command = new ArrayList<>(List.of("git"));
    command.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      return p.waitFor() == 0 ? out : "";
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }

  private static String faults(List<RunResult> results) {
    List<String> lines = new ArrayList<>();
    for (RunResult r : results) {
      lines.add("- **" + r.run() + "** (" + r.fault().description + "): "
          + (r.faultsDone().isEmpty() ? "no faults" : String.join("; ", r.faultsDone())));
    }
    return String.join("\n", lines);
  }

  private static String examples(List<RunResult> results) {
    List<String> lines = new ArrayList<>();
    for (RunResult r : results) {
      List<String> ex = r.examples();
      for (int i = 0; i < Math.min(2, ex.size()); i++) {
        lines.add("- " + r.run() + ": " + ex.get(i));
      }
    }
    return lines.isEmpty() ? "- (nothing to show)" : String.join("\n", lines);
  }
}

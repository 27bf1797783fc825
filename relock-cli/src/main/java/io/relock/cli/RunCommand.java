package io.relock.cli;

import io.relock.LockLease;
import io.relock.LockLostException;
import io.relock.LockTimeoutException;
import io.relock.Relock;
import io.relock.RelockException;
import io.relock.RelockListener;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code relock run NAME -- COMMAND...}: takes the lock, runs the command under it while the
 * watchdog renews the lease, releases it when the command exits, and exits with the command's
 * code. SIGINT and SIGTERM are passed on to the command; a lease lost meanwhile stops it.
 */
@Command(name = "run", mixinStandardHelpOptions = true, versionProvider = RelockCli.Version.class, sortOptions = false, usageHelpAutoWidth = true,
    customSynopsis = "relock run [--wait DURATION] [--lease DURATION] [--grace DURATION] [-v] [REDIS OPTIONS] NAME [--] COMMAND [ARGS...]",
    description = {"Runs COMMAND while holding the lock NAME, and exits with its exit code.",
        "",
        "Waits for the lock up to --wait (default: as long as it takes), then starts COMMAND with RELOCK_NAME and"
            + " RELOCK_FENCING_TOKEN in its environment. The lease (--lease) is renewed every third of it while"
            + " COMMAND runs, and the lock is released when it exits. SIGINT and SIGTERM sent to relock are passed"
            + " on to COMMAND (a terminal's Ctrl-C reaches both). If the lock is lost while COMMAND runs (Redis"
            + " unreachable for longer than the lease, or a forced unlock), COMMAND gets SIGTERM, then SIGKILL"
            + " (with its child processes) after --grace, and relock exits with " + ExitCode.LOST + ". Killed with"
            + " SIGKILL itself, relock cannot tell COMMAND: the lock is freed when its lease runs out.",
        ""},
    footer = {"", "Examples:",
        "  relock run --wait 0 nightly-report -- ./report.sh --since yesterday",
        "      one host of many runs it; the others exit with " + ExitCode.BUSY + " at once",
        "  relock run --wait 10m --lease 1m db-migration -- ./migrate.sh",
        "  REDIS_URL=rediss://redis.internal:6380 REDIS_PASSWORD=... relock run deploy -- make deploy",
        ""})
final class RunCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--wait", paramLabel = "DURATION", converter = Durations.Converter.class,
      description = "How long to wait for the lock: 0 for one attempt (default: no limit). Still held then: exit "
          + ExitCode.BUSY + ", COMMAND not run.")
  Duration wait;

  @Option(names = "--lease", paramLabel = "DURATION", defaultValue = "30s", converter = Durations.Converter.class,
      description = "How long Redis keeps the lock without a renewal; it is renewed every third of it. Also how long"
          + " the lock stays taken after relock was killed with SIGKILL (default: ${DEFAULT-VALUE}).")
  Duration lease;

  @Option(names = "--grace", paramLabel = "DURATION", defaultValue = "10s", converter = Durations.Converter.class,
      description = "After the lock is lost: how long COMMAND has to exit after SIGTERM before it gets SIGKILL"
          + " (default: ${DEFAULT-VALUE}).")
  Duration grace;

  @Option(names = {"-v", "--verbose"}, description = "Say on stderr when the lock was taken and released, and log"
      + " relock's own messages from INFO up.")
  boolean verbose;

  @Mixin
  RedisOptions redis;

  @Parameters(index = "0", paramLabel = "NAME", description = "The lock's name.")
  String name;

  @Parameters(index = "1..*", paramLabel = "COMMAND", arity = "1..*",
      description = "The command and its arguments; put -- before it when it has options of its own.")
  List<String> command;

  private final PrintStream err = System.err;
  /** The command, once started: signals go to it from then on. */
  private volatile Process child;
  /** A signal that came before the command started: relock gives up instead of starting it. */
  private volatile String signalledEarly;
  private final AtomicReference<String> lostReason = new AtomicReference<>();

  @Override
  public Integer call() {
    LockNames.check(spec, name);
    if (verbose) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "info");
    }
    Relock.Builder builder = redis.builder();
    if (lease.compareTo(Duration.ofMillis(1)) < 0) {
      throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--lease must be at least 1ms, was "
          + Durations.human(lease));
    }
    builder.defaultLease(lease);
    Thread main = Thread.currentThread();
    Signals.handle(signal -> {
      Process p = child;
      if (p != null) {
        Signals.send(p.pid(), signal);
      } else if (signalledEarly == null) {
        signalledEarly = signal;
        main.interrupt();
      }
    });
    try (Relock relock = builder.build()) {
      relock.addListener(new RelockListener() {
        @Override
        public void leaseLost(String lockName, String reason) {
          lostReason.compareAndSet(null, reason);
        }
      });
      LockLease held = acquire(relock);
      if (held == null) {
        return signalledEarly != null ? Signals.exitCodeOf(signalledEarly) : ExitCode.BUSY;
      }
      return runHolding(held);
    }
  }

  /** The lease, or null if the wait ran out or a signal came first (each reported on stderr). */
  private LockLease acquire(Relock relock) {
    long began = System.nanoTime();
    try {
      LockLease held = relock.lock(name).acquire(wait == null ? ChronoUnit.FOREVER.getDuration() : wait);
      if (signalledEarly != null || Thread.interrupted()) {
        held.close();
        err.println("relock run: SIG" + signalledEarly + " while waiting for lock '" + name + "'; not run");
        return null;
      }
      if (verbose) {
        err.println("relock run: took lock '" + name + "' (token " + held.fencingToken() + ", client "
            + relock.clientId() + ") after " + Durations.human(Duration.ofNanos(System.nanoTime() - began)));
      }
      return held;
    } catch (LockTimeoutException e) {
      err.println("relock run: lock '" + name + "' is still held by another owner after waiting "
          + Durations.human(wait) + "; not run");
      return null;
    } catch (RelockException e) {
      if (signalledEarly != null) {
        err.println("relock run: SIG" + signalledEarly + " while waiting for lock '" + name + "'; not run");
        return null;
      }
      throw e;
    }
  }

  private int runHolding(LockLease held) {
    AtomicBoolean lost = new AtomicBoolean();
    ProcessBuilder pb = new ProcessBuilder(command).inheritIO();
    pb.environment().put("RELOCK_NAME", name);
    pb.environment().put("RELOCK_FENCING_TOKEN", Long.toString(held.fencingToken()));
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      release(held);
      // "Cannot run program "x": error=2, No such file or directory"
      java.util.regex.Matcher m = java.util.regex.Pattern.compile("error=(\\d+), (.*)").matcher(String.valueOf(e.getMessage()));
      boolean found = m.find();
      err.println("relock run: cannot run '" + command.get(0) + "': " + (found ? m.group(2) : e.getMessage()));
      return found && m.group(1).equals("2") ? ExitCode.NOT_FOUND : ExitCode.CANNOT_RUN;
    }
    child = p;
    if (signalledEarly != null) {
      Signals.send(p.pid(), signalledEarly); // came while it was being started
    }
    held.onLost(() -> {
      lost.set(true);
      Thread stopper = new Thread(() -> stop(p), "relock-stop-command");
      stopper.setDaemon(true);
      stopper.start();
    });
    int code = waitFor(p);
    try {
      held.close();
    } catch (LockLostException e) {
      if (lost.compareAndSet(false, true)) {
        lostReason.compareAndSet(null, e.getMessage());
        err.println("relock run: lost lock '" + name + "' before the command exited: "
            + RedisOptions.redact(lostReason.get()));
      }
    } catch (RelockException e) {
      err.println("relock run: could not confirm the release of lock '" + name + "' ("
          + RedisOptions.redact(e.getMessage())
          + "); Redis frees it within its lease");
    }
    if (verbose && !lost.get()) {
      err.println("relock run: released lock '" + name + "'; the command exited with " + code);
    }
    return lost.get() ? ExitCode.LOST : code;
  }

  /** The lock was lost: SIGTERM, then SIGKILL to the command and its descendants after the grace. */
  private void stop(Process p) {
    String reason = lostReason.get() != null ? lostReason.get() : "its lease was not renewed in time";
    if (!p.isAlive()) {
      return;
    }
    err.println("relock run: lost lock '" + name + "': " + RedisOptions.redact(reason)
        + "; sending SIGTERM to the command (pid "
        + p.pid() + ")");
    p.destroy();
    try {
      if (!p.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        err.println("relock run: the command did not exit within " + Durations.human(grace)
            + " of SIGTERM; sending SIGKILL to it and its child processes");
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The command's exit code, waiting through interrupts (signals are passed on to it meanwhile). */
  private static int waitFor(Process p) {
    while (true) {
      try {
        return p.waitFor();
      } catch (InterruptedException e) {
        // a signal that arrived while the command was starting; keep waiting for it
      }
    }
  }

  private void release(LockLease held) {
    try {
      held.close();
    } catch (RelockException e) {
      err.println("relock run: could not release lock '" + name + "' (" + RedisOptions.redact(e.getMessage())
          + "); Redis frees it within its lease");
    }
  }
}

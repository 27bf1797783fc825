package io.relock.cli;

import io.relock.RelockException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code relock} command: {@code run}, {@code status}, {@code list}, {@code unlock}, {@code
 * watch}. Errors are one line on stderr, {@code relock <command>: <what went wrong>}, with the
 * exit codes of {@link ExitCode}.
 */
@Command(name = "relock", mixinStandardHelpOptions = true, usageHelpAutoWidth = true,
    versionProvider = RelockCli.Version.class,
    subcommands = {RunCommand.class, StatusCommand.class, ListCommand.class, UnlockCommand.class, WatchCommand.class,
        CommandLine.HelpCommand.class},
    description = {"Distributed locks in Redis for scripts and operators: run a command under a lock, see who holds"
        + " a lock and who waits, release a stuck one.", "",
        "Redis: --uri, else REDIS_URL, else redis://localhost:6379 (or --sentinel with --master, --cluster,"
            + " --redlock). Password: in the URI, else REDIS_PASSWORD, else --askpass prompts for it."
            + " Durations: 500ms, 10s, 5m, 1h, 1m30s.", ""},
    footer = {"", "Examples:",
        "  relock run --wait 0 nightly-report -- ./report.sh",
        "  relock status nightly-report",
        "  relock list --match 'orders:*'",
        "  relock unlock --force nightly-report",
        "  relock watch nightly-report",
        "", "relock <command> --help shows each command's options.", ""})
public final class RelockCli implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  /** Without a command: the usage, as an error. */
  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "give a command: run, status, list, unlock or watch");
  }

  public static void main(String[] args) {
    System.exit(execute(args));
  }

  /** Runs {@code relock args...} and returns its exit code. */
  static int execute(String... args) {
    CommandLine cli = new CommandLine(new RelockCli());
    List<String> footer = new ArrayList<>(List.of(cli.getCommandSpec().usageMessage().footer()));
    footer.addAll(List.of(ExitCode.HELP));
    cli.getCommandSpec().usageMessage().footer(footer.toArray(new String[0]));
    List<String> runFooter = new ArrayList<>(List.of(cli.getSubcommands().get("run").getCommandSpec().usageMessage().footer()));
    runFooter.addAll(List.of(ExitCode.HELP));
    cli.getSubcommands().get("run").getCommandSpec().usageMessage().footer(runFooter.toArray(new String[0]));
    cli.setParameterExceptionHandler((e, given) -> {
      usageError(e.getCommandLine(), e.getMessage());
      return ExitCode.USAGE;
    });
    cli.setExecutionExceptionHandler((e, commandLine, parsed) -> {
      if (e instanceof CommandLine.ParameterException p) {
        usageError(p.getCommandLine(), p.getMessage());
        return ExitCode.USAGE;
      }
      if (e instanceof IllegalArgumentException) {
        usageError(commandLine, e.getMessage());
        return ExitCode.USAGE;
      }
      if (e instanceof RelockException) {
        System.err.println(prefix(commandLine) + RedisOptions.redact(oneLine(e)));
        return ExitCode.REDIS;
      }
      throw e;
    });
    return cli.execute(args);
  }

  private static void usageError(CommandLine where, String message) {
    PrintWriter err = where.getErr();
    err.println(prefix(where) + RedisOptions.redact(message) + " (" + where.getCommandSpec().qualifiedName()
        + " --help shows usage)");
    err.flush();
  }

  private static String prefix(CommandLine where) {
    return where.getCommandSpec().qualifiedName() + ": ";
  }

  /** The message and, when it does not already say so, why: the causes' messages, on one line. */
  static String oneLine(Throwable e) {
    StringBuilder text = new StringBuilder(String.valueOf(e.getMessage()));
    for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
      String m = c.getMessage();
      // A wrapper's message is often "some.Exception: <the cause's message>".
      String bare = m == null ? null : m.replaceFirst("^[\\w.$]+(Exception|Error): ", "");
      if (bare != null && !text.toString().contains(bare)) {
        text.append(": ").append(m);
      }
    }
    return text.toString().replaceAll("\\s*\\R\\s*", " ");
  }

  /** The version from the jar's manifest. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = RelockCli.class.getPackage().getImplementationVersion();
      return new String[] {"relock " + (v == null ? "(development build)" : v)};
    }
  }
}

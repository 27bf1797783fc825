package io.relock.cli;

import io.relock.LockInfo;
import io.relock.Relock;
import java.io.Console;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code relock unlock --force NAME}: frees a lock whoever holds it, after asking. */
@Command(name = "unlock", mixinStandardHelpOptions = true, versionProvider = RelockCli.Version.class, sortOptions = false, usageHelpAutoWidth = true,
    customSynopsis = "relock unlock --force [--yes] [--json] [REDIS OPTIONS] NAME",
    description = {"Releases the lock NAME whoever holds it (--force).", "",
        "Hands it to its next waiter: for a lock whose holder is stuck. Shows the holder and asks for confirmation on the terminal, unless --yes; then prints"
        + " what it released. The holder's client is told at once, its next renewal being the fallback (a relock run"
        + " holding it stops its command and"
        + " exits with " + ExitCode.LOST + ").", ""},
    footer = {"", "Examples:",
        "  relock unlock --force nightly-report",
        "  relock unlock --force --yes --json nightly-report", ""})
final class UnlockCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--force", required = true, description = "Required: the lock is taken from a holder that still"
      + " believes it holds it.")
  boolean force;

  @Option(names = {"-y", "--yes"}, description = "Do not ask for confirmation.")
  boolean yes;

  @Option(names = "--json", description = "Print {\"name\":..,\"released\":true|false,\"holder\":{..}|null} instead"
      + " of text.")
  boolean json;

  @Mixin
  RedisOptions redis;

  @Parameters(index = "0", paramLabel = "NAME", description = "The lock's name.")
  String name;

  @Override
  public Integer call() {
    LockNames.check(spec, name);
    Console console = yes ? null : Terminal.interactive();
    if (!yes && console == null) {
      throw new CommandLine.ParameterException(spec.commandLine(),
          "unlock --force asks for confirmation on a terminal, and there is none; add --yes to release without asking");
    }
    Relock.Builder builder = redis.builder();
    try (Relock relock = builder.build()) {
      LockInfo before = relock.inspect(name);
      if (before.holder().isEmpty()) {
        return report(false, null, "lock '" + name + "' is not held; nothing to release");
      }
      LockInfo.Holder holder = before.holder().get();
      if (console != null) {
        LockText.status(before).forEach(console.writer()::println);
        String answer = console.readLine("Release lock '%s' from its holder? [y/N] ", name);
        if (answer == null || !answer.trim().toLowerCase(Locale.ROOT).matches("y|yes")) {
          System.err.println("relock unlock: not released");
          return ExitCode.NOT_DONE;
        }
        LockInfo.Holder now = relock.inspect(name).holder().orElse(null);
        if (now == null || !sameHold(now, holder)) {
          System.err.println("relock unlock: lock '" + name + "' changed hands while you were asked; nothing released"
              + " (run relock status " + name + ")");
          return ExitCode.NOT_DONE;
        }
      }
      if (!relock.lock(name).forceUnlock()) {
        return report(false, null, "lock '" + name + "' was released by its holder first; nothing to release");
      }
      return report(true, holder, "released lock '" + name + "', held by client " + holder.clientId() + " (owner "
          + holder.ownerId() + ", token " + holder.fencingToken() + ")");
    }
  }

  private int report(boolean released, LockInfo.Holder holder, String text) {
    if (json) {
      try (LockJson out = new LockJson(System.out)) {
        out.released(name, released, holder);
      }
    } else {
      System.out.println(text);
    }
    return 0;
  }

  /** The same hold: same owner and token (a re-entry changes neither). */
  static boolean sameHold(LockInfo.Holder a, LockInfo.Holder b) {
    return Objects.equals(a.ownerId(), b.ownerId()) && a.fencingToken() == b.fencingToken();
  }
}

package io.relock.cli;

import io.relock.LockInfo;
import io.relock.Relock;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code relock status NAME}: who holds the lock, its token and lease, and who waits. */
@Command(name = "status", mixinStandardHelpOptions = true, versionProvider = RelockCli.Version.class, sortOptions = false, usageHelpAutoWidth = true,
    customSynopsis = "relock status [--json] [REDIS OPTIONS] NAME",
    description = {"Shows who holds the lock NAME and who waits for it.", "",
        "Free or held; the holder's client and owner ids, remaining lease, fencing token and hold count; the last"
            + " token issued; the waiters in the order they will get the lock.", ""},
    footer = {"", "Examples:",
        "  relock status nightly-report",
        "  relock status --json nightly-report | jq .holder.client",
        "  relock status --cluster redis://10.0.0.1:7000 --prefix app:locks: orders:42", ""})
final class StatusCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--json", description = "One JSON object (see relock-cli/README.md) instead of text.")
  boolean json;

  @Mixin
  RedisOptions redis;

  @Parameters(index = "0", paramLabel = "NAME", description = "The lock's name.")
  String name;

  @Override
  public Integer call() {
    LockNames.check(spec, name);
    Relock.Builder builder = redis.builder();
    try (Relock relock = builder.build()) {
      LockInfo info = relock.inspect(name);
      if (json) {
        try (LockJson out = new LockJson(System.out)) {
          out.line(info, null);
        }
      } else {
        LockText.status(info).forEach(System.out::println);
      }
    }
    return 0;
  }
}

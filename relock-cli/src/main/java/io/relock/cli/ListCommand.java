package io.relock.cli;

import io.relock.LockInfo;
import io.relock.Relock;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code relock list}: the held locks, paged through SCAN. */
@Command(name = "list", mixinStandardHelpOptions = true, versionProvider = RelockCli.Version.class, sortOptions = false, usageHelpAutoWidth = true,
    customSynopsis = "relock list [--match PATTERN] [--json] [REDIS OPTIONS]",
    description = {"Lists the locks held now.", "",
        "Sorted by name, with their holder's client, remaining lease, fencing token, hold count and number of"
            + " waiters. Redis is read in short SCAN pages (never KEYS), on every primary of a cluster.", ""},
    footer = {"", "Examples:",
        "  relock list",
        "  relock list --match 'orders:*'",
        "  relock list --json | jq -r '.[].name'", ""})
final class ListCommand implements Callable<Integer> {
  @Option(names = "--match", paramLabel = "PATTERN", defaultValue = "*",
      description = "Only lock names matching this glob: * any characters, ? one, [a-z] one of a set, \\ before a"
          + " character to take it literally (default: ${DEFAULT-VALUE}).")
  String match;

  @Option(names = "--json", description = "One JSON array of lock objects (see relock-cli/README.md) instead of a"
      + " table.")
  boolean json;

  @Mixin
  RedisOptions redis;

  @Override
  public Integer call() {
    Relock.Builder builder = redis.builder();
    try (Relock relock = builder.build()) {
      List<LockInfo> held = relock.list(match);
      if (json) {
        try (LockJson out = new LockJson(System.out)) {
          out.array(held);
        }
      } else if (held.isEmpty()) {
        System.out.println("no held locks" + ("*".equals(match) ? "" : " match '" + match + "'"));
      } else {
        LockText.table(held).forEach(System.out::println);
      }
    }
    return 0;
  }
}

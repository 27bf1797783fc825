package io.relock.cli;

import java.nio.charset.StandardCharsets;
import picocli.CommandLine;

/**
 * The lock name argument, checked before Redis is contacted. The library checks names again
 * ({@link io.relock.Relock#lock}); this check only lets a bad name fail without a connection.
 */
final class LockNames {
  /** As the library's limit. */
  private static final int MAX_BYTES = 1024;

  private LockNames() {}

  static String check(CommandLine.Model.CommandSpec spec, String name) {
    if (name.isBlank()) {
      throw new CommandLine.ParameterException(spec.commandLine(), "lock name must not be empty or blank: '" + name + "'");
    }
    int bytes = name.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_BYTES) {
      throw new CommandLine.ParameterException(spec.commandLine(), "lock name is " + bytes
          + " UTF-8 bytes, over the limit of " + MAX_BYTES + ": '" + name.substring(0, 40) + "...'");
    }
    return name;
  }
}

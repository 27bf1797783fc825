package io.relock.internal;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Says which permission a Redis user lacks when Redis refuses one of relock's scripts for its ACL.
 * Redis names the script's line but not always the command (Redis 7.0: "The user executing the
 * script can't run this command or subcommand script: ..., on @user_script:57."), and relock
 * knows the script's text, so the command called on that line can be named without any
 * privilege to read the user's ACL.
 */
final class PermissionDenial {
  private static final Pattern LINE = Pattern.compile("@user_script:\\s*(\\d+)");
  /** How Redis names a command outside scripts: "... to run the 'evalsha' command". */
  private static final Pattern QUOTED = Pattern.compile("'([a-z_]+(?:\\|[a-z_-]+)?)' command");
  private static final Pattern CALL = Pattern.compile("redis\\.call\\('([A-Za-z]+)'");

  private PermissionDenial() {}

  /** Whether {@code message}, an error reply, is Redis refusing a command or key for the user's ACL. */
  static boolean isDenial(String message) {
    String m = message.toLowerCase(Locale.ROOT);
    return m.startsWith("noperm") || m.contains("user executing the script can't") || m.contains("acl failure")
        || m.contains("no permissions to");
  }

  /**
   * What to add to the message of an error reply to {@code script}: what Redis refused, and the
   * rule relock needs; "" if the reply is not about permissions.
   */
  static String explain(LuaScript script, String message) {
    if (message == null || !isDenial(message)) {
      return "";
    }
    String m = message.toLowerCase(Locale.ROOT);
    String inScript = commandAt(script, message);
    Matcher quoted = QUOTED.matcher(message);
    String refused;
    if (inScript != null) {
      String call = inScript + " in " + script;
      refused = m.contains("channel") ? "the channel of " + call : m.contains("key") ? "the key of " + call : call;
    } else if (quoted.find()) {
      refused = quoted.group(1).toUpperCase(Locale.ROOT);
    } else if (m.contains("channel")) {
      refused = "the channels " + script + " uses";
    } else if (m.contains("key")) {
      refused = "the keys " + script + " is called with";
    } else {
      refused = "a command of " + script;
    }
    return " (the Redis user's ACL does not allow " + refused
        + "; relock's least-privilege rule is io.relock.RedisAcl.rule(keyPrefix))";
  }

  /** The command called on the script line the message names, in capitals; null if unknown. */
  static String commandAt(LuaScript script, String message) {
    Matcher line = LINE.matcher(message);
    if (!line.find()) {
      return null;
    }
    String[] lines = script.source().split("\n", -1);
    int n = Integer.parseInt(line.group(1));
    if (n < 1 || n > lines.length) {
      return null;
    }
    Matcher call = CALL.matcher(lines[n - 1]);
    return call.find() ? call.group(1).toUpperCase(Locale.ROOT) : null;
  }
}

package io.relock.cli;

import io.relock.Relock;
import io.relock.spi.RedisUri;
import java.io.Console;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * Where Redis is and how to log in, shared by every command: {@code --uri} (or {@code REDIS_URL}),
 * {@code --sentinel}, {@code --cluster} or {@code --redlock}, mapped onto {@link Relock#builder()}.
 * The password comes from the URI, {@code REDIS_PASSWORD}, or a prompt that does not echo.
 */
final class RedisOptions {
  static final String DEFAULT_URI = "redis://localhost:6379";

  @CommandLine.Spec(CommandLine.Spec.Target.MIXEE)
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--uri", paramLabel = "URI", description = "REDIS OPTIONS: one Redis (redis://[user:password@]host:port[/db],"
      + " rediss:// for TLS), or a primary behind Sentinel (redis-sentinel://host:26379,host2:26379#master)."
      + " Default: REDIS_URL, else " + DEFAULT_URI + ".")
  String uri;

  @Option(names = "--sentinel", split = ",", paramLabel = "URI", description = "The sentinels of a primary,"
      + " redis://host:26379,... ; with --master.")
  List<String> sentinels;

  @Option(names = "--master", paramLabel = "NAME", description = "The primary's name at the sentinels (--sentinel).")
  String master;

  @Option(names = "--cluster", split = ",", paramLabel = "URI", description = "Seed nodes of a Redis Cluster,"
      + " redis://host:7000,... ; the others are found.")
  List<String> cluster;

  @Option(names = "--redlock", split = ",", paramLabel = "URI", description = "Independent Redis masters, an odd"
      + " number of at least three, for the Redlock algorithm.")
  List<String> redlock;

  @Option(names = "--user", paramLabel = "NAME", description = "ACL user for URIs that name none (default: REDIS_USER,"
      + " else the default user).")
  String user;

  @Option(names = "--askpass", description = "Ask for the password on the terminal (not echoed), for URIs that"
      + " carry none; without it the password comes from REDIS_PASSWORD, if set.")
  boolean askPassword;

  @Option(names = "--prefix", paramLabel = "PREFIX", defaultValue = "relock:",
      description = "Key prefix of the locks, as the applications set it (default: ${DEFAULT-VALUE}).")
  String prefix;

  @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "3s", converter = Durations.Converter.class,
      description = "How long connecting and each Redis call may take (default: ${DEFAULT-VALUE}).")
  Duration timeout;

  /** Environment variables, replaceable in tests of this class. */
  Map<String, String> environment = System.getenv();

  /**
   * A builder with every option applied. Checks everything that can be checked without Redis.
   *
   * @throws CommandLine.ParameterException for conflicting or bad options; the message names them
   */
  Relock.Builder builder() {
    int given = (uri != null ? 1 : 0) + (sentinels != null ? 1 : 0) + (cluster != null ? 1 : 0) + (redlock != null ? 1 : 0);
    if (given > 1) {
      throw usage("give one of --uri, --sentinel, --cluster and --redlock, not several");
    }
    if (sentinels != null && master == null) {
      throw usage("--sentinel needs --master, the name the sentinels know the primary by");
    }
    if (master != null && sentinels == null) {
      throw usage("--master goes with --sentinel");
    }
    String password = password();
    String login = user != null ? user : environment.getOrDefault("REDIS_USER", "");
    Relock.Builder b = Relock.builder();
    option("--prefix", () -> b.keyPrefix(prefix));
    option("--timeout", () -> b.commandTimeout(timeout).connectTimeout(timeout));
    if (sentinels != null) {
      option("--sentinel", () -> b.sentinel(master, withCredentials(remembered(sentinels), login, password)));
    } else if (cluster != null) {
      option("--cluster", () -> b.cluster(withCredentials(remembered(cluster), login, password)));
    } else if (redlock != null) {
      option("--redlock", () -> b.redlock(withCredentials(remembered(redlock), login, password)));
    } else {
      String target = uri != null ? uri : environment.getOrDefault("REDIS_URL", "");
      String from = uri != null ? "--uri" : target.isBlank() ? "the default URI" : "REDIS_URL";
      String chosen = target.isBlank() ? DEFAULT_URI : target;
      remembered(List.of(chosen));
      option(from, () -> b.uri(withCredentials(chosen, login, password)));
    }
    return b;
  }

  /** Applies one option to the builder; a value it rejects is a usage error naming the option. */
  private void option(String name, Runnable apply) {
    try {
      apply.run();
    } catch (IllegalArgumentException e) {
      throw usage(name + ": " + e.getMessage());
    }
  }

  private String[] withCredentials(List<String> uris, String login, String password) {
    List<String> out = new ArrayList<>();
    for (String u : uris) {
      out.add(withCredentials(u.trim(), login, password));
    }
    return out.toArray(new String[0]);
  }

  /** {@code uri} with {@code login:password@} added when it carries no credentials of its own. */
  static String withCredentials(String uri, String login, String password) {
    int scheme = uri.indexOf("://");
    if (password == null || scheme < 0) {
      return uri;
    }
    String rest = uri.substring(scheme + 3);
    int hostEnd = rest.length();
    for (char c : new char[] {'/', '?', '#'}) {
      int i = rest.indexOf(c);
      if (i >= 0) {
        hostEnd = Math.min(hostEnd, i);
      }
    }
    if (rest.substring(0, hostEnd).contains("@")) {
      return uri;
    }
    return uri.substring(0, scheme + 3) + RedisUri.encode(login) + ":" + RedisUri.encode(password) + "@" + rest;
  }

  private String password() {
    if (askPassword) {
      Console console = Terminal.interactive();
      if (console == null) {
        throw usage("--askpass needs a terminal to ask on; set REDIS_PASSWORD instead");
      }
      char[] typed = console.readPassword("Redis password: ");
      if (typed == null) {
        throw usage("no password given");
      }
      String given = new String(typed);
      GIVEN_PASSWORDS.add(given);
      return given;
    }
    String fromEnv = environment.get("REDIS_PASSWORD");
    if (fromEnv == null || fromEnv.isEmpty()) {
      return null;
    }
    GIVEN_PASSWORDS.add(fromEnv);
    return fromEnv;
  }

  /**
   * The passwords this process was given apart from a URI (REDIS_PASSWORD, the prompt), and those
   * in its URIs (--uri, REDIS_URL, ...): what {@link #redact} hides besides what looks like a
   * URI's password.
   */
  private static final List<String> GIVEN_PASSWORDS = new java.util.concurrent.CopyOnWriteArrayList<>();

  /** {@code text}, for the terminal: every URI's password and every password this process was given hidden. */
  static String redact(String text) {
    return RedisUri.redact(text, GIVEN_PASSWORDS);
  }

  /** Remembers the password of each of {@code uris} for {@link #redact}; returns them. */
  private static List<String> remembered(List<String> uris) {
    uris.forEach(u -> GIVEN_PASSWORDS.add(RedisUri.passwordIn(u)));
    return uris;
  }

  private CommandLine.ParameterException usage(String message) {
    return new CommandLine.ParameterException(spec.commandLine(), message);
  }
}

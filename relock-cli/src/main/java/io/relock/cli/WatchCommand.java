package io.relock.cli;

import io.relock.LockInfo;
import io.relock.Relock;
import io.relock.RelockException;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code relock watch NAME}: a line per change of holder or queue, until interrupted.
 *
 * <p>It polls {@link Relock#inspect} rather than listening to keyspace notifications: those are off
 * by default ({@code notify-keyspace-events}), turning them on takes {@code CONFIG SET}, which
 * managed services and least-privilege users do not have, and they would need a pub/sub pattern
 * subscription outside relock's channels. One read-only script call per interval (default 500
 * ms) costs Redis next to nothing and works on every topology; a change that is undone within one
 * interval can go unseen.
 */
@Command(name = "watch", mixinStandardHelpOptions = true, versionProvider = RelockCli.Version.class, sortOptions = false, usageHelpAutoWidth = true,
    customSynopsis = "relock watch [--interval DURATION] [--json] [REDIS OPTIONS] NAME",
    description = {"Shows the lock NAME and each change of its holder or waiters.", "",
        "A line for the lock as it is now, then one each time its holder, token or waiters change, until"
            + " interrupted (Ctrl-C). Reads the lock every --interval; a change undone within one interval may"
        + " not show.", ""},
    footer = {"", "Examples:",
        "  relock watch nightly-report",
        "  relock watch --json --interval 200ms deploy >> deploy-lock.log", ""})
final class WatchCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--interval", paramLabel = "DURATION", defaultValue = "500ms", converter = Durations.Converter.class,
      description = "How often to read the lock (default: ${DEFAULT-VALUE}; at least 10ms).")
  Duration interval;

  @Option(names = "--json", description = "One JSON object per line, with a \"time\" field, instead of text.")
  boolean json;

  @Mixin
  RedisOptions redis;

  @Parameters(index = "0", paramLabel = "NAME", description = "The lock's name.")
  String name;

  private volatile boolean stopped;

  @Override
  public Integer call() {
    LockNames.check(spec, name);
    if (interval.compareTo(Duration.ofMillis(10)) < 0) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--interval must be at least 10ms, was "
          + Durations.human(interval));
    }
    Relock.Builder builder = redis.builder();
    Thread main = Thread.currentThread();
    Signals.handle(signal -> {
      stopped = true;
      main.interrupt();
    });
    try (Relock relock = builder.build(); LockJson out = json ? new LockJson(System.out) : null) {
      LockInfo last = null;
      boolean failing = false;
      while (!stopped) {
        try {
          LockInfo now = relock.inspect(name);
          if (failing) {
            System.err.println("relock watch: Redis answers again");
            failing = false;
          }
          if (last == null || changed(last, now)) {
            Instant at = Instant.now();
            if (out != null) {
              out.line(now, at);
            } else {
              System.out.println(LockText.change(now, at));
              System.out.flush();
            }
            last = now;
          }
        } catch (RelockException e) {
          if (stopped) {
            break;
          }
          if (!failing) {
            System.err.println("relock watch: " + RedisOptions.redact(e.getMessage()) + " (still trying)");
            failing = true;
          }
        }
        try {
          Thread.sleep(interval.toMillis());
        } catch (InterruptedException e) {
          break;
        }
      }
    }
    return 0;
  }

  /** Whether a person would call it a change: holder, token, count or waiters; not the lease ticking down. */
  static boolean changed(LockInfo before, LockInfo now) {
    LockInfo.Holder a = before.holder().orElse(null);
    LockInfo.Holder b = now.holder().orElse(null);
    boolean sameHolder = a == null ? b == null
        : b != null && a.ownerId().equals(b.ownerId()) && a.fencingToken() == b.fencingToken()
            && a.holdCount() == b.holdCount();
    return !sameHolder || !Objects.equals(before.waiters(), now.waiters())
        || (b == null && before.lastToken() != now.lastToken());
  }
}

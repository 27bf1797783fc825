package io.relock.jedis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * The primary that a group of sentinels knows by a name, asked for afresh each time the driver
 * opens a connection ({@code SENTINEL GET-MASTER-ADDR-BY-NAME}; the first sentinel that answers,
 * in the order given, decides), so that connections opened after a failover go to the new primary.
 * Each question opens a short-lived connection to the sentinel: connections are opened rarely
 * (the pool keeps them, the pub/sub connection lives long), so this costs little and keeps no
 * state that could go stale.
 *
 * <p>When an answer differs from the one before, the listener given to {@link #onChange} hears of
 * it (on the thread that asked), so that the driver can drop connections to the old primary.
 */
final class SentinelPrimary implements Supplier<HostAndPort> {
  private static final Logger log = LoggerFactory.getLogger(SentinelPrimary.class);

  /** One sentinel: where it is, how to talk to it, and how to name it in messages (no password). */
  record Sentinel(HostAndPort address, JedisClientConfig config, String shown) {
    Sentinel {
      Objects.requireNonNull(address, "address");
      Objects.requireNonNull(config, "config");
      Objects.requireNonNull(shown, "shown");
    }
  }

  private final String masterName;
  private final List<Sentinel> sentinels;
  private final AtomicReference<HostAndPort> last = new AtomicReference<>();
  private volatile Consumer<HostAndPort> changed = primary -> {};

  SentinelPrimary(String masterName, List<Sentinel> sentinels) {
    this.masterName = Objects.requireNonNull(masterName, "masterName");
    this.sentinels = List.copyOf(sentinels);
    if (this.sentinels.isEmpty()) {
      throw new IllegalArgumentException("at least one sentinel is needed");
    }
  }

  /** Called with the new primary each time an answer differs from the previous one. */
  void onChange(Consumer<HostAndPort> listener) {
    changed = Objects.requireNonNull(listener, "listener");
  }

  /**
   * Asks the sentinels, in order, for the primary's address; the first that answers decides.
   *
   * @throws Unreachable naming the master and every sentinel tried with why it did not answer
   *     (never a password) if none did
   */
  @Override
  public HostAndPort get() {
    List<String> failures = new ArrayList<>(sentinels.size());
    for (Sentinel sentinel : sentinels) {
      HostAndPort primary;
      try {
        primary = ask(sentinel);
      } catch (RuntimeException e) {
        failures.add(sentinel.shown() + " (" + JedisDriver.describe(e) + ")");
        log.debug("sentinel {} did not name the primary '{}': {}", sentinel.shown(), masterName, e.toString());
        continue;
      }
      if (primary == null) {
        failures.add(sentinel.shown() + " (does not know a master named '" + masterName + "')");
        continue;
      }
      HostAndPort previous = last.getAndSet(primary);
      if (previous != null && !previous.equals(primary)) {
        log.warn("the sentinels now name {} as the primary '{}' (was {})", primary, masterName, previous);
        try {
          changed.accept(primary);
        } catch (RuntimeException e) {
          log.warn("reacting to the new primary '{}' failed", masterName, e);
        }
      }
      return primary;
    }
    throw new Unreachable("no sentinel named the primary '" + masterName + "'; tried " + String.join(", ", failures));
  }

  /** {@code SENTINEL GET-MASTER-ADDR-BY-NAME}; null if the sentinel does not know the name. */
  private HostAndPort ask(Sentinel sentinel) {
    try (Connection c = new Connection(sentinel.address(), sentinel.config())) {
      Object reply = c.executeCommand(new CommandArguments(Protocol.Command.SENTINEL)
          .add("GET-MASTER-ADDR-BY-NAME").add(masterName));
      if (reply == null) {
        return null;
      }
      if (reply instanceof List<?> pair && pair.size() == 2 && pair.get(0) instanceof byte[] host
          && pair.get(1) instanceof byte[] port) {
        return new HostAndPort(new String(host, StandardCharsets.UTF_8),
            Integer.parseInt(new String(port, StandardCharsets.UTF_8)));
      }
      throw new IllegalStateException("unexpected answer to SENTINEL GET-MASTER-ADDR-BY-NAME: " + reply);
    }
  }

  /** For messages: {@code sentinel 'name' [redis://host:26379, ...]}, passwords hidden. */
  @Override
  public String toString() {
    return "sentinel '" + masterName + "' " + sentinels.stream().map(Sentinel::shown).toList();
  }

  /**
   * No sentinel named the primary, or the one named could not be reached; the message says which
   * sentinels were tried and why each failed (so {@link JedisDriver#describe} stops here).
   */
  static final class Unreachable extends JedisConnectionException {
    private static final long serialVersionUID = 1L;

    Unreachable(String message) {
      super(message);
    }

    Unreachable(String message, Throwable cause) {
      super(message, cause);
    }
  }
}

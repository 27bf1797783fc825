package io.relock.bench;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;

/** The implementations the bench compares, in the order they take their turns. */
public enum Implementation {
  RELOCK("relock", "relock (lease + watchdog)", Set.of(), true, true) {
    @Override
    LockClient open(String redisUri, Duration lease) {
      return new RelockLocks(redisUri, lease);
    }
  },
  REDISSON("redisson", "Redisson 4.3.0 RLock (watchdog)", Set.of(), true, true) {
    @Override
    LockClient open(String redisUri, Duration lease) {
      return new RedissonLocks(redisUri, lease);
    }
  },
  SPRING_SPIN("spring-spin", "Spring Integration RedisLockRegistry, spin", Set.of(), true, false) {
    @Override
    LockClient open(String redisUri, Duration lease) {
      return new SpringRegistryLocks(redisUri, lease, RedisLockType.SPIN_LOCK);
    }
  },
  SPRING_PUBSUB("spring-pubsub", "Spring Integration RedisLockRegistry, pub/sub", Set.of(), true, false) {
    @Override
    LockClient open(String redisUri, Duration lease) {
      return new SpringRegistryLocks(redisUri, lease, RedisLockType.PUB_SUB_LOCK);
    }
  },
  RECIPE("recipe", "SET NX PX recipe, 10 ms polling", Set.of("set"), true, false) {
    @Override
    LockClient open(String redisUri, Duration lease) {
      return new RecipeLocks(redisUri, lease);
    }
  },
  LIMIT("limit", "raw relock scripts, async (Redis-bound limit)", Set.of(), false, false) {
    @Override
    LockClient open(String redisUri, Duration lease) {
      return new ScriptLimit(redisUri, lease);
    }
  };

  private final String id;
  private final String label;
  private final Set<String> directDataCommands;
  private final boolean waits;
  private final boolean watchdog;

  Implementation(String id, String label, Set<String> directDataCommands, boolean waits, boolean watchdog) {
    this.id = id;
    this.label = label;
    this.directDataCommands = directDataCommands;
    this.waits = waits;
    this.watchdog = watchdog;
  }

  /** Connects a client for this process; {@code lease} is the lease renewed by a watchdog, or the expiry. */
  abstract LockClient open(String redisUri, Duration lease);

  /** Short name used in options and results, such as {@code spring-pubsub}. */
  public String id() {
    return id;
  }

  public String label() {
    return label;
  }

  /** Data commands (lower case) this implementation sends itself rather than from a script. */
  public Set<String> directDataCommands() {
    return directDataCommands;
  }

  /** Whether it can wait for a held lock (the limit client cannot, so it only runs uncontended). */
  public boolean waits() {
    return waits;
  }

  /** Whether it renews held locks on its own. */
  public boolean hasWatchdog() {
    return watchdog;
  }

  /**
   * The implementation called {@code id}.
   *
   * @throws IllegalArgumentException naming the known ids
   */
  public static Implementation byId(String id) {
    for (Implementation i : values()) {
      if (i.id.equals(id.toLowerCase(Locale.ROOT))) {
        return i;
      }
    }
    throw new IllegalArgumentException("unknown implementation '" + id + "'; known: "
        + Arrays.stream(values()).map(Implementation::id).toList());
  }
}

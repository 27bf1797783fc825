package io.relock.bench;

import io.relock.bench.BenchTarget.Topology;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;

/** The implementations the bench compares, in the order they take their turns. */
public enum Implementation {
  RELOCK("relock", "relock (lease + watchdog)", Set.of(), true, true, On.ALL) {
    @Override
    LockClient open(BenchTarget target, Duration lease, String endpoint) {
      return new RelockLocks(target, lease, false);
    }
  },
  /** relock waiting after each acquisition for one replica's acknowledgement ({@code WAIT 1 500}). */
  RELOCK_ACKS("relock+acks", "relock, replicaAcks(1, 500 ms)", Set.of(), true, true, On.REPLICATED) {
    @Override
    LockClient open(BenchTarget target, Duration lease, String endpoint) {
      return new RelockLocks(target, lease, true);
    }
  },
  REDISSON("redisson", "Redisson 4.3.0 RLock (watchdog)", Set.of(), true, true, On.ONE_PRIMARY_PER_KEY) {
    @Override
    LockClient open(BenchTarget target, Duration lease, String endpoint) {
      return new RedissonLocks(target, lease);
    }
  },
  /** Redisson's Redlock: {@code RedissonRedLock} over one {@code RLock} per master, each from a client of its own. */
  REDISSON_REDLOCK("redisson-redlock", "Redisson 4.3.0 RedissonRedLock (watchdog)", Set.of(), true, true,
      On.REDLOCK_ONLY) {
    @Override
    LockClient open(BenchTarget target, Duration lease, String endpoint) {
      return new RedissonRedLocks(target, lease);
    }
  },
  SPRING_SPIN("spring-spin", "Spring Integration RedisLockRegistry, spin", Set.of(), true, false, On.SINGLE_ONLY) {
    @Override
    LockClient open(BenchTarget target, Duration lease, String endpoint) {
      return new SpringRegistryLocks(target.uri(), lease, RedisLockType.SPIN_LOCK);
    }
  },
  SPRING_PUBSUB("spring-pubsub", "Spring Integration RedisLockRegistry, pub/sub", Set.of(), true, false, On.SINGLE_ONLY) {
    @Override
    LockClient open(BenchTarget target, Duration lease, String endpoint) {
      return new SpringRegistryLocks(target.uri(), lease, RedisLockType.PUB_SUB_LOCK);
    }
  },
  RECIPE("recipe", "SET NX PX recipe, 10 ms polling", Set.of("set"), true, false, On.ONE_PRIMARY_PER_KEY) {
    @Override
    LockClient open(BenchTarget target, Duration lease, String endpoint) {
      return new RecipeLocks(target, lease);
    }
  },
  LIMIT("limit", "raw relock scripts, async (Redis-bound limit)", Set.of(), false, false, On.NOT_CLUSTER) {
    @Override
    LockClient open(BenchTarget target, Duration lease, String endpoint) {
      return new ScriptLimit(target.uri(), lease);
    }
  },
  /** ZooKeeper through Curator's {@code InterProcessMutex}; {@code --compare} only. */
  ZOOKEEPER("zookeeper", "ZooKeeper 3.9, Curator InterProcessMutex", Set.of(), true, false, On.SINGLE_ONLY,
      Server.ZOOKEEPER) {
    @Override
    LockClient open(BenchTarget target, Duration lease, String endpoint) {
      return new ZooKeeperLocks(endpoint, lease);
    }
  },
  /** etcd's lock service through jetcd, one lease per process; {@code --compare} only. */
  ETCD("etcd", "etcd lock API (jetcd), lease per process", Set.of(), true, false, On.SINGLE_ONLY, Server.ETCD) {
    @Override
    LockClient open(BenchTarget target, Duration lease, String endpoint) {
      return new EtcdLocks(endpoint, lease);
    }
  },
  /** {@code pg_advisory_lock} on a session; {@code --compare} only. */
  POSTGRES_ADVISORY("postgres-advisory", "PostgreSQL pg_advisory_lock", Set.of(), true, false, On.SINGLE_ONLY,
      Server.POSTGRES) {
    @Override
    LockClient open(BenchTarget target, Duration lease, String endpoint) {
      return new PostgresLocks(endpoint, PostgresLocks.Kind.ADVISORY, lease);
    }
  },
  /** The articles' pessimistic recipe: {@code SELECT ... FOR UPDATE} in a transaction; {@code --compare} only. */
  POSTGRES_FOR_UPDATE("postgres-for-update", "PostgreSQL SELECT ... FOR UPDATE (pessimistic)", Set.of(), true, false,
      On.SINGLE_ONLY, Server.POSTGRES) {
    @Override
    LockClient open(BenchTarget target, Duration lease, String endpoint) {
      return new PostgresLocks(endpoint, PostgresLocks.Kind.ROW_LOCK, lease);
    }
  },
  /** The articles' optimistic recipe: a version column updated by compare-and-set; {@code --compare} only. */
  POSTGRES_OPTIMISTIC("postgres-optimistic", "PostgreSQL version column CAS (optimistic)", Set.of(), true, false,
      On.SINGLE_ONLY, Server.POSTGRES) {
    @Override
    LockClient open(BenchTarget target, Duration lease, String endpoint) {
      return new PostgresLocks(endpoint, PostgresLocks.Kind.VERSION, lease);
    }
  };

  /** Where an implementation keeps its locks. */
  enum Server {
    REDIS("Redis"), ZOOKEEPER("ZooKeeper"), ETCD("etcd"), POSTGRES("PostgreSQL");

    private final String title;

    Server(String title) {
      this.title = title;
    }

    String title() {
      return title;
    }
  }

  /** The implementations a {@code --compare} run measures by default, in this order. */
  static final java.util.List<Implementation> COMPARED = java.util.List.of(RELOCK, REDISSON, RECIPE, ZOOKEEPER, ETCD,
      POSTGRES_ADVISORY, POSTGRES_FOR_UPDATE, POSTGRES_OPTIMISTIC);

  private final String id;
  private final String label;
  private final Set<String> directDataCommands;
  private final boolean waits;
  private final boolean watchdog;
  private final Set<Topology> topologies;
  private final Server server;

  /** Topology sets for the constants (a nested class: enum constants cannot use the enum's own static fields). */
  private static final class On {
    static final Set<Topology> ALL = Set.of(Topology.values());
    /** Where one primary owns each key: everywhere but Redlock's independent masters. */
    static final Set<Topology> ONE_PRIMARY_PER_KEY = Set.of(Topology.SINGLE, Topology.SENTINEL, Topology.CLUSTER);
    static final Set<Topology> SINGLE_ONLY = Set.of(Topology.SINGLE);
    static final Set<Topology> REDLOCK_ONLY = Set.of(Topology.REDLOCK);
    /** Where there are replicas to acknowledge: Sentinel, and a cluster started with replicas. */
    static final Set<Topology> REPLICATED = Set.of(Topology.SENTINEL, Topology.CLUSTER);
    static final Set<Topology> NOT_CLUSTER = Set.of(Topology.SINGLE, Topology.SENTINEL);
  }

  Implementation(String id, String label, Set<String> directDataCommands, boolean waits, boolean watchdog,
      Set<Topology> topologies) {
    this(id, label, directDataCommands, waits, watchdog, topologies, Server.REDIS);
  }

  Implementation(String id, String label, Set<String> directDataCommands, boolean waits, boolean watchdog,
      Set<Topology> topologies, Server server) {
    this.server = server;
    this.id = id;
    this.label = label;
    this.directDataCommands = directDataCommands;
    this.waits = waits;
    this.watchdog = watchdog;
    this.topologies = topologies;
  }

  /**
   * Connects a client for this process; {@code lease} is the lease renewed by a watchdog, or the
   * expiry (ZooKeeper: the session timeout; etcd: the lease's time to live). {@code endpoint} is
   * where the lock server of a {@link #comparison()} implementation listens (ZooKeeper's connect
   * string, etcd's URL, PostgreSQL's JDBC URL); Redis implementations connect to {@code target}.
   */
  abstract LockClient open(BenchTarget target, Duration lease, String endpoint);

  /** Whether the bench can run this implementation on {@code topology}. */
  boolean runsOn(Topology topology) {
    return topologies.contains(topology);
  }

  /**
   * The Redisson lock relock is compared with on {@code topology}: {@code RedissonRedLock} on
   * Redlock's independent masters, {@code RLock} everywhere else.
   */
  static Implementation redissonOn(Topology topology) {
    return topology == Topology.REDLOCK ? REDISSON_REDLOCK : REDISSON;
  }

  /** Whether it needs replicas of the primary (relock+acks): a cluster is then started with one per primary. */
  boolean needsReplicas() {
    return this == RELOCK_ACKS;
  }

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

  /** Whether it keeps its locks in Redis (so Redis's counters tell its calls and CPU). */
  public boolean usesRedis() {
    return server == Server.REDIS;
  }

  /** The server that keeps its locks. */
  Server server() {
    return server;
  }

  /**
   * Whether it is one of the other systems the articles compare Redis locks with (ZooKeeper, etcd,
   * PostgreSQL): those run in {@code --compare} runs only, which start their servers.
   */
  boolean comparison() {
    return server != Server.REDIS;
  }

  /**
   * Whether the bench has its lock family (a read-write lock and a semaphore, {@link
   * LockClient.Family}): relock's and Redisson's ({@code RReadWriteLock}, {@code
   * RPermitExpirableSemaphore}). The others have no row in {@code --family} runs: Spring's registry,
   * the recipe and the limit have neither kind, and the bench wires none of Redlock's or the other
   * systems'.
   */
  boolean hasFamily() {
    return this == RELOCK || this == REDISSON;
  }

  /** The implementations a {@code --family} run measures by default, in this order. */
  static final java.util.List<Implementation> FAMILY = java.util.List.of(RELOCK, REDISSON);

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

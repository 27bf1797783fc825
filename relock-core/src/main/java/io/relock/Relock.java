package io.relock;

import io.relock.internal.Checks;
import io.relock.internal.DriverLoader;
import io.relock.internal.LockEngine;
import io.relock.internal.RedisLock;
import io.relock.internal.RelockSettings;
import io.relock.internal.Topologies;
import io.relock.spi.RedisDriver;
import io.relock.spi.RedisTarget;
import io.relock.spi.RedisUri;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A relock client: one connection to Redis for commands, one for notifications, one watchdog that
 * renews every held lock in batches. Create one per application and share it; it is thread-safe.
 * Closing it releases the locks it still holds and withdraws its waiters.
 *
 * <pre>{@code
 * try (Relock relock = Relock.connect("redis://localhost:6379")) {
 *   DistributedLock lock = relock.lock("invoice:42");
 *   // Waits up to 5 s for the lock; the lease is the default 30 s, renewed until closed.
 *   try (LockLease lease = lock.acquire(Duration.ofSeconds(5))) {
 *     invoices.save(invoice, lease.fencingToken());
 *   }
 * }
 * }</pre>
 */
public final class Relock implements AutoCloseable {

  private final LockEngine engine;
  private final String topology;

  private Relock(LockEngine engine, String topology) {
    this.engine = engine;
    this.topology = topology;
  }

  /**
   * Connects with default settings (key prefix {@code relock:}, lease 30 s) through the driver
   * found on the class path.
   *
   * @param redisUri {@code redis://[user:password@]host:port[/db]} or {@code rediss://...} for TLS;
   *     or a primary behind Redis Sentinel in Lettuce's form {@code
   *     redis-sentinel://[user:password@]host1:26379,host2:26379[/db]#masterName}
   * @return the connected client; close it to release the locks it still holds
   * @throws IllegalArgumentException if the URI is malformed (a reserved character standing raw in
   *     the password, say: user and password go percent-encoded); the message names it, its
   *     password hidden, as every message of relock's does (see {@link io.relock.spi.RedisUri})
   * @throws RelockException if no driver is on the class path or Redis cannot be reached
   */
  public static Relock connect(String redisUri) {
    return builder().uri(redisUri).build();
  }

  /**
   * A builder; each setter checks its argument at once.
   *
   * @return a new builder with the default settings and no topology chosen yet
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The lock called {@code name}. Every client using the same name (and key prefix) shares it.
   *
   * @param name the lock's name: not blank, at most 1,024 UTF-8 bytes
   * @return the lock; obtaining it does not contact Redis
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException if {@code name} is empty, blank or longer than 1,024 UTF-8
   *     bytes
   */
  public DistributedLock lock(String name) {
    Checks.lockName(name);
    return new RedisLock(engine, name);
  }

  /**
   * The read-write lock called {@code name}: many readers or one writer, served in arrival order
   * (see {@link DistributedReadWriteLock}). A name is one kind of lock at a time: using it as an
   * exclusive lock or a semaphore while it is in use as a read-write lock fails with {@link
   * RelockException} naming what it is.
   *
   * @param name the lock's name: not blank, at most 1,024 UTF-8 bytes
   * @return the read-write lock; obtaining it does not contact Redis
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException if {@code name} is empty, blank or longer than 1,024 UTF-8 bytes
   * @throws UnsupportedOperationException on {@link Builder#redlock Redlock} masters, which offer
   *     exclusive locks and multi-locks only
   */
  public DistributedReadWriteLock readWriteLock(String name) {
    Checks.lockName(name);
    return new io.relock.internal.RedisReadWriteLock(engine, name);
  }

  /**
   * The semaphore called {@code name}, with {@code permits} leases to hand out (see {@link
   * DistributedSemaphore}). Every client must declare the same number of permits for a name.
   *
   * @param name the semaphore's name: not blank, at most 1,024 UTF-8 bytes
   * @param permits how many leases may be held at once; at least 1
   * @return the semaphore; obtaining it does not contact Redis (a different number of permits is
   *     found out when it is used)
   * @throws IllegalArgumentException if {@code name} is not a valid lock name, or {@code permits}
   *     is not positive
   * @throws UnsupportedOperationException on {@link Builder#redlock Redlock} masters
   */
  public DistributedSemaphore semaphore(String name, int permits) {
    Checks.lockName(name);
    if (permits < 1) {
      throw new IllegalArgumentException("a semaphore needs at least 1 permit, not " + permits + " (semaphore '"
          + name + "')");
    }
    return new io.relock.internal.RedisSemaphore(engine, name, permits);
  }

  /**
   * The exclusive locks {@code names}, taken together: all of them or none (see {@link
   * io.relock.internal.RedisMultiLock} for the protocol). A lease of it holds every lock and
   * carries one fencing token per name ({@link LockLease#fencingTokens()}). Its {@link
   * DistributedLock#name()} is the names joined by commas.
   *
   * <p>The locks are taken in one order, that of their keys, whatever order {@code names} gives,
   * so two multi-locks never deadlock each other. A thread that takes some of the same locks one
   * at a time with {@link #lock(String)}, in another order, can deadlock with a multi-lock, as with
   * any locks. A caller that holds some of the locks waits for the next as long as its own wait
   * allows: {@code lock()} without limit, since the holder may keep renewing its lease; a timed
   * wait that runs out releases the locks it took.
   *
   * @param names the lock names, at least one, each given once, in any order
   * @return one lock that holds all of them; obtaining it does not contact Redis
   * @throws NullPointerException if {@code names} is null
   * @throws IllegalArgumentException if no name is given, a name is given twice, or a name is not
   *     a valid lock name
   */
  public DistributedLock multiLock(String... names) {
    java.util.Objects.requireNonNull(names, "names");
    if (names.length == 0) {
      throw new IllegalArgumentException("a multi-lock needs at least one lock name");
    }
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (String n : names) {
      Checks.lockName(n);
      if (!seen.add(n)) {
        throw new IllegalArgumentException("lock name '" + n + "' is given twice to multiLock");
      }
    }
    return new io.relock.internal.RedisMultiLock(engine, java.util.List.of(names));
  }

  /**
   * A candidate in the leader election called {@code name}, not started: add its {@link
   * LeaderListener}s, then {@link LeaderCandidate#start()} it. Every candidate of the same name
   * (and key prefix), in any process, stands in the same election, and one at a time leads; each
   * leadership has a term, a fencing token strictly greater than every earlier term (see {@link
   * LeaderCandidate}). The election is held by the exclusive lock of the same name, which must not
   * be taken by other means.
   *
   * @param name the election's name: not blank, at most 1,024 UTF-8 bytes
   * @return a new candidate; obtaining it does not contact Redis
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException if {@code name} is empty, blank or longer than 1,024 UTF-8
   *     bytes
   */
  public LeaderCandidate leader(String name) {
    Checks.lockName(name);
    return new io.relock.internal.RedisLeaderCandidate(engine, name);
  }

  /**
   * Registers {@code listener} to hear this client's acquisitions, releases, lost leases,
   * renewals and Redis calls from now on (see {@link RelockListener} for the threads it runs on).
   *
   * @param listener the listener to add
   * @throws NullPointerException if {@code listener} is null
   */
  public void addListener(RelockListener listener) {
    engine.addListener(listener);
  }

  /**
   * Stops {@code listener} hearing this client; does nothing if it was not registered.
   *
   * @param listener a listener given to {@link #addListener}
   */
  public void removeListener(RelockListener listener) {
    engine.removeListener(listener);
  }

  /**
   * What this client's locks live on, for metrics and traces.
   *
   * @return {@code single} (one server), {@code sentinel}, {@code cluster}, {@code redlock}, or
   *     {@code driver} for a client built around a driver given to {@link Builder#driver}
   */
  public String topology() {
    return topology;
  }

  /**
   * Registers {@code observer} to follow each of this client's acquisitions and holds from now on,
   * one by one, starting on the caller's thread (see {@link LockObserver}): the hook tracing
   * integrations use, such as relock-micrometer's {@code RelockObservations}.
   *
   * @param observer the observer to add
   * @throws NullPointerException if {@code observer} is null
   */
  public void addObserver(LockObserver observer) {
    engine.addObserver(observer);
  }

  /**
   * Stops {@code observer} following acquisitions that start from now on (those under way keep
   * it until they end); does nothing if it was not registered.
   *
   * @param observer an observer given to {@link #addObserver}
   */
  public void removeObserver(LockObserver observer) {
    engine.removeObserver(observer);
  }

  /**
   * What Redis holds for the lock called {@code name} now: its holder (owner, client, hold count,
   * fencing token, remaining lease), its waiters in the order they will be served, and the last
   * fencing token issued for the name. One Redis call (on Redlock, one per master, combined as
   * described in {@link LockInfo}); changes nothing.
   *
   * @param name the lock's name, as given to {@link #lock(String)}
   * @return what Redis holds for the lock as it answered; a free lock has no holder
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException if {@code name} is not a valid lock name (see {@link #lock})
   * @throws RelockException if Redis could not answer within the command timeout, or refused the
   *     call (the message names the lock and what Redis said)
   */
  public LockInfo inspect(String name) {
    Checks.lockName(name);
    return engine.inspector().inspect(name);
  }

  /**
   * Every lock held now whose name matches {@code pattern}, sorted by name: each as {@link
   * #inspect} would describe it. {@code pattern} is a Redis glob over lock names: {@code *} any
   * characters, {@code ?} one, {@code [abc]}, {@code [a-z]} or {@code [^a-z]} one of a set or not,
   * {@code \} before a character to match it literally; {@code "*"} lists every lock.
   *
   * <p>Redis's keyspace is read in pages with {@code SCAN} (never {@code KEYS}), each page a
   * short script call that looks at a few hundred keys, so a listing never blocks Redis; a large
   * keyspace takes many calls. On a Redis Cluster every primary is scanned. A lock taken or freed
   * while the listing runs may or may not be in it; each entry is consistent in itself. On
   * Redlock, a lock is listed when a majority of the masters holds it for the same owner.
   *
   * @param pattern a Redis glob over lock names, as above
   * @return an unmodifiable list of the matching locks, sorted by name; empty if none matches
   * @throws NullPointerException if {@code pattern} is null
   * @throws IllegalArgumentException if {@code pattern} is empty or has a {@code [} without its
   *     {@code ]}; the message names the pattern
   * @throws RelockException if Redis failed or refused a call (on Redlock: if fewer than a
   *     majority of the masters could be listed)
   */
  public java.util.List<LockInfo> list(String pattern) {
    return engine.inspector().list(pattern);
  }

  /**
   * What this client has under way now: holds, acquisitions, leases at risk. Local, no Redis call.
   *
   * @return the figures as of this call; later changes do not show in it
   */
  public RelockStats stats() {
    return engine.stats();
  }

  /**
   * One round trip to Redis (on Redlock, to every master; it succeeds as long as one answers).
   *
   * @return how long it took
   * @throws RelockException if Redis did not answer within the command timeout
   */
  public java.time.Duration ping() {
    return engine.ping();
  }

  /**
   * The random 128-bit id of this client, in hex; every owner id it creates starts with it.
   *
   * @return 32 hex digits, the same for the life of the client
   */
  public String clientId() {
    return engine.clientId();
  }

  /**
   * Closes the client. Its {@link #leader leader candidates} close first, as {@link
   * LeaderCandidate#close()} does (a leader hears {@code onRevoked} before its lock is released,
   * unless its listeners take longer than about twice the command timeout: the lock is then
   * released without waiting for them any longer, and a warning says so).
   * Every acquisition still under way (a blocked {@code lock()} or {@code
   * acquire}, a zero-wait attempt whose reply has not come back, an {@code acquireAsync} future)
   * fails with {@link RelockException} ("client closed while acquiring ...") and is withdrawn from
   * Redis; every lock the client holds is released (its leases turn invalid but report nothing
   * lost, and a later {@code close()} of one does nothing; a later {@code unlock()} throws {@link
   * RelockException}). Stops the watchdog, and waits for Redis to confirm for at most about twice
   * the command timeout. What Redis has not confirmed by then (it is unreachable, say) goes on
   * being tried in the background, with backoff, until Redis confirms it or the longest lease in
   * play has run out; the driver is closed after that. If the JVM exits first, those locks expire
   * by their leases. Idempotent.
   */
  @Override
  public void close() {
    engine.close();
  }

  /** Builds a {@link Relock}. Not thread-safe; each setter rejects a bad value immediately. */
  public static final class Builder {
    /** Each topology setter (and driver) called, in order: build() insists on exactly one. */
    private final List<String> chosen = new ArrayList<>();
    private RedisTarget target;
    private RedisTarget.Credentials primaryCredentials;
    private List<String> redlockNodes;
    private RedisDriver driver;
    private final RelockSettings.Mutable settings = RelockSettings.defaults().toMutable();

    private Builder() {}

    /**
     * One Redis server ({@code redis://[user:password@]host:port[/db]}, {@code rediss://} for TLS),
     * or a primary behind Redis Sentinel in Lettuce's URI form ({@code
     * redis-sentinel://[user:password@]host1:26379,host2:26379[/db]#masterName}, {@code
     * rediss-sentinel://} for TLS), which is the same as {@link #sentinel}. Exclusive with the
     * other topology setters and {@link #driver(RedisDriver)}.
     *
     * @param redisUri the server's URI, or the Sentinel URI of a primary, in the forms above
     * @return this builder
     * @throws NullPointerException if {@code redisUri} is null
     * @throws IllegalArgumentException if the URI is not in one of those forms (user and password
     *     go percent-encoded; see {@link io.relock.spi.RedisUri}); the message hides the password
     */
    public Builder uri(String redisUri) {
      Objects.requireNonNull(redisUri, "redisUri must not be null");
      if (Topologies.isSentinelUri(redisUri)) {
        target = Topologies.parseSentinelUri(redisUri);
      } else {
        Checks.redisUri(redisUri);
        target = RedisTarget.single(redisUri);
      }
      chosen.add("uri");
      return this;
    }

    /**
     * A primary discovered through Redis Sentinel and followed across failovers: the sentinels at
     * {@code sentinelUris} ({@code redis://host:26379}, {@code rediss://} for TLS) name the primary
     * they know as {@code masterName}. Database and TLS in the sentinel URIs apply to the primary
     * too, and so do the first one's credentials unless {@link #sentinelPrimaryCredentials} gives
     * the primary's own. Holds the new primary never saw (the failover hole) are reported lost to
     * their holders; {@link #replicaAcks} narrows that hole.
     *
     * @param masterName the name the sentinels know the primary by
     * @param sentinelUris the URIs of the sentinels, at least one
     * @return this builder
     * @throws IllegalArgumentException if the name is blank, a URI is not {@code redis://} or
     *     {@code rediss://}, or two URIs name the same server
     */
    public Builder sentinel(String masterName, String... sentinelUris) {
      target = RedisTarget.sentinel(Topologies.masterName(masterName),
          Topologies.nodes("sentinel", sentinelUris, 1));
      chosen.add("sentinel");
      return this;
    }

    /**
     * With {@link #sentinel} (or a {@code redis-sentinel://} {@link #uri}): the user and password
     * of the primary and its replicas, when they differ from the sentinels' (which stay in the
     * sentinel URIs). Without it, the primary gets the first sentinel URI's credentials.
     *
     * @param user the primary's ACL user, or null (or empty) for the default user
     * @param password the primary's password as it is (not percent-encoded), or null (or empty)
     *     if the primary needs none
     * @return this builder
     * @throws IllegalArgumentException if a user is given without a password
     */
    public Builder sentinelPrimaryCredentials(String user, String password) {
      RedisTarget.Credentials credentials = new RedisTarget.Credentials(user, password);
      if (credentials.user() != null && credentials.password() == null) {
        throw new IllegalArgumentException("the primary's user '" + user + "' needs a password");
      }
      primaryCredentials = credentials;
      return this;
    }

    /**
     * A Redis Cluster, reached through these seed nodes; the others are discovered.
     *
     * @param seedUris the URIs of one or more nodes of the cluster
     * @return this builder
     * @throws IllegalArgumentException if a URI is not {@code redis://} or {@code rediss://} (a
     *     Sentinel URI included), or two name the same server
     */
    public Builder cluster(String... seedUris) {
      target = RedisTarget.cluster(Topologies.nodes("cluster", seedUris, 1));
      chosen.add("cluster");
      return this;
    }

    /**
     * The Redlock algorithm over independent Redis masters (no replication between them): a lock
     * is held when a majority granted it.
     *
     * @param masterUris the URIs of the masters
     * @return this builder
     * @throws IllegalArgumentException unless an odd number of at least three distinct {@code
     *     redis://} or {@code rediss://} URIs
     */
    public Builder redlock(String... masterUris) {
      redlockNodes = Topologies.redlockNodes(masterUris);
      chosen.add("redlock");
      return this;
    }

    /**
     * On {@link #redlock}: how long a master that lost its data (restarted without persistence)
     * stays out of every majority once a client notices, so that every hold it forgot has ended
     * or been reported lost first (the "delayed restart"); also the longest lease an acquisition
     * may ask for. Default: twice the {@link #defaultLease}.
     *
     * @param delay how long a master that lost its data stays out of every majority
     * @return this builder
     * @throws IllegalArgumentException if not positive
     */
    public Builder redlockRestartDelay(Duration delay) {
      settings.redlockRestartDelay = Checks.positive("redlockRestartDelay", delay);
      return this;
    }

    /**
     * An acquisition (and the fencing token it issues) counts only once {@code replicas} replicas
     * of the primary acknowledged it, so that a failover right after it does not erase it: Redis's
     * {@code WAIT replicas timeout} after each acquiring call. When fewer acknowledge within
     * {@code timeout}, the acquisition fails with {@link RelockException} and the lock is released.
     * Applies to {@link #uri}, {@link #sentinel} and {@link #cluster}; {@code replicas} 0 turns it
     * off (the default).
     *
     * @param replicas how many replicas must acknowledge each acquisition; 0 turns the wait off
     * @param timeout how long Redis may wait for them, per acquisition; {@link #build()} insists it
     *     be shorter than the {@link #commandTimeout command timeout} when {@code replicas} is not 0
     * @return this builder
     * @throws IllegalArgumentException if {@code replicas} is negative or {@code timeout} not
     *     positive
     */
    public Builder replicaAcks(int replicas, Duration timeout) {
      if (replicas < 0) {
        throw new IllegalArgumentException("replicaAcks replicas must be 0 or more, was " + replicas);
      }
      settings.replicaAckTimeout = Checks.positive("replicaAcks timeout", timeout);
      settings.replicaAcks = replicas;
      return this;
    }

    /**
     * A driver the caller created and keeps; the client closes it on {@link Relock#close()}.
     * Exclusive with the topology setters.
     *
     * @param driver a connected driver, which the client uses for every Redis call
     * @return this builder
     * @throws NullPointerException if {@code driver} is null
     */
    public Builder driver(RedisDriver driver) {
      this.driver = Objects.requireNonNull(driver, "driver");
      chosen.add("driver");
      return this;
    }

    /**
     * Prefix of every key and channel; default {@code relock:}. May be empty.
     *
     * @param keyPrefix the prefix: at most 256 UTF-8 bytes, without a brace (<code>&#123;</code> or
     *     <code>&#125;</code>), since the lock name's hash tag follows it
     * @return this builder
     * @throws NullPointerException if {@code keyPrefix} is null
     * @throws IllegalArgumentException if {@code keyPrefix} is longer than that or holds a brace
     */
    public Builder keyPrefix(String keyPrefix) {
      settings.keyPrefix = Checks.keyPrefix(keyPrefix);
      return this;
    }

    /**
     * Lease of acquisitions without an explicit one, renewed every third of it; default 30 s.
     *
     * @param lease the default lease; at least 1 ms
     * @return this builder
     * @throws IllegalArgumentException if {@code lease} is under 1 ms
     */
    public Builder defaultLease(Duration lease) {
      settings.defaultLease = Checks.lease("defaultLease", lease);
      return this;
    }

    /**
     * How much sooner than Redis the client considers a lease over, to cover clock rate drift
     * between client and server. Default: 1% of the lease plus 2 ms.
     *
     * @param drift the allowance; zero or more
     * @return this builder
     * @throws IllegalArgumentException if {@code drift} is negative
     */
    public Builder clockDrift(Duration drift) {
      settings.clockDrift = Checks.nonNegative("clockDrift", drift);
      return this;
    }

    /**
     * How long one Redis command may take before it fails with RelockException; default 3 s.
     *
     * @param timeout the timeout of each command; positive
     * @return this builder
     * @throws IllegalArgumentException if {@code timeout} is not positive
     */
    public Builder commandTimeout(Duration timeout) {
      settings.commandTimeout = Checks.positive("commandTimeout", timeout);
      return this;
    }

    /**
     * How long connecting may take; default 5 s.
     *
     * @param timeout the timeout of establishing a connection; positive
     * @return this builder
     * @throws IllegalArgumentException if {@code timeout} is not positive
     */
    public Builder connectTimeout(Duration timeout) {
      settings.connectTimeout = Checks.positive("connectTimeout", timeout);
      return this;
    }

    /**
     * How often a waiter checks again on its own if no notification came, bounding the delay a
     * lost notification can cause; default 1 s.
     *
     * @param interval the time between a waiter's own checks; positive
     * @return this builder
     * @throws IllegalArgumentException if {@code interval} is not positive
     */
    public Builder recheckInterval(Duration interval) {
      settings.recheckInterval = Checks.positive("recheckInterval", interval);
      return this;
    }

    /**
     * How long a lock's fence key (its last fencing token) is kept after last use; default 7
     * days. Within it, tokens increase even if the Redis server clock steps back.
     *
     * @param retention how long a fence key outlives the last use of its lock; positive
     * @return this builder
     * @throws IllegalArgumentException if {@code retention} is not positive
     */
    public Builder fenceRetention(Duration retention) {
      settings.fenceRetention = Checks.positive("fenceRetention", retention);
      return this;
    }

    /**
     * Connects and returns the client.
     *
     * @return the client, ready for use; close it when done
     * @throws IllegalStateException if not exactly one of the topology setters and {@link
     *     #driver} was called, or {@link #replicaAcks} was set for a topology or driver that cannot
     *     give it
     * @throws UnsupportedOperationException if the driver on the class path cannot connect to the
     *     chosen topology; the message says why
     * @throws RelockException if no driver is found or Redis cannot be reached
     */
    public Relock build() {
      if (chosen.size() != 1) {
        throw new IllegalStateException("give exactly one of uri(...), sentinel(...), cluster(...), redlock(...)"
            + " and driver(...); " + (chosen.isEmpty() ? "none was given" : "got " + chosen));
      }
      RelockSettings frozen = settings.freeze();
      if (primaryCredentials != null) {
        if (target == null || target.kind() != RedisTarget.Kind.SENTINEL) {
          throw new IllegalStateException("sentinelPrimaryCredentials(...) applies to sentinel(...) or a"
              + " redis-sentinel:// uri(...) only");
        }
        target = RedisTarget.sentinel(target.masterName(), target.nodes(), primaryCredentials);
      }
      if (redlockNodes != null) {
        if (frozen.replicaAcks() > 0) {
          throw new IllegalStateException("replicaAcks(...) applies to a replicated primary (uri, sentinel,"
              + " cluster); redlock(...) masters are independent and have no replicas to wait for");
        }
        RelockSettings redlock = Topologies.redlockSettings(frozen);
        List<String> passwords = Topologies.redlockPasswords(redlockNodes);
        return new Relock(LockEngine.start(Topologies.connectRedlock(redlockNodes, redlock), redlock,
            Topologies.describeRedlock(redlockNodes), text -> RedisUri.redact(text, passwords)), "redlock");
      }
      if (frozen.redlockRestartDelay() != null) {
        throw new IllegalStateException("redlockRestartDelay(...) applies to redlock(...) only");
      }
      if (frozen.replicaAcks() > 0 && frozen.replicaAckTimeout().compareTo(frozen.commandTimeout()) >= 0) {
        throw new IllegalStateException("replicaAcks timeout " + frozen.replicaAckTimeout()
            + " must be shorter than the command timeout " + frozen.commandTimeout()
            + ", which bounds the call that waits for the replicas");
      }
      RedisDriver d = driver != null ? driver : DriverLoader.connect(target, frozen);
      if (frozen.replicaAcks() > 0 && !d.supportsReplicaAcks()) {
        if (d != driver) {
          d.close(); // ours; a driver the caller gave stays the caller's
        }
        throw new IllegalStateException("replicaAcks(...) needs a driver that supports WAIT; "
            + d.getClass().getName() + " does not");
      }
      String topology = target != null ? target.kind().name().toLowerCase(java.util.Locale.ROOT) : "driver";
      RedisTarget named = target;
      return new Relock(named == null ? LockEngine.start(d, frozen, null)
          : LockEngine.start(d, frozen, named.toString(), named::redact), topology);
    }
  }
}

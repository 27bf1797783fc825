package io.relock;

import io.relock.internal.Checks;
import io.relock.internal.DriverLoader;
import io.relock.internal.LockEngine;
import io.relock.internal.RedisLock;
import io.relock.internal.RelockSettings;
import io.relock.spi.RedisDriver;
import java.time.Duration;
import java.util.Objects;

/**
 * A relock client: one connection to Redis for commands, one for notifications, one watchdog that
 * renews every held lock in batches. Create one per application and share it; it is thread-safe.
 * Closing it releases the locks it still holds and withdraws its waiters.
 *
 * <pre>{@code
 * try (Relock relock = Relock.connect("redis://localhost:6379")) {
 *   DistributedLock lock = relock.lock("invoice:42");
 *   try (LockLease lease = lock.acquire(Duration.ofSeconds(5))) {
 *     invoices.save(invoice, lease.fencingToken());
 *   }
 * }
 * }</pre>
 */
public final class Relock implements AutoCloseable {

  private final LockEngine engine;

  private Relock(LockEngine engine) {
    this.engine = engine;
  }

  /**
   * Connects with default settings (key prefix {@code relock:}, lease 30 s) through the driver
   * found on the class path.
   *
   * @param redisUri {@code redis://[user:password@]host:port[/db]} or {@code rediss://...} for TLS
   * @throws RelockException if no driver is on the class path or Redis cannot be reached
   */
  public static Relock connect(String redisUri) {
    return builder().uri(redisUri).build();
  }

  /** A builder; each setter checks its argument at once. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The lock called {@code name}. Every client using the same name (and key prefix) shares it.
   *
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException if {@code name} is empty, blank or longer than 1,024 UTF-8
   *     bytes
   */
  public DistributedLock lock(String name) {
    Checks.lockName(name);
    return new RedisLock(engine, name);
  }

  /** The random 128-bit id of this client, in hex; every owner id it creates starts with it. */
  public String clientId() {
    return engine.clientId();
  }

  /**
   * Closes the client. Every acquisition still under way (a blocked {@code lock()} or {@code
   * acquire}, a zero-wait attempt whose reply has not come back, an {@code acquireAsync} future)
   * fails with {@link RelockException} ("client closed while acquiring ...") and is withdrawn from
   * Redis; every lock the client holds is released (its leases turn invalid but report nothing
   * lost, and a later {@code close()} of one does nothing; a later {@code unlock()} throws {@link
   * RelockException}). Waits for Redis to confirm for at most about twice the command timeout;
   * what Redis has not confirmed by then expires by its lease. Then stops the watchdog and closes
   * the driver. Idempotent.
   */
  @Override
  public void close() {
    engine.close();
  }

  /** Builds a {@link Relock}. Not thread-safe; each setter rejects a bad value immediately. */
  public static final class Builder {
    private String uri;
    private RedisDriver driver;
    private final RelockSettings.Mutable settings = RelockSettings.defaults().toMutable();

    private Builder() {}

    /** The Redis to connect to; exclusive with {@link #driver(RedisDriver)}. */
    public Builder uri(String redisUri) {
      Checks.redisUri(redisUri);
      this.uri = redisUri;
      return this;
    }

    /**
     * A driver the caller created and keeps; the client closes it on {@link Relock#close()}.
     * Exclusive with {@link #uri(String)}.
     */
    public Builder driver(RedisDriver driver) {
      this.driver = Objects.requireNonNull(driver, "driver");
      return this;
    }

    /** Prefix of every key and channel; default {@code relock:}. May be empty. */
    public Builder keyPrefix(String keyPrefix) {
      settings.keyPrefix = Checks.keyPrefix(keyPrefix);
      return this;
    }

    /** Lease of acquisitions without an explicit one, renewed every third of it; default 30 s. */
    public Builder defaultLease(Duration lease) {
      settings.defaultLease = Checks.lease("defaultLease", lease);
      return this;
    }

    /**
     * How much sooner than Redis the client considers a lease over, to cover clock rate drift
     * between client and server. Default: 1% of the lease plus 2 ms.
     */
    public Builder clockDrift(Duration drift) {
      settings.clockDrift = Checks.nonNegative("clockDrift", drift);
      return this;
    }

    /** How long one Redis command may take before it fails with RelockException; default 3 s. */
    public Builder commandTimeout(Duration timeout) {
      settings.commandTimeout = Checks.positive("commandTimeout", timeout);
      return this;
    }

    /** How long connecting may take; default 5 s. */
    public Builder connectTimeout(Duration timeout) {
      settings.connectTimeout = Checks.positive("connectTimeout", timeout);
      return this;
    }

    /**
     * How often a waiter checks again on its own if no notification came, bounding the delay a
     * lost notification can cause; default 1 s.
     */
    public Builder recheckInterval(Duration interval) {
      settings.recheckInterval = Checks.positive("recheckInterval", interval);
      return this;
    }

    /**
     * How long a lock's fence key (its last fencing token) is kept after last use; default 7
     * days. Within it, tokens increase even if the Redis server clock steps back.
     */
    public Builder fenceRetention(Duration retention) {
      settings.fenceRetention = Checks.positive("fenceRetention", retention);
      return this;
    }

    /**
     * Connects and returns the client.
     *
     * @throws IllegalStateException if neither or both of a URI and a driver were given
     * @throws RelockException if no driver is found or Redis cannot be reached
     */
    public Relock build() {
      if ((uri == null) == (driver == null)) {
        throw new IllegalStateException("give exactly one of uri(...) and driver(...)");
      }
      RelockSettings frozen = settings.freeze();
      RedisDriver d = driver != null ? driver : DriverLoader.connect(uri, frozen);
      return new Relock(LockEngine.start(d, frozen));
    }
  }
}

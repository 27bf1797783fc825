package io.relock.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code relock.*} settings of the auto-configured client. Where to connect comes from {@code
 * spring.data.redis.*} (or {@code relock.redlock.nodes}); these say how relock behaves. Each is
 * checked at startup, and a bad value fails it naming the property.
 */
@ConfigurationProperties("relock")
public class RelockProperties {

  /** Properties with their defaults, bound by Spring Boot from {@code relock.*}. */
  public RelockProperties() {}


  /** Whether to auto-configure a Relock client. */
  private boolean enabled = true;

  /** Prefix of every key and channel relock uses. May be empty. */
  private String keyPrefix = "relock:";

  /**
   * Lease of acquisitions without a fixed one (@Locked without lease), renewed by the watchdog
   * every third of it.
   */
  private Duration defaultLease = Duration.ofSeconds(30);

  /**
   * How much sooner than Redis the client considers a lease over, covering clock rate drift.
   * Default: 1% of the lease plus 2 ms.
   */
  private Duration clockDrift;

  /** How long one Redis command may take before it fails. */
  private Duration commandTimeout = Duration.ofSeconds(3);

  /** How long connecting to Redis may take. */
  private Duration connectTimeout = Duration.ofSeconds(5);

  /** How often a waiter checks on its own when no notification came. */
  private Duration recheckInterval = Duration.ofSeconds(1);

  /** How long a lock's last fencing token is kept in Redis after last use. */
  private Duration fenceRetention = Duration.ofDays(7);

  /**
   * The relock driver to use when several are on the class path: "lettuce" or "jedis". Default:
   * the one found.
   */
  private String driver;

  private final ReplicaAcks replicaAcks = new ReplicaAcks();

  private final Redlock redlock = new Redlock();

  private final LockedMethods locked = new LockedMethods();

  private final Metrics metrics = new Metrics();
  private final Observations observations = new Observations();

  /**
   * {@code relock.enabled}: whether the starter auto-configures a {@link io.relock.Relock} client.
   * Default {@code true}.
   *
   * @return whether the client is auto-configured
   */
  public boolean isEnabled() {
    return enabled;
  }

  /**
   * Sets {@code relock.enabled}; see {@link #isEnabled()}.
   *
   * @param enabled {@code false} to leave the auto-configured client out
   */
  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  /**
   * {@code relock.key-prefix}: the prefix of every key and channel relock uses. Default {@code
   * relock:}.
   *
   * @return the prefix; may be empty
   */
  public String getKeyPrefix() {
    return keyPrefix;
  }

  /**
   * Sets {@code relock.key-prefix}; see {@link #getKeyPrefix()}.
   *
   * @param keyPrefix the prefix; may be empty; at most 256 UTF-8 bytes, without <code>{</code> or
   *     <code>}</code> (checked at startup)
   */
  public void setKeyPrefix(String keyPrefix) {
    this.keyPrefix = keyPrefix;
  }

  /**
   * {@code relock.default-lease}: the lease of acquisitions without a fixed one ({@link Locked}
   * methods without {@link Locked#lease()} among them), renewed by the watchdog every third of it.
   * Default 30 s.
   *
   * @return the default lease
   */
  public Duration getDefaultLease() {
    return defaultLease;
  }

  /**
   * Sets {@code relock.default-lease}; see {@link #getDefaultLease()}.
   *
   * @param defaultLease the lease; at least 1 ms (checked at startup)
   */
  public void setDefaultLease(Duration defaultLease) {
    this.defaultLease = defaultLease;
  }

  /**
   * {@code relock.clock-drift}: how much sooner than Redis the client considers a lease over,
   * covering clock rate drift between client and server. Default: unset, meaning 1% of the lease
   * plus 2 ms.
   *
   * @return the margin, or null when unset
   */
  public Duration getClockDrift() {
    return clockDrift;
  }

  /**
   * Sets {@code relock.clock-drift}; see {@link #getClockDrift()}.
   *
   * @param clockDrift the margin, zero or more (checked at startup); null for the default
   */
  public void setClockDrift(Duration clockDrift) {
    this.clockDrift = clockDrift;
  }

  /**
   * {@code relock.command-timeout}: how long one Redis command may take before it fails. Default
   * 3 s.
   *
   * @return the command timeout
   */
  public Duration getCommandTimeout() {
    return commandTimeout;
  }

  /**
   * Sets {@code relock.command-timeout}; see {@link #getCommandTimeout()}.
   *
   * @param commandTimeout the timeout; positive (checked at startup)
   */
  public void setCommandTimeout(Duration commandTimeout) {
    this.commandTimeout = commandTimeout;
  }

  /**
   * {@code relock.connect-timeout}: how long connecting to Redis may take. Default 5 s.
   *
   * @return the connect timeout
   */
  public Duration getConnectTimeout() {
    return connectTimeout;
  }

  /**
   * Sets {@code relock.connect-timeout}; see {@link #getConnectTimeout()}.
   *
   * @param connectTimeout the timeout; positive (checked at startup)
   */
  public void setConnectTimeout(Duration connectTimeout) {
    this.connectTimeout = connectTimeout;
  }

  /**
   * {@code relock.recheck-interval}: how often a waiter checks on its own when no notification
   * came, bounding the delay a lost notification can cause. Default 1 s.
   *
   * @return the interval
   */
  public Duration getRecheckInterval() {
    return recheckInterval;
  }

  /**
   * Sets {@code relock.recheck-interval}; see {@link #getRecheckInterval()}.
   *
   * @param recheckInterval the interval; positive (checked at startup)
   */
  public void setRecheckInterval(Duration recheckInterval) {
    this.recheckInterval = recheckInterval;
  }

  /**
   * {@code relock.fence-retention}: how long a lock's last fencing token is kept in Redis after
   * last use. Default 7 days.
   *
   * @return the retention
   */
  public Duration getFenceRetention() {
    return fenceRetention;
  }

  /**
   * Sets {@code relock.fence-retention}; see {@link #getFenceRetention()}.
   *
   * @param fenceRetention the retention; positive (checked at startup)
   */
  public void setFenceRetention(Duration fenceRetention) {
    this.fenceRetention = fenceRetention;
  }

  /**
   * {@code relock.driver}: the relock driver to use when several are on the class path, {@code
   * lettuce} or {@code jedis}. Default: unset, the one relock picks itself. With {@code
   * relock.redlock.nodes}, only the driver relock picks itself can be named.
   *
   * @return the driver's name, or null when unset
   */
  public String getDriver() {
    return driver;
  }

  /**
   * Sets {@code relock.driver}; see {@link #getDriver()}.
   *
   * @param driver the name of a driver on the class path (checked at startup); null or blank for
   *     relock's own choice
   */
  public void setDriver(String driver) {
    this.driver = driver;
  }

  /**
   * The {@code relock.replica-acks.*} settings.
   *
   * @return the settings object, never null
   */
  public ReplicaAcks getReplicaAcks() {
    return replicaAcks;
  }

  /**
   * The {@code relock.redlock.*} settings.
   *
   * @return the settings object, never null
   */
  public Redlock getRedlock() {
    return redlock;
  }

  /**
   * The {@code relock.locked.*} settings.
   *
   * @return the settings object, never null
   */
  public LockedMethods getLocked() {
    return locked;
  }

  /**
   * The {@code relock.metrics.*} settings.
   *
   * @return the settings object, never null
   */
  public Metrics getMetrics() {
    return metrics;
  }

  /**
   * The {@code relock.observations.*} settings.
   *
   * @return the settings object, never null
   */
  public Observations getObservations() {
    return observations;
  }

  /** Waiting for replicas to acknowledge each acquisition (Redis's WAIT), narrowing the failover hole. */
  public static class ReplicaAcks {

    /** The defaults of {@code relock.replica-acks.*}, bound by Spring Boot. */
    public ReplicaAcks() {}


    /** Replicas that must acknowledge an acquisition before it counts; 0 turns it off. */
    private int replicas;

    /** How long Redis waits for those acknowledgements; shorter than the command timeout. */
    private Duration timeout = Duration.ofMillis(500);

    /**
     * {@code relock.replica-acks.replicas}: how many replicas must acknowledge an acquisition
     * (Redis's {@code WAIT}) before it counts. Default 0: off. Not with {@code
     * relock.redlock.nodes}.
     *
     * @return the number of replicas; 0 when off
     */
    public int getReplicas() {
      return replicas;
    }

    /**
     * Sets {@code relock.replica-acks.replicas}; see {@link #getReplicas()}.
     *
     * @param replicas the number of replicas, 0 (off) or more (checked at startup)
     */
    public void setReplicas(int replicas) {
      this.replicas = replicas;
    }

    /**
     * {@code relock.replica-acks.timeout}: how long Redis waits for the replicas' acknowledgements;
     * used only when {@code relock.replica-acks.replicas} is above 0. Default 500 ms.
     *
     * @return the timeout
     */
    public Duration getTimeout() {
      return timeout;
    }

    /**
     * Sets {@code relock.replica-acks.timeout}; see {@link #getTimeout()}.
     *
     * @param timeout the timeout; positive and shorter than {@code relock.command-timeout} (checked
     *     at startup when replicas are asked for)
     */
    public void setTimeout(Duration timeout) {
      this.timeout = timeout;
    }
  }

  /** The Redlock algorithm over independent masters, instead of spring.data.redis. */
  public static class Redlock {

    /** The defaults of {@code relock.redlock.*}, bound by Spring Boot. */
    public Redlock() {}


    /**
     * The masters (redis:// or rediss:// URIs), an odd number of at least three. When set,
     * spring.data.redis is not used for locks.
     */
    private List<String> nodes = new ArrayList<>();

    /**
     * How long a master that lost its data stays out of every majority. Default: twice the default
     * lease.
     */
    private Duration restartDelay;

    /**
     * {@code relock.redlock.nodes}: the independent masters of the Redlock algorithm, as {@code
     * redis://} or {@code rediss://} URIs. When set, locks do not use {@code spring.data.redis}.
     * Default: empty.
     *
     * @return the masters' URIs; empty when Redlock is not used
     */
    public List<String> getNodes() {
      return nodes;
    }

    /**
     * Sets {@code relock.redlock.nodes}; see {@link #getNodes()}.
     *
     * @param nodes the masters' URIs, an odd number of at least three (checked at startup); empty
     *     to use {@code spring.data.redis}
     */
    public void setNodes(List<String> nodes) {
      this.nodes = nodes;
    }

    /**
     * {@code relock.redlock.restart-delay}: how long a master that lost its data stays out of
     * every majority. Default: unset, meaning twice {@code relock.default-lease}.
     *
     * @return the delay, or null when unset
     */
    public Duration getRestartDelay() {
      return restartDelay;
    }

    /**
     * Sets {@code relock.redlock.restart-delay}; see {@link #getRestartDelay()}.
     *
     * @param restartDelay the delay; positive, and only together with {@code relock.redlock.nodes}
     *     (checked at startup); null for the default
     */
    public void setRestartDelay(Duration restartDelay) {
      this.restartDelay = restartDelay;
    }
  }

  /** Settings of @Locked methods. */
  public static class LockedMethods {

    /** The defaults of {@code relock.locked.*}, bound by Spring Boot. */
    public LockedMethods() {}


    /** How @Locked methods without their own onLost report a lease lost while they ran. */
    private Locked.OnLost onLost = Locked.OnLost.LOG;

    /**
     * {@code relock.locked.on-lost}: how {@link Locked} methods whose {@link Locked#onLost()} is
     * {@link Locked.OnLost#DEFAULT} report a lease lost while they ran. Default {@link
     * Locked.OnLost#LOG}.
     *
     * @return the application-wide choice
     */
    public Locked.OnLost getOnLost() {
      return onLost;
    }

    /**
     * Sets {@code relock.locked.on-lost}; see {@link #getOnLost()}.
     *
     * @param onLost how a lost lease is reported
     */
    public void setOnLost(Locked.OnLost onLost) {
      this.onLost = onLost;
    }
  }

  /** Settings of the Micrometer meters. */
  public static class Metrics {

    /** The defaults of {@code relock.metrics.*}, bound by Spring Boot. */
    public Metrics() {}


    /**
     * A regular expression over lock names: names it matches entirely tag the per-lock meters with
     * lock=its first group (or the whole name), the rest with lock=other. Unset: no lock tag. Keep
     * the values few, each is a time series.
     */
    private String lockNamePattern;

    /**
     * {@code relock.metrics.lock-name-pattern}: a regular expression over lock names that adds a
     * {@code lock} tag to the per-lock meters: a name it matches entirely is tagged with its first
     * group (or the whole name), any other with {@code other}. Default: unset, no {@code lock}
     * tag. Keep the values few: each is a time series.
     *
     * @return the pattern, or null when unset
     */
    public String getLockNamePattern() {
      return lockNamePattern;
    }

    /**
     * Sets {@code relock.metrics.lock-name-pattern}; see {@link #getLockNamePattern()}.
     *
     * @param lockNamePattern a {@link java.util.regex.Pattern} expression (checked at startup);
     *     null or empty for no {@code lock} tag
     */
    public void setLockNamePattern(String lockNamePattern) {
      this.lockNamePattern = lockNamePattern;
    }
  }

  /** Settings of the Micrometer Observations of lock waits and holds. */
  public static class Observations {

    /** The defaults of {@code relock.observations.*}, bound by Spring Boot. */
    public Observations() {}

    /**
     * Whether lock waits and holds are observed (relock.lock.wait, relock.lock.hold) when the
     * application has an ObservationRegistry.
     */
    private boolean enabled = true;

    /**
     * {@code relock.observations.enabled}: whether lock waits and holds are observed ({@code
     * relock.lock.wait}, {@code relock.lock.hold}) when the application has an {@code
     * ObservationRegistry}. Default: true.
     *
     * @return whether they are observed
     */
    public boolean isEnabled() {
      return enabled;
    }

    /**
     * Sets {@code relock.observations.enabled}; see {@link #isEnabled()}.
     *
     * @param enabled {@code false} to observe nothing
     */
    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }
  }
}

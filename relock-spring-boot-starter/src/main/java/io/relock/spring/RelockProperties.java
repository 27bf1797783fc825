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

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public String getKeyPrefix() {
    return keyPrefix;
  }

  public void setKeyPrefix(String keyPrefix) {
    this.keyPrefix = keyPrefix;
  }

  public Duration getDefaultLease() {
    return defaultLease;
  }

  public void setDefaultLease(Duration defaultLease) {
    this.defaultLease = defaultLease;
  }

  public Duration getClockDrift() {
    return clockDrift;
  }

  public void setClockDrift(Duration clockDrift) {
    this.clockDrift = clockDrift;
  }

  public Duration getCommandTimeout() {
    return commandTimeout;
  }

  public void setCommandTimeout(Duration commandTimeout) {
    this.commandTimeout = commandTimeout;
  }

  public Duration getConnectTimeout() {
    return connectTimeout;
  }

  public void setConnectTimeout(Duration connectTimeout) {
    this.connectTimeout = connectTimeout;
  }

  public Duration getRecheckInterval() {
    return recheckInterval;
  }

  public void setRecheckInterval(Duration recheckInterval) {
    this.recheckInterval = recheckInterval;
  }

  public Duration getFenceRetention() {
    return fenceRetention;
  }

  public void setFenceRetention(Duration fenceRetention) {
    this.fenceRetention = fenceRetention;
  }

  public String getDriver() {
    return driver;
  }

  public void setDriver(String driver) {
    this.driver = driver;
  }

  public ReplicaAcks getReplicaAcks() {
    return replicaAcks;
  }

  public Redlock getRedlock() {
    return redlock;
  }

  public LockedMethods getLocked() {
    return locked;
  }

  public Metrics getMetrics() {
    return metrics;
  }

  /** Waiting for replicas to acknowledge each acquisition (Redis's WAIT), narrowing the failover hole. */
  public static class ReplicaAcks {

    /** Replicas that must acknowledge an acquisition before it counts; 0 turns it off. */
    private int replicas;

    /** How long Redis waits for those acknowledgements; shorter than the command timeout. */
    private Duration timeout = Duration.ofMillis(500);

    public int getReplicas() {
      return replicas;
    }

    public void setReplicas(int replicas) {
      this.replicas = replicas;
    }

    public Duration getTimeout() {
      return timeout;
    }

    public void setTimeout(Duration timeout) {
      this.timeout = timeout;
    }
  }

  /** The Redlock algorithm over independent masters, instead of spring.data.redis. */
  public static class Redlock {

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

    public List<String> getNodes() {
      return nodes;
    }

    public void setNodes(List<String> nodes) {
      this.nodes = nodes;
    }

    public Duration getRestartDelay() {
      return restartDelay;
    }

    public void setRestartDelay(Duration restartDelay) {
      this.restartDelay = restartDelay;
    }
  }

  /** Settings of @Locked methods. */
  public static class LockedMethods {

    /** How @Locked methods without their own onLost report a lease lost while they ran. */
    private Locked.OnLost onLost = Locked.OnLost.LOG;

    public Locked.OnLost getOnLost() {
      return onLost;
    }

    public void setOnLost(Locked.OnLost onLost) {
      this.onLost = onLost;
    }
  }

  /** Settings of the Micrometer meters. */
  public static class Metrics {

    /**
     * A regular expression over lock names: names it matches entirely tag the per-lock meters with
     * lock=its first group (or the whole name), the rest with lock=other. Unset: no lock tag. Keep
     * the values few, each is a time series.
     */
    private String lockNamePattern;

    public String getLockNamePattern() {
      return lockNamePattern;
    }

    public void setLockNamePattern(String lockNamePattern) {
      this.lockNamePattern = lockNamePattern;
    }
  }
}

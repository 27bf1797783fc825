package io.relock.spi;

/**
 * Creates drivers from URIs. Implementations are found with {@link java.util.ServiceLoader}
 * (register the class in {@code META-INF/services/io.relock.spi.RedisDriverFactory}), so {@code
 * Relock.connect(uri)} works as soon as a driver jar is on the class path. With several drivers on
 * the class path, the system property {@code relock.driver} picks one by {@link #name()}.
 */
public interface RedisDriverFactory {

  /**
   * A short name such as {@code lettuce} or {@code jedis}.
   *
   * @return the name the system property {@code relock.driver} picks this driver by
   */
  String name();

  /**
   * Connects to the Redis server named by {@code uri} ({@code redis://} or {@code rediss://},
   * optionally with {@code user:password@}). Connection failures throw; the message must not
   * contain the password.
   *
   * @param uri the server's URI
   * @param settings the timeouts and client name to use
   * @return a connected driver; the caller closes it
   */
  RedisDriver connect(String uri, DriverSettings settings);

  /**
   * Connects to {@code target}. The default handles {@link RedisTarget.Kind#SINGLE} through
   * {@link #connect(String, DriverSettings)} and refuses the other kinds.
   *
   * @param target the server, Sentinel-managed primary or cluster to connect to
   * @param settings the timeouts and client name to use
   * @return a connected driver; the caller closes it
   * @throws UnsupportedOperationException if this driver cannot connect to such a topology; the
   *     message says why
   */
  default RedisDriver connect(RedisTarget target, DriverSettings settings) {
    if (target.kind() == RedisTarget.Kind.SINGLE) {
      return connect(target.nodes().get(0), settings);
    }
    throw new UnsupportedOperationException("the " + name() + " driver does not support " + target.kind()
        + " topologies");
  }
}

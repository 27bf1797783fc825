package io.relock.internal;

import io.relock.RelockException;
import io.relock.spi.DriverSettings;
import io.relock.spi.RedisDriver;
import io.relock.spi.RedisDriverFactory;
import io.relock.spi.RedisTarget;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/** Finds a {@link RedisDriverFactory} on the class path and connects through it. */
public final class DriverLoader {
  /** System property naming the driver to use when several are on the class path. */
  public static final String DRIVER_PROPERTY = "relock.driver";

  private DriverLoader() {}

  /**
   * Connects to {@code target} through the driver found on the class path.
   *
   * @throws UnsupportedOperationException if that driver cannot connect to such a topology
   * @throws RelockException if no driver is found or the connection fails
   */
  public static RedisDriver connect(RedisTarget target, RelockSettings settings) {
    RedisDriverFactory factory = pick();
    DriverSettings ds =
        new DriverSettings(settings.commandTimeout(), settings.connectTimeout(), "relock");
    try {
      return factory.connect(target, ds);
    } catch (UnsupportedOperationException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new RelockException("could not connect to " + target + " with the "
          + factory.name() + " driver: " + target.redact(String.valueOf(e.getMessage())), e);
    }
  }

  static RedisDriverFactory pick() {
    List<RedisDriverFactory> found = new ArrayList<>();
    ServiceLoader.load(RedisDriverFactory.class).forEach(found::add);
    if (found.isEmpty()) {
      throw new RelockException("no relock driver on the class path: add io.relock:relock-lettuce"
          + " (or another driver) as a dependency, or pass one to Relock.builder().driver(...)");
    }
    String wanted = System.getProperty(DRIVER_PROPERTY);
    if (wanted == null) {
      return found.get(0);
    }
    for (RedisDriverFactory f : found) {
      if (f.name().equals(wanted)) {
        return f;
      }
    }
    List<String> names = found.stream().map(RedisDriverFactory::name).toList();
    throw new RelockException(
        "driver '" + wanted + "' named by -D" + DRIVER_PROPERTY + " is not on the class path; found " + names);
  }
}

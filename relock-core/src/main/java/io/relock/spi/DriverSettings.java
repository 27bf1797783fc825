package io.relock.spi;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings core hands to a driver when it connects.
 *
 * @param commandTimeout how long one command may take before the driver fails it
 * @param connectTimeout how long establishing a connection may take
 * @param clientName the name to give the connections ({@code CLIENT SETNAME}), for operators
 */
public record DriverSettings(Duration commandTimeout, Duration connectTimeout, String clientName) {
  /**
   * Checks that no component is null.
   *
   * @param commandTimeout how long one command may take before the driver fails it
   * @param connectTimeout how long establishing a connection may take
   * @param clientName the name to give the connections
   * @throws NullPointerException if a component is null
   */
  public DriverSettings {
    Objects.requireNonNull(commandTimeout, "commandTimeout");
    Objects.requireNonNull(connectTimeout, "connectTimeout");
    Objects.requireNonNull(clientName, "clientName");
  }
}

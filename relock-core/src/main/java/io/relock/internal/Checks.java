package io.relock.internal;

import io.relock.spi.RedisUri;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;

/** Argument checks shared by the API: each fails fast with a message naming the bad value. */
public final class Checks {
  /** Longest lock name accepted, in UTF-8 bytes. */
  public static final int MAX_NAME_BYTES = 1024;

  private static final int MAX_PREFIX_BYTES = 256;

  private Checks() {}

  public static String lockName(String name) {
    Objects.requireNonNull(name, "lock name must not be null");
    if (name.isBlank()) {
      throw new IllegalArgumentException("lock name must not be empty or blank: '" + name + "'");
    }
    int bytes = name.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_NAME_BYTES) {
      throw new IllegalArgumentException("lock name is " + bytes + " UTF-8 bytes, over the limit of "
          + MAX_NAME_BYTES + ": '" + abbreviate(name) + "'");
    }
    return name;
  }

  public static String keyPrefix(String prefix) {
    Objects.requireNonNull(prefix, "keyPrefix must not be null");
    int bytes = prefix.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_PREFIX_BYTES) {
      throw new IllegalArgumentException("keyPrefix is " + bytes + " UTF-8 bytes, over the limit of "
          + MAX_PREFIX_BYTES + ": '" + abbreviate(prefix) + "'");
    }
    if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
      // A lock key's hash tag is the name's; a brace in the prefix would change the key's Redis
      // Cluster slot and the closing brace the scripts find a lock's own keys by.
      throw new IllegalArgumentException("keyPrefix must not contain '{' or '}' (the lock name's hash tag follows it): '"
          + abbreviate(prefix) + "'");
    }
    return prefix;
  }

  /** A lease: at least one millisecond. */
  public static Duration lease(String what, Duration lease) {
    Objects.requireNonNull(lease, what + " must not be null");
    if (lease.isNegative() || lease.isZero() || lease.compareTo(Duration.ofMillis(1)) < 0) {
      throw new IllegalArgumentException(what + " must be at least 1 ms, was " + lease);
    }
    return lease;
  }

  /** A wait: zero (no waiting) or positive. */
  public static Duration waitTime(Duration wait) {
    return nonNegative("wait", wait);
  }

  public static Duration nonNegative(String what, Duration d) {
    Objects.requireNonNull(d, what + " must not be null");
    if (d.isNegative()) {
      throw new IllegalArgumentException(what + " must not be negative, was " + d);
    }
    return d;
  }

  public static Duration positive(String what, Duration d) {
    Objects.requireNonNull(d, what + " must not be null");
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(what + " must be positive, was " + d);
    }
    return d;
  }

  /**
   * A {@code redis://} or {@code rediss://} URI, parsed.
   *
   * @throws IllegalArgumentException if {@link RedisUri} cannot read it; the message names it,
   *     password hidden
   */
  public static RedisUri redisUri(String uri) {
    Objects.requireNonNull(uri, "redisUri must not be null");
    return RedisUri.parse(uri);
  }

  private static String abbreviate(String s) {
    return s.length() <= 40 ? s : s.substring(0, 40) + "...";
  }
}

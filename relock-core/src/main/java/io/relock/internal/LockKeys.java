package io.relock.internal;

/**
 * The Redis key of one lock. Its name is the hash tag {@code {name}}; the scripts name the lock's
 * other keys after it ({@code <lock>:fence}, {@code <lock>:q}, {@code <lock>:qi}: see handoff.lua),
 * so that one lock's keys live in one Redis Cluster slot. Braces and percent signs in the name are
 * percent-encoded, so that the tag always covers the whole name and distinct names never share
 * keys.
 *
 * @param name the lock name
 * @param lock the lock: a string of owner, token, hold count, expiry and more (see lockvalue.lua),
 *     expiring with the lease
 */
public record LockKeys(String name, String lock) {

  public static LockKeys of(String prefix, String name) {
    return new LockKeys(name, prefix + "{" + encode(name) + "}");
  }

  /** The keys of the lock stored at {@code lockKey}, as named in a grant notification. */
  static LockKeys ofLockKey(String name, String lockKey) {
    return new LockKeys(name, lockKey);
  }

  static String encode(String name) {
    if (name.indexOf('{') < 0 && name.indexOf('}') < 0 && name.indexOf('%') < 0) {
      return name;
    }
    return name.replace("%", "%25").replace("{", "%7B").replace("}", "%7D");
  }
}

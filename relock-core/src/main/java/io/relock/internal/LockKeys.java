package io.relock.internal;

/**
 * The Redis key of one lock. Its hash tag is the name ({@code relock:{name}}), or, for a name that
 * has a hash tag of its own as Redis reads one ({@code {t}} with {@code t} not empty, the first
 * {@code {} and the first {@code }} after it), that tag ({@code relock:{t}{name}}): names with the
 * same tag then share a Redis Cluster slot, so that a multi-lock of them is taken in one call. The
 * scripts name the lock's other keys after it ({@code <lock>:fence}, {@code <lock>:q}, {@code
 * <lock>:qi}: see handoff.lua), so one lock's keys live in one slot. Braces and percent signs of
 * the name are percent-encoded inside the braces, so that distinct names never share keys and a
 * lock key always ends with {@code }} (its other keys never do).
 *
 * @param name the lock name
 * @param lock the lock: a string of owner, token, hold count, expiry and more (see lockvalue.lua),
 *     expiring with the lease
 */
public record LockKeys(String name, String lock) {

  public static LockKeys of(String prefix, String name) {
    String tag = hashTag(name);
    String encoded = "{" + encode(name) + "}";
    return new LockKeys(name, tag == null ? prefix + encoded : prefix + "{" + encode(tag) + "}" + encoded);
  }

  /** The keys of the lock stored at {@code lockKey}, as named in a grant notification. */
  static LockKeys ofLockKey(String name, String lockKey) {
    return new LockKeys(name, lockKey);
  }

  /** The hash tag {@code name} has of its own, as Redis would read it in a key; null if none. */
  static String hashTag(String name) {
    int open = name.indexOf('{');
    if (open < 0) {
      return null;
    }
    int close = name.indexOf('}', open + 1);
    return close > open + 1 ? name.substring(open + 1, close) : null;
  }

  static String encode(String name) {
    if (name.indexOf('{') < 0 && name.indexOf('}') < 0 && name.indexOf('%') < 0) {
      return name;
    }
    return name.replace("%", "%25").replace("{", "%7B").replace("}", "%7D");
  }
}

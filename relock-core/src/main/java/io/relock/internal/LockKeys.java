package io.relock.internal;

import java.util.List;

/**
 * The Redis keys of one lock. All share the hash tag {@code {name}}, so one lock's keys live in
 * one Redis Cluster slot. Braces and percent signs in the name are percent-encoded, so that the
 * tag always covers the whole name and distinct names never share keys.
 *
 * @param name the lock name
 * @param lock hash {o: owner, c: hold count, t: fencing token}, expiring with the lease
 * @param fence the last fencing token issued for the name, kept for the fence retention
 * @param queue sorted set of waiting owners by arrival
 * @param waiters hash owner -> "expires lease claim channel" of each waiting owner
 */
public record LockKeys(String name, String lock, String fence, String queue, String waiters) {

  public static LockKeys of(String prefix, String name) {
    return ofLockKey(name, prefix + "{" + encode(name) + "}");
  }

  /** The keys of the lock stored at {@code lockKey}, as named in a grant notification. */
  static LockKeys ofLockKey(String name, String lockKey) {
    return new LockKeys(name, lockKey, lockKey + ":fence", lockKey + ":q", lockKey + ":qi");
  }

  static String encode(String name) {
    if (name.indexOf('{') < 0 && name.indexOf('}') < 0 && name.indexOf('%') < 0) {
      return name;
    }
    return name.replace("%", "%25").replace("{", "%7B").replace("}", "%7D");
  }

  /** The four keys in the order the scripts expect them. */
  public List<String> all() {
    return List.of(lock, fence, queue, waiters);
  }
}

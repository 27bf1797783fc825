package io.relock;

import io.relock.internal.Checks;

/**
 * The least privilege a Redis user needs to run relock (the library, the {@code relock} command
 * line, and tests on the test kit), as an ACL rule to append to {@code ACL SETUSER name on
 * >password}: for the default key prefix, {@value #RULE}. Rule by rule:
 *
 * <ul>
 *   <li>{@code resetchannels}: no pub/sub channel but those named next. Redis 7 gives a new user
 *       none; Redis 6.2 gives it every channel, and then refuses a channel pattern after that.
 *   <li>{@code ~prefix*} and {@code &prefix*}: relock's keys and pub/sub channels all start with
 *       the key prefix; nothing else is readable or writable.
 *   <li>{@code +evalsha +script|load}: every operation is one of relock's Lua scripts, called by
 *       SHA and loaded when Redis does not know it; no other way of scripting.
 *   <li>{@code +@string +@hash +@sortedset +@set +@keyspace +time}: what those scripts call (Redis
 *       checks each command a script runs against the user calling it). {@code @set} is for
 *       Redlock; {@code SCAN} ({@code @keyspace}) is for {@link Relock#list}.
 *   <li>{@code +@pubsub}: grant notifications ({@code SUBSCRIBE}, {@code PUBLISH}, and their
 *       sharded forms on a Redis 7 Cluster). {@code +@connection}: authentication, {@code HELLO},
 *       client names and {@code WAIT} for {@link Relock.Builder#replicaAcks}.
 *   <li>{@code -@dangerous}, after those: takes back what the categories bring that relock never
 *       needs and that reaches beyond its keys ({@code FLUSHALL}, {@code FLUSHDB}, {@code KEYS},
 *       {@code SWAPDB}, {@code CLIENT KILL}, ...).
 *   <li>{@code +info}: the client's check that Redis will not evict locks ({@code
 *       maxmemory-policy}) and {@link Relock#ping()}; the cluster drivers also read the server
 *       version with it. {@code +cluster|slots +cluster|nodes}: how the cluster drivers learn
 *       which node serves which slot.
 * </ul>
 *
 * <p>Without a permission, the call that needs it fails with a {@link RelockException} that says
 * which command of which script Redis refused.
 */
public final class RedisAcl {

  /** The rule for the default key prefix, {@code relock:}. */
  public static final String RULE = "resetchannels ~relock:* &relock:* +@connection +@string +@hash +@sortedset +@set +@keyspace"
      + " +@pubsub +evalsha +script|load +time -@dangerous +info +cluster|slots +cluster|nodes";

  private RedisAcl() {}

  /**
   * The rule for a client built with {@link Relock.Builder#keyPrefix(String) keyPrefix(keyPrefix)}:
   * its key and channel patterns are the prefix followed by {@code *}, with the prefix's glob
   * characters escaped.
   *
   * @param keyPrefix the key prefix the client is built with; may be empty
   * @return the ACL rule, {@link #RULE} with the key and channel patterns of {@code keyPrefix}
   * @throws NullPointerException if {@code keyPrefix} is null
   * @throws IllegalArgumentException if the prefix is not one a client accepts, or holds a space
   *     (which ends an ACL rule)
   */
  public static String rule(String keyPrefix) {
    Checks.keyPrefix(keyPrefix);
    StringBuilder pattern = new StringBuilder();
    for (char c : keyPrefix.toCharArray()) {
      if (Character.isWhitespace(c)) {
        throw new IllegalArgumentException("an ACL rule cannot name a key prefix with whitespace: '" + keyPrefix + "'");
      }
      if ("*?[]\\".indexOf(c) >= 0) {
        pattern.append('\\');
      }
      pattern.append(c);
    }
    pattern.append('*');
    return "resetchannels ~" + pattern + " &" + pattern + RULE.substring(RULE.indexOf(" +"));
  }
}

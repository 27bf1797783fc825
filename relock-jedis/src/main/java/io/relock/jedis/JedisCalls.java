package io.relock.jedis;

import io.relock.spi.RedisReplyException;
import io.relock.spi.ReplicatedReply;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisDataException;

/** The commands both Jedis drivers send, and their replies as the SPI wants them. */
final class JedisCalls {
  private JedisCalls() {}

  static CommandArguments evalSha(String sha1, List<String> keys, List<String> args) {
    return new CommandArguments(Protocol.Command.EVALSHA).add(sha1).add(keys.size()).addObjects(keys).addObjects(args);
  }

  static CommandArguments scriptLoad(String script) {
    return new CommandArguments(Protocol.Command.SCRIPT).add(Protocol.Keyword.LOAD).add(script);
  }

  /**
   * {@code evalsha} and then {@code WAIT replicas timeout} on {@code c}, the socket timeout raised
   * by the WAIT's for the second. An error reply to the script is a {@link JedisDataException}
   * (the caller maps it); one to the WAIT comes as {@link IllegalStateException}, since the script
   * has run by then and a reply error would say it had not.
   */
  static ReplicatedReply evalShaThenWait(Connection c, CommandArguments evalsha, int replicas, Duration timeout) {
    long waitMillis = Math.max(1, timeout.toMillis()); // WAIT's 0 would mean forever
    CommandArguments wait = new CommandArguments(Protocol.Command.WAIT).add(replicas).add(waitMillis);
    List<Object> reply = scriptReply(c.executeCommand(evalsha));
    int socketTimeout = c.getSoTimeout();
    Object acknowledged;
    try {
      if (socketTimeout > 0) {
        c.setSoTimeout((int) Math.min(Integer.MAX_VALUE, socketTimeout + waitMillis));
        try {
          acknowledged = c.executeCommand(wait);
        } finally {
          restoreTimeout(c, socketTimeout);
        }
      } else {
        acknowledged = c.executeCommand(wait);
      }
    } catch (JedisDataException e) {
      throw new IllegalStateException("WAIT failed after the script ran: " + e.getMessage(), e);
    }
    if (!(acknowledged instanceof Long count)) {
      throw new IllegalStateException("unexpected answer to WAIT: " + value(acknowledged));
    }
    return new ReplicatedReply(reply, count);
  }

  /** Puts a connection's socket timeout back; one that cannot take it is not reused. */
  private static void restoreTimeout(Connection c, int socketTimeout) {
    try {
      c.setSoTimeout(socketTimeout);
    } catch (RuntimeException e) {
      c.setBroken(); // a closed socket: the pool drops it
    }
  }

  /** EVALSHA's reply as the SPI wants it: a list of Long, String, null and nested lists. */
  @SuppressWarnings("unchecked")
  static List<Object> scriptReply(Object reply) {
    Object converted = value(reply);
    if (converted instanceof List<?> list) {
      return (List<Object>) list;
    }
    List<Object> single = new ArrayList<>(1);
    single.add(converted);
    return single;
  }

  /** Jedis's raw RESP2 values (byte[] for bulk and status strings) converted to the SPI's types. */
  static Object value(Object raw) {
    if (raw == null || raw instanceof Long) {
      return raw;
    }
    if (raw instanceof byte[] bytes) {
      return new String(bytes, StandardCharsets.UTF_8);
    }
    if (raw instanceof List<?> list) {
      List<Object> converted = new ArrayList<>(list.size());
      for (Object element : list) {
        converted.add(value(element));
      }
      return converted;
    }
    if (raw instanceof JedisDataException error) {
      // An error reply inside an array; relock's scripts never return one, so fail the call.
      throw new RedisReplyException(error.getMessage(), error);
    }
    if (raw instanceof String s) {
      return s;
    }
    throw new IllegalStateException("unexpected reply element of type " + raw.getClass().getName());
  }
}

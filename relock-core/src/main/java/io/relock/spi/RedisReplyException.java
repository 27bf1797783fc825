package io.relock.spi;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Redis answered a command with an error reply; the message is the reply text, as Redis 7 words it
 * (see {@link #unwrapScriptError}).
 */
public class RedisReplyException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Redis 6.2's wrapping of an error reply met by a script's {@code redis.call}. */
  private static final Pattern WRAPPED =
      Pattern.compile("ERR Error running script \\(call to f_([0-9a-f]+)\\): @user_script:(\\d+): @user_script: \\d+: -(.*)",
          Pattern.DOTALL);

  /**
   * Creates the exception for an error reply.
   *
   * @param reply the error reply's text, as the driver received it; its message is that text as
   *     {@link #unwrapScriptError} gives it
   */
  public RedisReplyException(String reply) {
    super(unwrapScriptError(reply));
  }

  /**
   * Creates the exception for an error reply, with the client library's exception that carried it.
   *
   * @param reply the error reply's text, as the driver received it; its message is that text as
   *     {@link #unwrapScriptError} gives it
   * @param cause the client library's exception for the reply
   */
  public RedisReplyException(String reply, Throwable cause) {
    super(unwrapScriptError(reply), cause);
  }

  /**
   * Whether Redis did not know the script SHA (after SCRIPT FLUSH, a restart or a failover).
   *
   * @return true if the message starts with {@code NOSCRIPT}
   */
  public boolean isNoScript() {
    String m = getMessage();
    return m != null && m.startsWith("NOSCRIPT");
  }

  /**
   * An error reply as Redis 7 words it, so that its first word says what went wrong on every
   * server. A script's {@code redis.call} that meets an error reply ({@code READONLY} on a demoted
   * primary, say) fails the script with that reply; Redis 7 passes it on as it is, followed by
   * {@code " script: <sha>, on @user_script:<line>."}, but Redis 6.2 wraps it in {@code "ERR Error
   * running script (call to f_<sha>): @user_script:<line>: @user_script: <line>: -READONLY ..."},
   * which hides it behind {@code ERR}. This turns the second form into the first; any other reply
   * (and null) is returned as it is.
   *
   * @param reply an error reply's text; may be null
   * @return the reply as Redis 7 words it, or {@code reply} itself if it is not Redis 6.2's wrapping
   */
  public static String unwrapScriptError(String reply) {
    if (reply == null || !reply.startsWith("ERR Error running script")) {
      return reply;
    }
    Matcher m = WRAPPED.matcher(reply.strip());
    if (!m.matches()) {
      return reply;
    }
    return m.group(3) + " script: " + m.group(1) + ", on @user_script:" + m.group(2) + ".";
  }
}

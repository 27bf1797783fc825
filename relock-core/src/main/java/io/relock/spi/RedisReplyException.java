package io.relock.spi;

/** Redis answered a command with an error reply; the message is the reply text. */
public class RedisReplyException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public RedisReplyException(String reply) {
    super(reply);
  }

  public RedisReplyException(String reply, Throwable cause) {
    super(reply, cause);
  }

  /** Whether Redis did not know the script SHA (after SCRIPT FLUSH, a restart or a failover). */
  public boolean isNoScript() {
    String m = getMessage();
    return m != null && m.startsWith("NOSCRIPT");
  }
}

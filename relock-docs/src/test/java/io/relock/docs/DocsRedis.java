package io.relock.docs;

import io.relock.testkit.RedisServer;

/**
 * The one redis-server the snippets of a test JVM share, started on first use and killed by the
 * test kit when the JVM exits. Each snippet uses lock names of its own, so they need no cleanup.
 */
final class DocsRedis {

  private static RedisServer server;

  private DocsRedis() {}

  static synchronized RedisServer server() {
    if (server == null) {
      server = RedisServer.start();
    }
    return server;
  }

  /** Where the snippets connect: {@code redis://127.0.0.1:<port>}. */
  static String uri() {
    return server().uri();
  }
}

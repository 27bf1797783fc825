package io.relock.spring;

import io.relock.testkit.Await;
import io.relock.testkit.RedisServer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Applications for the tests: relock's auto-configuration on a test kit Redis. */
final class Apps {

  private Apps() {}

  /** An application with the Relock bean and @Locked support, on {@code server}. */
  static ApplicationContextRunner on(RedisServer server) {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(RelockAutoConfiguration.class, LockedAutoConfiguration.class))
        .withPropertyValues("spring.data.redis.url=" + server.uri());
  }

  /** Waits for {@code latch} (generously); an AssertionError if it does not open. */
  static void await(CountDownLatch latch, String what) {
    try {
      if (!latch.await(Await.GENEROUS.toSeconds(), TimeUnit.SECONDS)) {
        throw new AssertionError("not within " + Await.GENEROUS + ": " + what);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted waiting for: " + what, e);
    }
  }

  /** Whether Redis holds the lock {@code name} under the default prefix. */
  static boolean isLockedInRedis(RedisServer server, String name) {
    return Long.valueOf(1).equals(server.execute("EXISTS", "relock:{" + name + "}"));
  }

  /** How many waiters Redis has queued for the lock {@code name}. */
  static long queued(RedisServer server, String name) {
    return (Long) server.execute("ZCARD", "relock:{" + name + "}:q");
  }
}

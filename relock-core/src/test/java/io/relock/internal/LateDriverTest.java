package io.relock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.spi.RedisDriver;
import io.relock.testkit.RedisExtension;
import io.relock.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Redlock master that was unreachable when the client was built ({@link LateDriver}) must, once
 * connected, have its calls bounded the way its driver says. The Jedis driver bounds its own
 * calls and fails one only when it can no longer reach Redis; a timeout of core's own on top of
 * it failed calls the driver still sent, so that a give-back could overtake the attempt it gave
 * back on another connection and leave the lock taken on that master for nobody (the Redlock
 * stress run on Jedis, whose clients are often built while a master is paused).
 */
class LateDriverTest {
  @RegisterExtension static final RedisExtension redis = new RedisExtension();
  private static final Duration PATIENCE = Duration.ofSeconds(20);

  @Test
  void onceConnected_aDriverThatBoundsItsOwnCalls_getsNoTimeoutOfCoresOnTop(RedisServer server) throws Exception {
    SlowDriver slow = new SlowDriver(server);
    LateDriver late = new LateDriver("master", () -> slow, "not reachable when the client was built");
    try {
      ScriptRunner runner = new ScriptRunner(late, Duration.ofMillis(1), "master");
      long deadline = System.nanoTime() + PATIENCE.toNanos();
      while (late.scriptLoad("return 1").isCompletedExceptionally()) { // until it has connected (every second)
        assertThat(System.nanoTime() - deadline).as("connected within " + PATIENCE).isNegative();
        java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
      }

      server.execute("SCRIPT", "LOAD", Scripts.REDLOCK_INSPECT.source());
      CompletableFuture<List<Object>> call = runner.run(Scripts.REDLOCK_INSPECT, List.of("relock:{x}"), List.of(), "x");
      // A timer of core's for the call (1 ms) would have fired by the time one set after it has.
      CompletableFuture<Void> later = new CompletableFuture<Void>().orTimeout(1, TimeUnit.MILLISECONDS);
      assertThat(later).failsWithin(PATIENCE).withThrowableOfType(java.util.concurrent.ExecutionException.class)
          .withCauseInstanceOf(TimeoutException.class);
      assertThat(call).as("the call, which the driver has not answered yet").isNotDone();

      slow.answer();
      assertThat(call.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).containsExactly("", 0L, 0L, -2L);
    } finally {
      late.close();
    }
  }

  /**
   * A driver that bounds its calls itself, on a real Redis: each call runs there when it is made,
   * and its reply is passed on when the test says (as from a slow connection).
   */
  private static final class SlowDriver implements RedisDriver {
    private final RedisServer server;
    private final CompletableFuture<Void> released = new CompletableFuture<>();

    SlowDriver(RedisServer server) {
      this.server = server;
    }

    void answer() {
      released.complete(null);
    }

    @Override
    @SuppressWarnings("unchecked")
    public CompletableFuture<List<Object>> evalSha(String sha1, List<String> keys, List<String> args) {
      List<String> command = new ArrayList<>(List.of("EVALSHA", sha1, Integer.toString(keys.size())));
      command.addAll(keys);
      command.addAll(args);
      List<Object> reply = (List<Object>) server.execute(command.toArray(new String[0]));
      return released.thenApply(v -> reply);
    }

    @Override
    public CompletableFuture<String> scriptLoad(String script) {
      return CompletableFuture.completedFuture((String) server.execute("SCRIPT", "LOAD", script));
    }

    @Override
    public CompletableFuture<Void> subscribe(String channel, Consumer<String> listener) {
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public boolean timesOutCommands() {
      return true;
    }

    @Override
    public void close() {}
  }
}

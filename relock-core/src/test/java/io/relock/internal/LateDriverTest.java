package io.relock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.spi.RedisDriver;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A Redlock master that was unreachable when the client was built ({@link LateDriver}) must, once
 * connected, have its calls bounded the way its driver says. The Jedis driver bounds its own
 * calls and fails one only when it can no longer reach Redis; a timeout of core's own on top of
 * it failed calls the driver still sent, so that a give-back could overtake the attempt it gave
 * back on another connection and leave the lock taken on that master for nobody (the Redlock
 * stress run on Jedis, whose clients are often built while a master is paused).
 */
class LateDriverTest {
  private static final Duration PATIENCE = Duration.ofSeconds(20);

  @Test
  void onceConnected_aDriverThatBoundsItsOwnCalls_getsNoTimeoutOfCoresOnTop() throws Exception {
    SlowDriver slow = new SlowDriver();
    LateDriver late = new LateDriver("master", () -> slow, "not reachable when the client was built");
    try {
      ScriptRunner runner = new ScriptRunner(late, Duration.ofMillis(1), "master");
      long deadline = System.nanoTime() + PATIENCE.toNanos();
      while (late.scriptLoad("return 1").isCompletedExceptionally()) { // until it has connected (every second)
        assertThat(System.nanoTime() - deadline).as("connected within " + PATIENCE).isNegative();
        java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
      }

      CompletableFuture<List<Object>> call = runner.run(Scripts.REDLOCK_INSPECT, List.of("relock:{x}"), List.of(), "x");
      // A timer of core's for the call (1 ms) would have fired by the time one set after it has.
      CompletableFuture<Void> later = new CompletableFuture<Void>().orTimeout(1, TimeUnit.MILLISECONDS);
      assertThat(later).failsWithin(PATIENCE).withThrowableOfType(java.util.concurrent.ExecutionException.class)
          .withCauseInstanceOf(TimeoutException.class);
      assertThat(call).as("the call, which the driver has not answered yet").isNotDone();

      slow.reply.complete(List.of("", 0L, 0L, -2L));
      assertThat(call.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).containsExactly("", 0L, 0L, -2L);
    } finally {
      late.close();
    }
  }

  /** A driver that bounds its calls itself; its one script call is answered when the test says. */
  private static final class SlowDriver implements RedisDriver {
    final CompletableFuture<List<Object>> reply = new CompletableFuture<>();

    @Override
    public CompletableFuture<List<Object>> evalSha(String sha1, List<String> keys, List<String> args) {
      return reply;
    }

    @Override
    public CompletableFuture<String> scriptLoad(String script) {
      return CompletableFuture.completedFuture(LuaScript.sha1Hex(script));
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

package io.relock.jedis;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.spi.CommandNotSentException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The deadline of a call that waits for a worker: it fails unsent, and never runs after that. */
class CallWorkersTest {
  private static final long PATIENCE_SECONDS = 20;

  /** A call that keeps a worker busy until {@code release}, counting {@code started} down when it begins. */
  private static CompletableFuture<String> occupy(CallWorkers workers, CountDownLatch started, CountDownLatch release) {
    CompletableFuture<String> busy = new CompletableFuture<>();
    workers.execute(() -> {
      started.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return "busy";
    }, busy);
    return busy;
  }

  @Test
  void aCallNoWorkerStartsWithinTheTimeout_failsUnsent_andNeverRuns() throws Exception {
    CallWorkers workers = new CallWorkers(1, "test", 200);
    CountDownLatch release = new CountDownLatch(1);
    CompletableFuture<String> busy = occupy(workers, new CountDownLatch(1), release);
    AtomicBoolean ran = new AtomicBoolean();
    CompletableFuture<String> queued = new CompletableFuture<>();
    workers.execute(() -> {
      ran.set(true);
      return "queued";
    }, queued);
    try {
      // Fails while the only worker is still busy: the deadline needs no worker to notice it.
      ExecutionException failure = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
          () -> queued.get(PATIENCE_SECONDS, TimeUnit.SECONDS));
      assertThat(failure.getCause()).isInstanceOf(CommandNotSentException.class).hasMessageContaining("200 ms");
      assertThat(busy).isNotDone();
    } finally {
      release.countDown();
    }
    assertThat(busy.get(PATIENCE_SECONDS, TimeUnit.SECONDS)).isEqualTo("busy");
    CompletableFuture<String> after = new CompletableFuture<>();
    workers.execute(() -> "after", after);
    assertThat(after.get(PATIENCE_SECONDS, TimeUnit.SECONDS)).as("the worker is free again").isEqualTo("after");
    assertThat(ran).as("the expired call never ran").isFalse();
    assertThat(workers.shutdownNow()).isEmpty();
  }

  @Test
  void shutdownNow_returnsTheCallsNoWorkerStarted() throws Exception {
    CallWorkers workers = new CallWorkers(1, "test", 60_000);
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    occupy(workers, started, release);
    assertThat(started.await(PATIENCE_SECONDS, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<String> queued = new CompletableFuture<>();
    workers.execute(() -> "queued", queued);
    List<QueuedCall<?>> unstarted = workers.shutdownNow();
    release.countDown();
    assertThat(unstarted).hasSize(1);
    assertThat(unstarted.get(0).future).isSameAs(queued);
  }
}

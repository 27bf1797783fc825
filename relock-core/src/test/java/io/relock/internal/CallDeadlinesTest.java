package io.relock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** {@link CallDeadlines}: a call unanswered past the timeout fails; an answered one is left as it is. */
class CallDeadlinesTest {

  private static final Duration TIMEOUT = Duration.ofMillis(200);
  private static final long GENEROUS_SECONDS = 30;

  @Test
  void aCallNeverAnswered_failsWithATimeout_andOneAnsweredInTimeKeepsItsReply() throws Exception {
    CallDeadlines deadlines = new CallDeadlines(TIMEOUT);
    CompletableFuture<String> answered = deadlines.bound(new CompletableFuture<>());
    CompletableFuture<String> silent = deadlines.bound(new CompletableFuture<>());
    answered.complete("reply");
    long began = System.nanoTime();

    Throwable failure = silent.handle((v, e) -> e).get(GENEROUS_SECONDS, TimeUnit.SECONDS);

    assertThat(failure).isInstanceOf(TimeoutException.class);
    assertThat(System.nanoTime() - began).as("not before the timeout")
        .isGreaterThanOrEqualTo(TIMEOUT.toNanos() - TimeUnit.MILLISECONDS.toNanos(50));
    assertThat(answered.get()).isEqualTo("reply");
  }

  @Test
  void callsQueuedBehindAStuckOne_eachFailAtTheirOwnDeadline_andLaterCallsStillGetBounded() throws Exception {
    CallDeadlines deadlines = new CallDeadlines(TIMEOUT);
    CompletableFuture<String> first = deadlines.bound(new CompletableFuture<>());
    CompletableFuture<String> second = deadlines.bound(new CompletableFuture<>());
    assertThat(first.handle((v, e) -> e).get(GENEROUS_SECONDS, TimeUnit.SECONDS)).isInstanceOf(TimeoutException.class);
    assertThat(second.handle((v, e) -> e).get(GENEROUS_SECONDS, TimeUnit.SECONDS)).isInstanceOf(TimeoutException.class);

    // The sweep stopped with nothing queued; a new call starts it again.
    CompletableFuture<String> later = deadlines.bound(new CompletableFuture<>());
    ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
        () -> later.get(GENEROUS_SECONDS, TimeUnit.SECONDS));
    assertThat(e.getCause()).isInstanceOf(TimeoutException.class);
  }
}

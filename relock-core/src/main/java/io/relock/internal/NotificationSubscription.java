package io.relock.internal;

import io.relock.RelockException;
import io.relock.spi.RedisDriver;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client's subscription to its notification channel. Made when the client is built: Redis
 * refusing it (an ACL that does not allow the channel) fails the build, but Redis slow to confirm
 * it (paused for a moment, a busy machine) does not. The subscription is then tried again in the
 * background, 25 ms doubling to a second apart, until Redis confirms it or the client closes;
 * meanwhile waiters learn of grants at their rechecks (every recheck interval), and once it holds
 * they re-check at once, since grants published before it held were not heard.
 *
 * <p>Every try calls {@link RedisDriver#subscribe} with the same channel and listener, which a
 * driver takes as one subscription: a try whose confirmation comes late (after a later try was
 * sent) neither subscribes twice nor delivers a message twice.
 */
final class NotificationSubscription {
  private static final Logger log = LoggerFactory.getLogger(NotificationSubscription.class);

  private final ClientTimer timer;
  private final RedisDriver driver;
  private final String channel;
  private final Consumer<String> listener;
  /** How long each try waits for Redis to confirm. */
  private final Duration wait;
  /** What to run once a subscription made in the background holds: waiters re-check. */
  private final Runnable heldAtLast;
  /** Where the client connects, for messages (passwords hidden); may be null. */
  private final String where;
  /** Hides passwords in the text of the driver's exceptions. */
  private final UnaryOperator<String> redaction;
  private volatile boolean subscribed;
  /** Whether the client went on without the subscription: once it holds, waiters re-check. */
  private volatile boolean late;

  NotificationSubscription(ClientTimer timer, RedisDriver driver, String channel, Consumer<String> listener,
      Duration wait, Runnable heldAtLast, String where, UnaryOperator<String> redaction) {
    this.where = where;
    this.redaction = redaction;
    this.timer = timer;
    this.driver = driver;
    this.channel = channel;
    this.listener = listener;
    this.wait = wait;
    this.heldAtLast = heldAtLast;
  }

  /**
   * Subscribes and waits for Redis to confirm, at most the wait given; if Redis is slow or the
   * try fails in a way that may pass, goes on in the background and returns.
   *
   * @throws RelockException if Redis refused the subscription (the message says why, passwords
   *     hidden), or the calling thread was interrupted
   */
  void subscribe() {
    CompletableFuture<Void> first = driver.subscribe(channel, listener);
    try {
      first.get(wait.toMillis(), TimeUnit.MILLISECONDS);
      subscribed = true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RelockException("interrupted while subscribing to " + channel, e);
    } catch (ExecutionException e) {
      Throwable cause = Waiting.unchecked(e.getCause());
      if (!ScriptRunner.isTransient(cause)) {
        // The cause's text says why (NOPERM for a channel the user's ACL does not allow).
        throw new RelockException("could not subscribe to notification channel " + channel
            + (where == null ? "" : " (" + where + ")") + ": " + redaction.apply(String.valueOf(cause.getMessage())), e);
      }
      log.warn("Redis did not confirm the subscription to {} ({}); trying again in the background, waiters re-check"
          + " at their recheck interval meanwhile", channel, redaction.apply(String.valueOf(cause.getMessage())));
      late = true;
      retryLater(0);
    } catch (TimeoutException e) {
      log.warn("Redis did not confirm the subscription to {} within {}; waiting on in the background, waiters re-check"
          + " at their recheck interval meanwhile", channel, wait);
      late = true;
      first.whenComplete((v, error) -> tried(error, 0));
    }
  }

  /** Subscribes in the background only (where the client's channel is not needed to start). */
  void subscribeInBackground() {
    tryOnce(0);
  }

  /** Whether Redis has confirmed the subscription. */
  boolean isSubscribed() {
    return subscribed;
  }

  private void tryOnce(int failures) {
    if (timer.isStopped()) {
      return;
    }
    CompletableFuture<Void> attempt;
    try {
      attempt = driver.subscribe(channel, listener);
    } catch (RuntimeException e) {
      attempt = CompletableFuture.failedFuture(e);
    }
    attempt.orTimeout(wait.toMillis(), TimeUnit.MILLISECONDS).whenComplete((v, error) -> tried(error, failures));
  }

  private void tried(Throwable error, int failures) {
    if (timer.isStopped()) {
      return;
    }
    if (error == null) {
      if (!subscribed) {
        subscribed = true;
        if (late) {
          log.info("subscribed to {} at last; waiters re-check now", channel);
          heldAtLast.run();
        }
      }
      return;
    }
    Throwable cause = Waiting.unchecked(error);
    if (ScriptRunner.isTransient(cause)) {
      log.debug("subscribing to {} failed again: {}", channel, redaction.apply(String.valueOf(cause.getMessage())));
      retryLater(failures);
    } else {
      log.error("Redis refused the subscription to {}: {}; nothing on it is heard (waiters re-check at their recheck"
          + " interval, renewals find forced unlocks)", channel, redaction.apply(String.valueOf(cause.getMessage())));
    }
  }

  private void retryLater(int failures) {
    timer.schedule(Retry.backoffNanos(failures), () -> tryOnce(failures + 1)); // none once closing
  }
}

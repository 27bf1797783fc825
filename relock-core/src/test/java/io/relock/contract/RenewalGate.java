package io.relock.contract;

import io.relock.internal.Scripts;
import io.relock.spi.CommandNotSentException;
import io.relock.spi.RedisDriver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A network that a test opens and shuts for the watchdog's renewals: it can refuse them (each
 * fails at once as never sent, as when Redis cannot be reached), or hold them back (each is sent
 * only when let through, as when Redis is slow); and it counts the most renewals in flight at
 * once. Every other call runs on the real driver, against the real Redis; notifications are lost.
 */
final class RenewalGate extends LostNotificationsNetwork {
  private final AtomicInteger refused = new AtomicInteger();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicInteger mostInFlight = new AtomicInteger();
  private volatile boolean refusing;
  /** Renewals held back, to be sent when let through; guarded by this. */
  private final List<Runnable> held = new ArrayList<>();
  private boolean holding;

  RenewalGate(RedisDriver real) {
    super(real);
  }

  @Override
  public CompletableFuture<List<Object>> evalSha(String sha1, List<String> keys, List<String> args) {
    if (!sha1.equals(Scripts.RENEW.sha1())) {
      return real.evalSha(sha1, keys, args);
    }
    if (refusing) {
      refused.incrementAndGet();
      return CompletableFuture.failedFuture(new CommandNotSentException("renewals refused by the test", null));
    }
    mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
    CompletableFuture<List<Object>> reply = new CompletableFuture<>();
    Runnable send = () -> real.evalSha(sha1, keys, args).whenComplete((r, e) -> {
      inFlight.decrementAndGet();
      if (e != null) {
        reply.completeExceptionally(e);
      } else {
        reply.complete(r);
      }
    });
    synchronized (this) {
      if (holding) {
        held.add(send);
        return reply;
      }
    }
    send.run();
    return reply;
  }

  /** From now on, renewals fail at once as never sent ({@code true}), or go through again. */
  void refuse(boolean refuse) {
    refusing = refuse;
  }

  /** Renewals refused so far. */
  int refused() {
    return refused.get();
  }

  /** From now on, renewals wait until {@link #letThrough}. */
  synchronized void hold() {
    holding = true;
  }

  /** Sends the renewals held back, and those to come at once; returns how many were held. */
  int letThrough() {
    List<Runnable> go;
    synchronized (this) {
      holding = false;
      go = new ArrayList<>(held);
      held.clear();
    }
    go.forEach(Runnable::run);
    return go.size();
  }

  /** The most renewals that were in flight at once, held ones included. */
  int mostInFlight() {
    return mostInFlight.get();
  }
}

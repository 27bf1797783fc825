package io.relock.stress;

import io.relock.spi.CommandNotSentException;
import io.relock.spi.RedisDriver;
import io.relock.spi.ReplicatedReply;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A network between relock and Redis that misbehaves, from a seed: a driver that wraps a real one
 * (which talks to a real Redis) and, call by call and message by message, fails sends, loses
 * replies, delays replies (so that a later call's reply overtakes an earlier one's, and a reply
 * can arrive after the caller gave up on it), and loses, repeats and delays notifications (so
 * that they arrive out of order, twice, late, or never). These are the faults a slow or lossy
 * network produces and that pausing Redis or killing connections do not.
 *
 * <p>What it keeps of the driver contract (see {@link RedisDriver}): a call it says was not sent
 * never reaches Redis; a call that did reach Redis ran once, when it was sent, whatever happens to
 * its reply afterwards. A lost reply fails the call with {@link LostReply}, which the engine must
 * treat as "may have run", as it treats a timeout. A reply held back past the command timeout
 * fails as the real driver would: at the timeout, with {@link LostReply}, if that driver times out
 * its own calls (Jedis, Lettuce); else the engine's own timer meets it.
 *
 * <p>Replay: every decision comes from one {@link Random} seeded with the run's seed, taken in the
 * order calls and messages pass through, so a seed replays the same schedule of faults (the n-th
 * call meets the n-th call's fault); which call is the n-th depends on the threads' timing, as the
 * stress run's own workload does.
 */
final class SimulatedNetwork implements RedisDriver {
  /**
   * How often each fault happens, as a probability per call or per message.
   *
   * @param notSent a call fails without being sent
   * @param replyLost a call runs and its reply is lost
   * @param replyDelayed a call runs and its reply comes late, by up to {@code maxDelay}
   * @param noticeLost a notification never arrives
   * @param noticeRepeated a notification arrives twice, the second time late
   * @param noticeDelayed a notification arrives late, by up to {@code maxDelay}
   * @param maxDelay the longest delay
   */
  record Faults(double notSent, double replyLost, double replyDelayed, double noticeLost, double noticeRepeated,
      double noticeDelayed, Duration maxDelay) {

    /** The stress run's mix: a few percent of each, delays up to twice the command timeout. */
    static Faults forStress(Duration commandTimeout) {
      return new Faults(0.01, 0.01, 0.05, 0.02, 0.02, 0.10, commandTimeout.multipliedBy(2));
    }
  }

  /** The failure of a call whose reply the simulated network lost: it ran, or may have. */
  static final class LostReply extends RuntimeException {
    LostReply() {
      super("simulated network: the reply was lost (the command ran)");
    }
  }

  private final RedisDriver real;
  /** Whether the real driver fails its own calls at the command timeout (see timesOutCommands). */
  private final boolean timesOut;
  private final long timeoutMicros;
  private final Faults faults;
  private final Random random;
  private final Consumer<String> count;
  private final ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "simulated-network");
    t.setDaemon(true);
    return t;
  });

  /**
   * @param real the driver that talks to Redis; closed with this one
   * @param commandTimeout the timeout the real driver was created with
   * @param seed the seed of the fault schedule
   * @param count told the name of every fault injected, for the run's report
   */
  SimulatedNetwork(RedisDriver real, Duration commandTimeout, Faults faults, long seed, Consumer<String> count) {
    this.real = real;
    this.timesOut = real.timesOutCommands();
    this.timeoutMicros = commandTimeout.toNanos() / 1000;
    this.faults = faults;
    this.random = new Random(seed);
    this.count = count;
  }

  private enum CallFault { NONE, NOT_SENT, REPLY_LOST, REPLY_DELAYED }

  private enum NoticeFault { NONE, LOST, REPEATED, DELAYED }

  /** Draws one call's fault and, for a delay, its length in microseconds. */
  private synchronized long[] drawCall() {
    double d = random.nextDouble();
    long delay = (long) (random.nextDouble() * faults.maxDelay().toNanos() / 1000);
    CallFault f = d < faults.notSent() ? CallFault.NOT_SENT
        : d < faults.notSent() + faults.replyLost() ? CallFault.REPLY_LOST
        : d < faults.notSent() + faults.replyLost() + faults.replyDelayed() ? CallFault.REPLY_DELAYED
        : CallFault.NONE;
    return new long[] {f.ordinal(), delay};
  }

  private synchronized long[] drawNotice() {
    double d = random.nextDouble();
    long delay = (long) (random.nextDouble() * faults.maxDelay().toNanos() / 1000);
    NoticeFault f = d < faults.noticeLost() ? NoticeFault.LOST
        : d < faults.noticeLost() + faults.noticeRepeated() ? NoticeFault.REPEATED
        : d < faults.noticeLost() + faults.noticeRepeated() + faults.noticeDelayed() ? NoticeFault.DELAYED
        : NoticeFault.NONE;
    return new long[] {f.ordinal(), delay};
  }

  /** Sends {@code call} through the simulated network: the fault drawn decides what comes back. */
  private <T> CompletableFuture<T> through(java.util.function.Supplier<CompletableFuture<T>> call) {
    long[] drawn = drawCall();
    CallFault fault = CallFault.values()[(int) drawn[0]];
    if (fault == CallFault.NOT_SENT) {
      count.accept("network: call not sent");
      return CompletableFuture.failedFuture(new CommandNotSentException("simulated network: not sent", null));
    }
    CompletableFuture<T> sent = call.get();
    if (fault == CallFault.NONE) {
      return sent;
    }
    CompletableFuture<T> reply = new CompletableFuture<>();
    sent.whenComplete((value, error) -> {
      if (fault == CallFault.REPLY_LOST) {
        count.accept("network: reply lost");
        reply.completeExceptionally(new LostReply());
        return;
      }
      count.accept("network: reply delayed");
      if (timesOut && drawn[1] >= timeoutMicros) {
        // The real driver's own timeout comes first: the call fails then, though it ran.
        later.schedule(() -> reply.completeExceptionally(new LostReply()), timeoutMicros, TimeUnit.MICROSECONDS);
        return;
      }
      later.schedule(() -> {
        if (error != null) {
          reply.completeExceptionally(error);
        } else {
          reply.complete(value);
        }
      }, drawn[1], TimeUnit.MICROSECONDS);
    });
    return reply;
  }

  /** Wraps a notification listener so that messages are lost, repeated and delayed. */
  private Consumer<String> heardThrough(Consumer<String> listener) {
    return message -> {
      long[] drawn = drawNotice();
      switch (NoticeFault.values()[(int) drawn[0]]) {
        case NONE -> listener.accept(message);
        case LOST -> count.accept("network: notification lost");
        case REPEATED -> {
          count.accept("network: notification repeated");
          listener.accept(message);
          later.schedule(() -> listener.accept(message), drawn[1], TimeUnit.MICROSECONDS);
        }
        case DELAYED -> {
          count.accept("network: notification delayed");
          later.schedule(() -> listener.accept(message), drawn[1], TimeUnit.MICROSECONDS);
        }
        default -> throw new IllegalStateException();
      }
    };
  }

  @Override
  public CompletableFuture<List<Object>> evalSha(String sha1, List<String> keys, List<String> args) {
    return through(() -> real.evalSha(sha1, keys, args));
  }

  @Override
  public CompletableFuture<ReplicatedReply> evalShaReplicated(String sha1, List<String> keys, List<String> args,
      int replicas, Duration timeout) {
    return through(() -> real.evalShaReplicated(sha1, keys, args, replicas, timeout));
  }

  @Override
  public boolean supportsReplicaAcks() {
    return real.supportsReplicaAcks();
  }

  @Override
  public CompletableFuture<Map<String, List<Object>>> evalShaOnEveryPrimary(String sha1,
      Function<String, List<String>> argsFor) {
    return through(() -> real.evalShaOnEveryPrimary(sha1, argsFor));
  }

  @Override
  public CompletableFuture<String> scriptLoad(String script) {
    return through(() -> real.scriptLoad(script));
  }

  @Override
  public CompletableFuture<Void> subscribe(String channel, Consumer<String> listener) {
    return real.subscribe(channel, heardThrough(listener));
  }

  @Override
  public boolean isClustered() {
    return real.isClustered();
  }

  @Override
  public void refreshTopology() {
    real.refreshTopology();
  }

  @Override
  public boolean hasShardedPubSub() {
    return real.hasShardedPubSub();
  }

  @Override
  public CompletableFuture<Void> subscribeSharded(String channel, Consumer<String> listener) {
    return real.subscribeSharded(channel, heardThrough(listener));
  }

  @Override
  public CompletableFuture<Void> unsubscribeSharded(String channel) {
    return real.unsubscribeSharded(channel);
  }

  @Override
  public void onReconnect(Runnable listener) {
    real.onReconnect(listener);
  }

  @Override
  public boolean timesOutCommands() {
    // As the real driver: one that times out its own calls fails a reply held back past the
    // timeout itself (above); for one that does not, the engine's own timer meets it.
    return timesOut;
  }

  @Override
  public void close() {
    try {
      real.close();
    } finally {
      later.shutdownNow();
    }
  }
}

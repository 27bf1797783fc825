package io.relock.contract;

import io.relock.LeaderListener;
import io.relock.Leadership;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link LeaderListener} that records what it hears, in order: each call, the thread it ran on,
 * when it came (System.nanoTime()), and whether two calls ever overlapped.
 */
final class LeaderRecorder implements LeaderListener {
  /** One call: {@code elected} or {@code revoked}, of which leadership, when and where. */
  record Call(boolean elected, Leadership leadership, long atNanos, String thread) {
    @Override
    public String toString() {
      return (elected ? "elected " : "revoked ") + leadership.term();
    }
  }

  private final List<Call> calls = new CopyOnWriteArrayList<>();
  private final AtomicInteger inside = new AtomicInteger();
  private volatile boolean overlapped;

  @Override
  public void onElected(Leadership leadership) {
    record(true, leadership);
  }

  @Override
  public void onRevoked(Leadership leadership) {
    record(false, leadership);
  }

  private void record(boolean elected, Leadership leadership) {
    if (inside.incrementAndGet() > 1) {
      overlapped = true;
    }
    calls.add(new Call(elected, leadership, System.nanoTime(), Thread.currentThread().getName()));
    inside.decrementAndGet();
  }

  List<Call> calls() {
    return new ArrayList<>(calls);
  }

  int elections() {
    return (int) calls.stream().filter(Call::elected).count();
  }

  int revocations() {
    return (int) calls.stream().filter(c -> !c.elected()).count();
  }

  /** The {@code n}-th leadership heard elected, from 0. */
  Call elected(int n) {
    return calls.stream().filter(Call::elected).skip(n).findFirst().orElseThrow();
  }

  /** The {@code n}-th leadership heard revoked, from 0. */
  Call revoked(int n) {
    return calls.stream().filter(c -> !c.elected()).skip(n).findFirst().orElseThrow();
  }

  long lastTerm() {
    return calls.get(calls.size() - 1).leadership().term();
  }

  /**
   * Why the calls are not well formed, or null if they are: they alternate, elected first, each
   * revocation naming the leadership elected before it, terms strictly increase, and no two calls
   * overlapped.
   */
  String malformed() {
    List<Call> seen = calls();
    long lastTerm = Long.MIN_VALUE;
    for (int i = 0; i < seen.size(); i++) {
      Call c = seen.get(i);
      if (c.elected() != (i % 2 == 0)) {
        return "calls do not alternate: " + seen;
      }
      if (c.elected()) {
        if (c.leadership().term() <= lastTerm) {
          return "terms do not increase: " + seen;
        }
        lastTerm = c.leadership().term();
      } else if (c.leadership() != seen.get(i - 1).leadership()) {
        return "a revocation names another leadership than the election before it: " + seen;
      }
    }
    return overlapped ? "two calls overlapped: " + seen : null;
  }

  @Override
  public String toString() {
    return calls.toString();
  }
}

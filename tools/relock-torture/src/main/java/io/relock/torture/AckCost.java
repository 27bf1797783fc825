package io.relock.torture;

import io.relock.LockLease;
import io.relock.Relock;
import io.relock.RelockException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;

/**
 * What replicaAcks costs an acquisition: after a Sentinel run's workers stopped (the group healthy
 * again, the machine otherwise idle), two clients of the coordinator, one without and one with
 * replicaAcks, take and release a lock nobody else uses, in turns, and the median time of the
 * {@code acquire} calls is compared. Uncontended, so the difference is the acknowledged call's own
 * cost (the {@code WAIT} after the acquiring script and the replica's acknowledgement), not waiting.
 */
final class AckCost {
  private static final String LOCK = "torture-ack-cost";
  private static final int WARM_UP = 30;
  static final int SAMPLES = 150;
  /** Sampling stops after this long, with the samples it has (a loaded machine must not stall the suite). */
  private static final Duration SAMPLING_LIMIT = Duration.ofSeconds(5);

  /**
   * Median acquire times in microseconds, without and with replicaAcks, of {@code samples} each;
   * {@code phases} says how long connecting, warming up, sampling and closing took.
   */
  record Result(int samples, long medianOffMicros, long medianOnMicros, int replicaAcks, String phases) {
    long costMicros() {
      return medianOnMicros - medianOffMicros;
    }
  }

  private AckCost() {}

  static Result measure(String lockUri, TortureSettings s, int replicaAcks, Duration ackTimeout) {
    long start = System.nanoTime();
    long connected;
    long warm;
    long sampled;
    int n = 0;
    long[] offTimes = new long[SAMPLES];
    long[] onTimes = new long[SAMPLES];
    try (Relock off = client(lockUri, s, 0, ackTimeout); Relock on = client(lockUri, s, replicaAcks, ackTimeout)) {
      connected = System.nanoTime();
      for (int i = 0; i < WARM_UP; i++) {
        once(off, s);
        once(on, s);
      }
      warm = System.nanoTime();
      long limit = warm + SAMPLING_LIMIT.toNanos();
      while (n < SAMPLES && System.nanoTime() - limit < 0) {
        offTimes[n] = once(off, s);
        onTimes[n] = once(on, s);
        n++;
      }
      sampled = System.nanoTime();
    }
    long closed = System.nanoTime();
    String phases = String.format(Locale.ROOT, "clients up %.1f s, warm-up %.1f s, %d samples %.1f s, closing %.1f s",
        (connected - start) / 1e9, (warm - connected) / 1e9, n, (sampled - warm) / 1e9, (closed - sampled) / 1e9);
    return new Result(n, median(offTimes, n) / 1000, median(onTimes, n) / 1000, replicaAcks, phases);
  }

  private static Relock client(String uri, TortureSettings s, int replicaAcks, Duration ackTimeout) {
    Relock.Builder b = Relock.builder().uri(uri).defaultLease(s.lease()).commandTimeout(s.commandTimeout())
        .recheckInterval(s.recheckInterval());
    if (replicaAcks > 0) {
      b.replicaAcks(replicaAcks, ackTimeout);
    }
    return b.build();
  }

  /** Nanoseconds one uncontended acquire took (the release is not timed). */
  private static long once(Relock client, TortureSettings s) {
    long start = System.nanoTime();
    try (LockLease lease = client.lock(LOCK).acquire(s.acquireWait())) {
      return System.nanoTime() - start;
    } catch (RelockException | IllegalMonitorStateException e) {
      throw new IllegalStateException("measuring what replicaAcks costs: " + e.getMessage(), e);
    }
  }

  private static long median(long[] values, int n) {
    long[] sorted = Arrays.copyOf(values, n);
    Arrays.sort(sorted);
    return n == 0 ? 0 : sorted[n / 2];
  }
}

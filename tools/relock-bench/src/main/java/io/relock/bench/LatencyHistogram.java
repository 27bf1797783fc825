package io.relock.bench;

import java.util.Arrays;

/**
 * Counts latencies in nanoseconds in log-linear buckets: exact below 64 ns, then 64 buckets per
 * power of two, so any reported percentile is within 1/64 (1.6%) of a recorded value. The
 * maximum, minimum and sum are exact. Not thread-safe: each worker thread records into its own
 * histogram and the harness {@link #add adds} them up afterwards, also across processes through
 * {@link #encode()} and {@link #decode(String)}.
 */
public final class LatencyHistogram {

  private static final int SUB_BUCKET_BITS = 6;
  private static final int SUB_BUCKETS = 1 << SUB_BUCKET_BITS;
  /** Enough buckets for any non-negative long. */
  static final int BUCKETS = SUB_BUCKETS * (64 - SUB_BUCKET_BITS);

  private final long[] counts = new long[BUCKETS];
  private long count;
  private long sum;
  private long min = Long.MAX_VALUE;
  private long max;

  /** Records one latency; negative values (a clock oddity) count as zero. */
  public void record(long nanos) {
    long v = Math.max(0, nanos);
    counts[bucketOf(v)]++;
    count++;
    sum += v;
    min = Math.min(min, v);
    max = Math.max(max, v);
  }

  /** Adds every value recorded in {@code other} to this histogram. */
  public void add(LatencyHistogram other) {
    for (int i = 0; i < BUCKETS; i++) {
      counts[i] += other.counts[i];
    }
    count += other.count;
    sum += other.sum;
    min = Math.min(min, other.min);
    max = Math.max(max, other.max);
  }

  public long count() {
    return count;
  }

  /** The largest recorded value, exact; 0 when empty. */
  public long max() {
    return max;
  }

  /** The smallest recorded value, exact; 0 when empty. */
  public long min() {
    return count == 0 ? 0 : min;
  }

  /** The mean, exact; 0 when empty. */
  public double mean() {
    return count == 0 ? 0 : (double) sum / count;
  }

  /**
   * The value at or below which {@code percentile} per cent of the recorded values lie (the
   * nearest-rank definition): the exact minimum or maximum when the rank is the first or last,
   * else the middle of its bucket, kept within the minimum and maximum.
   *
   * @throws IllegalArgumentException if {@code percentile} is outside 0..100
   */
  public long percentile(double percentile) {
    if (!(percentile >= 0 && percentile <= 100)) {
      throw new IllegalArgumentException("percentile must be within 0..100: " + percentile);
    }
    if (count == 0) {
      return 0;
    }
    long rank = Math.max(1, (long) Math.ceil(percentile / 100.0 * count));
    if (rank == count) {
      return max;
    }
    if (rank == 1) {
      return min;
    }
    long seen = 0;
    for (int i = 0; i < BUCKETS; i++) {
      seen += counts[i];
      if (seen >= rank) {
        return Math.min(max, Math.max(min, middleOf(i)));
      }
    }
    return max;
  }

  /**
   * A compact text form, {@code count,sum,min,max;bucket:count,bucket:count...} listing only the
   * non-empty buckets.
   */
  public String encode() {
    StringBuilder out = new StringBuilder();
    out.append(count).append(',').append(sum).append(',').append(min()).append(',').append(max);
    out.append(';');
    boolean first = true;
    for (int i = 0; i < BUCKETS; i++) {
      if (counts[i] != 0) {
        if (!first) {
          out.append(',');
        }
        out.append(i).append(':').append(counts[i]);
        first = false;
      }
    }
    return out.toString();
  }

  /**
   * Reads the form {@link #encode()} writes.
   *
   * @throws IllegalArgumentException if {@code text} is not such a form
   */
  public static LatencyHistogram decode(String text) {
    LatencyHistogram h = new LatencyHistogram();
    try {
      String[] parts = text.split(";", -1);
      String[] head = parts[0].split(",");
      h.count = Long.parseLong(head[0]);
      h.sum = Long.parseLong(head[1]);
      h.min = h.count == 0 ? Long.MAX_VALUE : Long.parseLong(head[2]);
      h.max = Long.parseLong(head[3]);
      long total = 0;
      if (!parts[1].isEmpty()) {
        for (String pair : parts[1].split(",")) {
          int colon = pair.indexOf(':');
          long c = Long.parseLong(pair.substring(colon + 1));
          h.counts[Integer.parseInt(pair.substring(0, colon))] = c;
          total += c;
        }
      }
      if (total != h.count) {
        throw new IllegalArgumentException("bucket counts add up to " + total + ", not " + h.count);
      }
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("not an encoded histogram: " + abbreviate(text), e);
    }
    return h;
  }

  static int bucketOf(long v) {
    if (v < SUB_BUCKETS) {
      return (int) v;
    }
    int shift = 63 - Long.numberOfLeadingZeros(v) - SUB_BUCKET_BITS;
    return (int) (SUB_BUCKETS * shift + (v >>> shift));
  }

  /** The smallest value that falls into bucket {@code i}. */
  static long lowestOf(int i) {
    if (i < SUB_BUCKETS) {
      return i;
    }
    int shift = i / SUB_BUCKETS - 1;
    return (long) (i - SUB_BUCKETS * shift) << shift;
  }

  private static long middleOf(int i) {
    if (i < SUB_BUCKETS) {
      return i;
    }
    int shift = i / SUB_BUCKETS - 1;
    return lowestOf(i) + ((1L << shift) >>> 1);
  }

  private static String abbreviate(String s) {
    return s.length() <= 60 ? s : s.substring(0, 60) + "...";
  }

  @Override
  public String toString() {
    return "LatencyHistogram" + Arrays.asList(count, percentile(50), percentile(99), max);
  }
}

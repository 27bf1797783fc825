package io.relock.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Random;
import org.junit.jupiter.api.Test;

class LatencyHistogramTest {

  @Test
  void buckets_coverEveryValueOnce_andStayWithinOneSixtyFourth() {
    long previousLowest = -1;
    for (int i = 0; i < LatencyHistogram.BUCKETS; i++) {
      long lowest = LatencyHistogram.lowestOf(i);
      assertThat(lowest).isGreaterThan(previousLowest);
      assertThat(LatencyHistogram.bucketOf(lowest)).isEqualTo(i);
      if (i > 0) {
        assertThat(LatencyHistogram.bucketOf(lowest - 1)).isEqualTo(i - 1);
      }
      previousLowest = lowest;
    }
    assertThat(LatencyHistogram.bucketOf(Long.MAX_VALUE)).isEqualTo(LatencyHistogram.BUCKETS - 1);
    for (long v : new long[] {64, 100, 1_000, 123_456, 9_999_999_999L}) {
      long width = LatencyHistogram.lowestOf(LatencyHistogram.bucketOf(v) + 1) - LatencyHistogram.lowestOf(LatencyHistogram.bucketOf(v));
      assertThat((double) width / v).isLessThanOrEqualTo(1 / 64.0);
    }
  }

  @Test
  void percentiles_followNearestRank_withinBucketPrecision() {
    LatencyHistogram h = new LatencyHistogram();
    for (long v = 1; v <= 1000; v++) {
      h.record(v * 1000);
    }
    assertThat(h.count()).isEqualTo(1000);
    assertThat((double) h.percentile(50)).isCloseTo(500_000, within(500_000 / 64.0));
    assertThat((double) h.percentile(99)).isCloseTo(990_000, within(990_000 / 64.0));
    assertThat(h.percentile(100)).isEqualTo(1_000_000);
    assertThat(h.percentile(0)).isEqualTo(1000);
    assertThat(h.max()).isEqualTo(1_000_000);
    assertThat(h.min()).isEqualTo(1000);
    assertThat(h.mean()).isEqualTo(500_500.0);
  }

  @Test
  void percentile_ofOneOutlier_isTheOutlierOnlyAtTheTop() {
    LatencyHistogram h = new LatencyHistogram();
    for (int i = 0; i < 99; i++) {
      h.record(10);
    }
    h.record(5_000_000_000L);
    assertThat(h.percentile(99)).isEqualTo(10);
    assertThat(h.percentile(99.5)).isEqualTo(5_000_000_000L);
  }

  @Test
  void empty_reportsZeros() {
    LatencyHistogram h = new LatencyHistogram();
    assertThat(h.percentile(99)).isZero();
    assertThat(h.max()).isZero();
    assertThat(h.min()).isZero();
    assertThat(h.mean()).isZero();
  }

  @Test
  void percentile_outsideRange_isRejected() {
    assertThatThrownBy(() -> new LatencyHistogram().percentile(101)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("101");
    assertThatThrownBy(() -> new LatencyHistogram().percentile(Double.NaN)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void add_thenEncodeDecode_givesTheSameFigures() {
    Random random = new Random(7);
    LatencyHistogram a = new LatencyHistogram();
    LatencyHistogram b = new LatencyHistogram();
    for (int i = 0; i < 10_000; i++) {
      a.record((long) (Math.abs(random.nextGaussian()) * 1_000_000));
      b.record(random.nextInt(50_000_000));
    }
    LatencyHistogram sum = new LatencyHistogram();
    sum.add(a);
    sum.add(b);
    assertThat(sum.count()).isEqualTo(20_000);
    assertThat(sum.max()).isEqualTo(Math.max(a.max(), b.max()));

    LatencyHistogram back = LatencyHistogram.decode(sum.encode());
    assertThat(back.count()).isEqualTo(sum.count());
    assertThat(back.max()).isEqualTo(sum.max());
    assertThat(back.min()).isEqualTo(sum.min());
    assertThat(back.mean()).isEqualTo(sum.mean());
    for (double p : new double[] {1, 50, 90, 99, 99.9}) {
      assertThat(back.percentile(p)).isEqualTo(sum.percentile(p));
    }
    assertThat(LatencyHistogram.decode(new LatencyHistogram().encode()).count()).isZero();
  }

  @Test
  void decode_rejectsCountsThatDoNotAddUp() {
    assertThatThrownBy(() -> LatencyHistogram.decode("3,30,10,10;10:2")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not an encoded histogram");
    assertThatThrownBy(() -> LatencyHistogram.decode("garbage")).isInstanceOf(IllegalArgumentException.class);
  }
}

package io.relock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SpreadTest {

  @Test
  void ofOddAndEvenCounts_givesTheMiddle_andTheExtremes() {
    assertThat(Spread.of(30, 10, 20)).isEqualTo(new Spread(10, 20, 30));
    assertThat(Spread.of(40, 10, 20, 30)).isEqualTo(new Spread(10, 25, 40));
    assertThat(Spread.of(7)).isEqualTo(new Spread(7, 7, 7));
  }

  @Test
  void windowsWithNothingToShow_areLeftOut() {
    assertThat(Spread.of(Double.NaN, 5, 9)).isEqualTo(new Spread(5, 7, 9));
    assertThat(Spread.of(Double.NaN)).isEqualTo(Spread.NONE);
    assertThat(Spread.of()).isEqualTo(Spread.NONE);
  }

  @Test
  void rangeText_hasThousandsSeparators_orADashWhenNotMeasured() {
    assertThat(Spread.of(17_887, 18_829, 19_582).rangeText(0)).isEqualTo("17,887–19,582");
    assertThat(Spread.of(1.234, 2.5).rangeText(2)).isEqualTo("1.23–2.50");
    assertThat(Spread.NONE.rangeText(0)).isEqualTo("-");
  }

  @Test
  void relativeWidth_isTheRangeOverTheMedian() {
    assertThat(Spread.of(90, 100, 110).relativeWidth()).isEqualTo(0.2);
    assertThat(Spread.NONE.relativeWidth()).isNaN();
  }
}

package io.relock.demo.production;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SoldOutFlagsTest {

  @Test
  void soldOut_isAnsweredFromMemoryUntilANewerSaleStarts() {
    SoldOutFlags flags = new SoldOutFlags();
    flags.saleStarted("sku", 10);
    assertThat(flags.isSoldOut("sku")).isFalse();

    flags.markSoldOut("sku", 10);
    assertThat(flags.isSoldOut("sku")).isTrue();
    assertThat(flags.isSoldOut("other")).isFalse();

    flags.saleStarted("sku", 11);
    assertThat(flags.isSoldOut("sku")).isFalse();
  }

  @Test
  void aLateSoldOutAnswerOfTheOlderSale_doesNotFlagTheNewerOne() {
    SoldOutFlags flags = new SoldOutFlags();
    flags.markSoldOut("sku", 10);
    flags.saleStarted("sku", 11);

    // A buyer of sale 10 got its "sold out" from Redis just before sale 11 started, and only now
    // reports it.
    flags.markSoldOut("sku", 10);

    assertThat(flags.isSoldOut("sku")).isFalse();
  }

  @Test
  void theAnnouncementOfAnOlderSale_arrivingLate_doesNotClearTheNewerSalesFlag() {
    SoldOutFlags flags = new SoldOutFlags();
    flags.saleStarted("sku", 11);
    flags.markSoldOut("sku", 11);

    flags.saleStarted("sku", 10);

    assertThat(flags.isSoldOut("sku")).isTrue();
  }
}

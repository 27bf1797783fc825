package io.relock.demo.production;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.relock.demo.Eventually;
import io.relock.demo.store.RedisUnavailableException;
import io.relock.testkit.RedisExtension;
import io.relock.testkit.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Two service processes' production sales (two instances on one Redis): the sold-out flag and the sale announcements. */
class ProductionSaleTest {

  @RegisterExtension static final RedisExtension redis = RedisExtension.withPersistence();

  @Test
  void onceSoldOut_buyersAreAnsweredFromMemory_evenWithRedisGone(RedisServer server) {
    try (ProductionSale service = ProductionSale.connect(server.uri(), Duration.ofSeconds(1), 2, "a")) {
      service.start("mem-1", 1);
      assertThat(service.buy("mem-1").take().status()).isEqualTo(FlashSale.Take.Status.QUEUED);
      ProductionSale.Purchase fromRedis = service.buy("mem-1");
      assertThat(fromRedis.take().status()).isEqualTo(FlashSale.Take.Status.SOLD_OUT);
      assertThat(fromRedis.fromMemory()).isFalse();

      server.stop();
      try {
        ProductionSale.Purchase fromMemory = service.buy("mem-1");
        assertThat(fromMemory.take().status()).isEqualTo(FlashSale.Take.Status.SOLD_OUT);
        assertThat(fromMemory.fromMemory()).isTrue();
        assertThatThrownBy(() -> service.buy("mem-other"))
            .as("an item not known to be sold out still needs Redis")
            .isInstanceOf(RedisUnavailableException.class);
      } finally {
        server.restart();
      }
    }
  }

  @Test
  void aNewSaleStartedByOneProcess_clearsEveryProcesssSoldOutFlag(RedisServer server) {
    try (ProductionSale a = ProductionSale.connect(server.uri(), Duration.ofSeconds(2), 2, "a");
        ProductionSale b = ProductionSale.connect(server.uri(), Duration.ofSeconds(2), 2, "b")) {
      a.start("announce-1", 0);
      assertThat(b.buy("announce-1").take().status()).isEqualTo(FlashSale.Take.Status.SOLD_OUT);
      assertThat(b.soldOutHere("announce-1")).isTrue();

      a.start("announce-1", 3);

      Eventually.await("b hears of the new sale", Duration.ofSeconds(10), () -> !b.soldOutHere("announce-1"));
      ProductionSale.Purchase bought = b.buy("announce-1");
      assertThat(bought.take().status()).isEqualTo(FlashSale.Take.Status.QUEUED);
      assertThat(bought.take().unit()).isEqualTo(1);
    }
  }
}

package io.relock.demo.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.testkit.RedisExtension;
import io.relock.testkit.RedisServer;
import java.time.Duration;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class FencedStoreTest {

  @RegisterExtension static final RedisExtension redis = new RedisExtension();

  private RedisInventory store;

  @BeforeEach
  void connect(RedisServer server) {
    store = RedisInventory.connect(server.uri(), Duration.ofSeconds(5));
  }

  @AfterEach
  void close() {
    store.close();
  }

  @Test
  void write_withTokenOlderThanTheLastAccepted_isRefusedAndChangesNothing() {
    store.restock("stale-write", 5);
    assertThat(store.readStock("stale-write", token(10)).status()).isEqualTo(StockRead.Status.READ);
    assertThat(store.recordSale("stale-write", 4, token(10), "{\"n\":1}").status())
        .isEqualTo(SaleWrite.Status.RECORDED);

    SaleWrite stale = store.recordSale("stale-write", 3, token(9), "{\"n\":2}");

    assertThat(stale.status()).isEqualTo(SaleWrite.Status.STALE_TOKEN);
    assertThat(stale.fence()).isEqualTo(10);
    ItemView item = store.view("stale-write").orElseThrow();
    assertThat(item.stock()).isEqualTo(4);
    assertThat(item.orders()).containsExactly("{\"n\":1}");
    assertThat(item.lastToken()).isEqualTo(10);
  }

  @Test
  void write_afterANewerHolderRead_isRefused() {
    store.restock("newer-read", 5);
    assertThat(store.readStock("newer-read", token(20)).stock()).isEqualTo(5);
    // A newer holder (token 21) reads before the holder of token 20 writes.
    assertThat(store.readStock("newer-read", token(21)).status()).isEqualTo(StockRead.Status.READ);

    SaleWrite late = store.recordSale("newer-read", 4, token(20), "{}");

    assertThat(late.status()).isEqualTo(SaleWrite.Status.STALE_TOKEN);
    assertThat(late.fence()).isEqualTo(21);
    assertThat(store.view("newer-read").orElseThrow().stock()).isEqualTo(5);
    assertThat(store.view("newer-read").orElseThrow().sold()).isZero();
  }

  @Test
  void read_withTokenOlderThanTheFence_isRefused() {
    store.restock("stale-read", 5);
    store.readStock("stale-read", token(30));

    StockRead stale = store.readStock("stale-read", token(29));

    assertThat(stale.status()).isEqualTo(StockRead.Status.STALE_TOKEN);
    assertThat(stale.fence()).isEqualTo(30);
    assertThat(store.view("stale-read").orElseThrow().lastToken()).isEqualTo(30);
  }

  @Test
  void sameToken_readThenWrite_isAccepted_andRelockSizedTokensCompareExactly() {
    long token = 1_763_700_000_123_456L; // microseconds since the epoch, the size relock issues
    store.restock("big-token", 2);
    store.readStock("big-token", token(token - 1));

    assertThat(store.readStock("big-token", token(token)).status()).isEqualTo(StockRead.Status.READ);
    assertThat(store.recordSale("big-token", 1, token(token), "{}").status()).isEqualTo(SaleWrite.Status.RECORDED);
    assertThat(store.recordSale("big-token", 0, token(token - 1), "{}").status())
        .isEqualTo(SaleWrite.Status.STALE_TOKEN);
    assertThat(store.view("big-token").orElseThrow().lastToken()).isEqualTo(token);
  }

  @Test
  void unfencedWrite_ignoresTheFence() {
    store.restock("unfenced", 3);
    store.readStock("unfenced", token(50));

    assertThat(store.recordSale("unfenced", 2, OptionalLong.empty(), "{}").status())
        .isEqualTo(SaleWrite.Status.RECORDED);
  }

  @Test
  void restock_clearsOrdersAndKeepsTheFence() {
    store.restock("restock", 3);
    store.readStock("restock", token(70));
    store.recordSale("restock", 2, token(70), "{}");

    ItemView item = store.restock("restock", 9);

    assertThat(item.stock()).isEqualTo(9);
    assertThat(item.initialStock()).isEqualTo(9);
    assertThat(item.orders()).isEmpty();
    assertThat(item.lastToken()).isEqualTo(70);
  }

  @Test
  void unknownItem_isReportedByReadAndWrite() {
    assertThat(store.readStock("nothing-here", token(1)).status()).isEqualTo(StockRead.Status.UNKNOWN_ITEM);
    assertThat(store.recordSale("nothing-here", 0, token(1), "{}").status()).isEqualTo(SaleWrite.Status.UNKNOWN_ITEM);
    assertThat(store.view("nothing-here")).isEmpty();
  }

  private static OptionalLong token(long value) {
    return OptionalLong.of(value);
  }
}

package io.relock.demo.production;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class OrderDatabaseTest {

  @Test
  void aPostgresUrl_becomesAJdbcUrl_andIsDescribedWithoutItsPassword() {
    String jdbc = OrderDatabase.jdbcUrl("postgresql://shop:s%2Fcret@db.internal:5433/orders");
    assertThat(jdbc).isEqualTo("jdbc:postgresql://db.internal:5433/orders?user=shop&password=s%2Fcret");
    assertThat(OrderDatabase.describe(jdbc)).isEqualTo("jdbc:postgresql://db.internal:5433/orders");
  }

  @Test
  void aUrlThatCannotBeParsed_isRefusedWithoutQuotingItsPassword() {
    assertThatThrownBy(() -> OrderDatabase.jdbcUrl("postgresql://shop:s cr#t@db.internal:5433/orders"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("DATABASE_URL is not a valid URL")
        .satisfies(e -> assertThat(e.toString()).doesNotContain("s cr").doesNotContain("cr#t"));
  }
}

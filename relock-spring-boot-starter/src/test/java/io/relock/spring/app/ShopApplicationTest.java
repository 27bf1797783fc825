package io.relock.spring.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.relock.LockLease;
import io.relock.Relock;
import io.relock.micrometer.RelockMetrics;
import io.relock.spring.Locked;
import io.relock.testkit.RedisExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.actuate.health.HealthContributorRegistry;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Service;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A whole Spring Boot application, as a user writes it: the starter on the class path, Redis in
 * spring.data.redis.url, an @Locked service writing with its fencing token. Everything comes from
 * the auto-configuration that the starter registers.
 */
@SpringBootTest(classes = ShopApplicationTest.Shop.class, properties = "relock.key-prefix=shop:")
class ShopApplicationTest {

  @RegisterExtension static final RedisExtension redis = new RedisExtension();

  @DynamicPropertySource
  static void redis(DynamicPropertyRegistry registry) {
    registry.add("spring.data.redis.url", () -> redis.server().uri());
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(Stock.class)
  static class Shop {}

  /** A store that refuses writes carrying a token older than the newest it has seen. */
  @Service
  public static class Stock {
    private final List<Long> accepted = new CopyOnWriteArrayList<>();
    private long newest;

    @Locked(value = "'sku:' + #sku", waitTime = "5s")
    public synchronized boolean sell(String sku, LockLease lease) {
      if (lease.fencingToken() < newest) {
        return false;
      }
      newest = lease.fencingToken();
      accepted.add(newest);
      return true;
    }

    public List<Long> accepted() {
      return new ArrayList<>(accepted);
    }
  }

  @Autowired Stock stock;
  @Autowired Relock relock;
  @Autowired MeterRegistry meters;
  @Autowired HealthContributorRegistry health;

  @Test
  void theStarterConfiguresRelock_lockedMethods_metersAndHealth() {
    assertThat(stock.sell("a1", null)).isTrue();
    assertThat(stock.sell("a1", null)).isTrue();

    assertThat(stock.accepted()).hasSize(2).isSorted();
    assertThat(redis.server().execute("EXISTS", "shop:{sku:a1}:fence")).as("the key prefix applies").isEqualTo(1L);
    assertThat(meters.get(RelockMetrics.ACQUIRE).tag("outcome", "acquired").timer().count()).isEqualTo(2);
    HealthIndicator indicator = (HealthIndicator) health.getContributor("relock");
    assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
    assertThat(relock.stats().holds()).isZero();
  }
}

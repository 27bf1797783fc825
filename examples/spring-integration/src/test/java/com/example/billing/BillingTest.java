package com.example.billing;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.LockLease;
import io.relock.Relock;
import io.relock.testkit.RedisExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The application against a real redis-server that relock's test kit starts on a free port. */
@SpringBootTest
class BillingTest {

  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  @DynamicPropertySource
  static void redisUrl(DynamicPropertyRegistry registry) {
    registry.add("spring.data.redis.url", () -> redis.server().uri());
  }

  @Autowired BillingLeader leader;
  @Autowired Invoices invoices;

  @Test
  void theOnlyInstance_becomesTheLeader() throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!leader.isLeading()) {
      assertThat(System.nanoTime() - deadline).as("elected within 30 s").isNegative();
      Thread.sleep(50);
    }
    assertThat(redis.server().execute("EXISTS", "relock:{billing:billing-leader}")).isEqualTo(1L);
  }

  @Test
  void anInvoice_isIssuedOnce_andNotWhileAnotherInstanceHoldsItsLock() throws InterruptedException {
    assertThat(invoices.issue("42")).isTrue();
    assertThat(invoices.issue("42")).isFalse();
    try (Relock otherInstance = Relock.connect(redis.server().uri());
        LockLease held = otherInstance.lock("billing:invoice:43").acquire(Duration.ZERO)) {
      long started = System.nanoTime();
      assertThat(invoices.issue("43")).as("busy for the whole wait").isFalse();
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofSeconds(5));
    }
    assertThat(invoices.issue("43")).isTrue();
  }
}

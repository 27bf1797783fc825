package com.example.tickets;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.LockLease;
import io.relock.Relock;
import io.relock.testkit.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The application against a real redis-server that relock's test kit starts on a free port. */
@SpringBootTest
class SeatsTest {

  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  @DynamicPropertySource
  static void redisUrl(DynamicPropertyRegistry registry) {
    registry.add("spring.data.redis.url", () -> redis.server().uri());
  }

  @Autowired Seats seats;
  @Autowired Relock relock;

  @Test
  void eightConcurrentBookingsOfOneSeat_bookItOnce() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    List<Future<Boolean>> attempts = new ArrayList<>();
    try {
      for (int i = 0; i < 8; i++) {
        String customer = "customer-" + i;
        attempts.add(pool.submit(() -> seats.book("A1", customer, null)));
      }
      int booked = 0;
      for (Future<Boolean> attempt : attempts) {
        booked += attempt.get(60, TimeUnit.SECONDS) ? 1 : 0;
      }
      assertThat(booked).isEqualTo(1);
    } finally {
      pool.shutdownNow();
    }
    assertThat(seats.holder("A1")).startsWith("customer-").contains("token");
  }

  @Test
  void theStarter_connectsRelockToTheTestsRedis() {
    redis.server().execute("FLUSHALL");
    try (LockLease lease = relock.lock("seat:B2").acquire(Duration.ofSeconds(1))) {
      assertThat((Long) redis.server().execute("DBSIZE")).isPositive();
    }
  }
}

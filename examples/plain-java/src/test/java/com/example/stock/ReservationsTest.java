package com.example.stock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.relock.LockLease;
import io.relock.Relock;
import io.relock.testkit.RedisExtension;
import io.relock.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Runs against a real redis-server that relock's test kit starts on a free port. */
class ReservationsTest {

  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  @Test
  void twoInstancesWithFourThreadsEach_sellTheStockExactlyOnce(RedisServer server) throws Exception {
    Warehouse warehouse = new Warehouse();
    warehouse.put("sku-1", 50);
    AtomicInteger sold = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try (Relock first = Relock.connect(server.uri()); Relock second = Relock.connect(server.uri())) {
      List<Future<?>> buyers = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        Reservations instance = new Reservations(i % 2 == 0 ? first : second, warehouse);
        buyers.add(pool.submit(() -> {
          for (int n = 0; n < 10; n++) {
            if (instance.reserve("sku-1")) {
              sold.incrementAndGet();
            }
          }
        }));
      }
      for (Future<?> buyer : buyers) {
        buyer.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(50, sold.get(), "80 attempts on 50 units sell exactly 50");
    assertEquals(0, warehouse.count("sku-1"));
  }

  @Test
  void eachAcquisitionOfALock_carriesAHigherFencingToken(RedisServer server) {
    try (Relock relock = Relock.connect(server.uri())) {
      long previous = 0;
      for (int i = 0; i < 3; i++) {
        try (LockLease lease = relock.lock("stock:sku-2").acquire(Duration.ofSeconds(1))) {
          assertTrue(lease.fencingToken() > previous, "token " + lease.fencingToken() + " after " + previous);
          previous = lease.fencingToken();
        }
      }
    }
  }
}

package io.relock.torture;

import static org.assertj.core.api.Assertions.assertThat;

import io.relock.LockLease;
import io.relock.LockLostException;
import io.relock.Relock;
import io.relock.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * A focused reproduction of a two-holder defect the torture suite found now and then in
 * kill-holder runs (an "unexplained overlap"); fixed in relock-core by 196cc42. A holder's lease runs out while
 * two clients wait; both re-check at the same moment; the second's re-check hands the lock to the
 * first (and notifies it), while the first's own re-check reply also reports it granted. The
 * notification can reach the first client after the acquisition stopped being a registered waiter
 * and before its lease is registered as held, so the client takes the grant for an orphan and
 * releases it, handing the lock to the second client while the first's caller holds the lease.
 *
 * <p>It failed in about one round in a hundred before the fix. Off by default because it takes
 * about 100 s; run it with
 * {@code ./mvnw -pl tools/relock-torture test -Dtest=ExpiryHandoffRaceTest -Drelock.longRaceTests=true}.
 */
@EnabledIfSystemProperty(named = "relock.longRaceTests", matches = "true")
class ExpiryHandoffRaceTest {

  @Test
  void twoWaitersAtExpiry_neverHoldTheLockTogether() throws Exception {
    int rounds = 200;
    List<String> overlaps = new ArrayList<>();
    ExecutorService pool = Executors.newCachedThreadPool();
    try (RedisServer redis = RedisServer.start();
        Relock dead = Relock.connect(redis.uri());
        Relock first = Relock.connect(redis.uri());
        Relock second = Relock.connect(redis.uri())) {
      for (int i = 0; i < rounds; i++) {
        String name = "handoff-" + i;
        dead.lock(name).acquire(Duration.ZERO, Duration.ofMillis(300));  // never released, as if it crashed
        CountDownLatch queued = new CountDownLatch(1);
        long[] firstHeld = new long[2];
        Future<?> a = pool.submit(() -> {
          queued.countDown();
          LockLease lease = first.lock(name).acquire(Duration.ofSeconds(3));
          firstHeld[0] = System.nanoTime();
          sleep(200);
          firstHeld[1] = System.nanoTime();
          try {
            lease.close();
          } catch (LockLostException e) {
            // counted below through the overlap
          }
          return null;
        });
        queued.await();
        sleep(20);  // the first client queues first
        Future<Long> b = pool.submit(() -> {
          try (LockLease lease = second.lock(name).acquire(Duration.ofSeconds(3))) {
            return System.nanoTime();
          }
        });
        a.get(10, TimeUnit.SECONDS);
        long secondGranted = b.get(10, TimeUnit.SECONDS);
        if (secondGranted > firstHeld[0] && secondGranted < firstHeld[1]) {
          overlaps.add(name);
        }
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(overlaps).as("rounds in which the second client was granted the lock while the first held it")
        .isEmpty();
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);  // the holder's work
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

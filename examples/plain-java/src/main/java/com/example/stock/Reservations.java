package com.example.stock;

import io.relock.DistributedLock;
import io.relock.LockLease;
import io.relock.LockTimeoutException;
import io.relock.Relock;
import java.time.Duration;

/**
 * Reserves stock under one relock lock per item: read, check, write, with the lease's fencing
 * token on the write. Every instance of the service does the same against the same Redis.
 */
public final class Reservations {

  private final Relock relock;
  private final Warehouse warehouse;

  public Reservations(Relock relock, Warehouse warehouse) {
    this.relock = relock;
    this.warehouse = warehouse;
  }

  /**
   * Takes one unit of {@code sku}, waiting up to two seconds for the item's lock.
   *
   * @return false if the item is sold out
   * @throws LockTimeoutException if the lock stayed held for the whole wait
   */
  public boolean reserve(String sku) {
    DistributedLock lock = relock.lock("stock:" + sku);
    try (LockLease lease = lock.acquire(Duration.ofSeconds(2))) {
      int left = warehouse.count(sku);
      if (left == 0) {
        return false;
      }
      warehouse.write(sku, left - 1, lease.fencingToken());
      return true;
    }
  }

  /** Reserves one unit of the item named on the command line, against REDIS_URL's Redis. */
  public static void main(String[] args) {
    String uri = System.getenv().getOrDefault("REDIS_URL", "redis://localhost:6379");
    String sku = args.length > 0 ? args[0] : "sku-1";
    Warehouse warehouse = new Warehouse();
    warehouse.put(sku, 1);
    try (Relock relock = Relock.connect(uri)) {
      Reservations reservations = new Reservations(relock, warehouse);
      System.out.println("first reservation: " + reservations.reserve(sku));
      System.out.println("second reservation: " + reservations.reserve(sku));
    }
  }
}

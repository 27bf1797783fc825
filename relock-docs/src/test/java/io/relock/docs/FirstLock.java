package io.relock.docs;

// snippet:first-lock
import io.relock.LockLease;
import io.relock.Relock;
import java.time.Duration;

public class FirstLock {
  public static void main(String[] args) {
    String redisUri = args.length > 0 ? args[0] : "redis://localhost:6379";
    // One client per application: it holds the connections and the watchdog. Closing it releases
    // whatever it still holds.
    try (Relock relock = Relock.connect(redisUri)) {
      // Wait up to 10 s for the lock; hold it until the lease is closed.
      try (LockLease lease = relock.lock("nightly-report").acquire(Duration.ofSeconds(10))) {
        System.out.println("holding " + lease.lockName() + " with fencing token " + lease.fencingToken());
      }
    }
  }
}
// end:first-lock

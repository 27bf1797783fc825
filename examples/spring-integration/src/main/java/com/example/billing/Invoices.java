package com.example.billing;

import io.relock.integration.RelockLockRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import org.springframework.stereotype.Service;

/** Issues each invoice once, whichever instance is asked: under the invoice's lock. */
@Service
public class Invoices {
  private final RelockLockRegistry locks;
  private final Map<String, Long> issued = new ConcurrentHashMap<>();

  public Invoices(RelockLockRegistry locks) {
    this.locks = locks;
  }

  /** Whether this call issued the invoice; false if it was issued before, or its lock stayed busy for 5 s. */
  public boolean issue(String invoice) throws InterruptedException {
    try {
      return locks.executeLocked("invoice:" + invoice, Duration.ofSeconds(5), () -> {
        if (issued.containsKey(invoice)) {
          return false;
        }
        // The lease's fencing token goes with the write, for a store that refuses older ones.
        issued.put(invoice, locks.lease("invoice:" + invoice).fencingToken());
        return true;
      });
    } catch (TimeoutException busy) {
      return false;
    }
  }
}

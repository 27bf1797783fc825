package io.relock.docs;

// snippet:spring-payments
import io.relock.LockLease;
import io.relock.spring.CurrentLease;
import io.relock.spring.Locked;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Service;

@Service
public class Payments {
  private final Ledger ledger;

  public Payments(Ledger ledger) {
    this.ledger = ledger;
  }

  /**
   * One payment per order at a time, across every instance. The starter fills in the lease (callers
   * pass null); the ledger refuses a token older than the newest it has seen, so a payment whose
   * lease ran out while it was paused cannot overwrite a newer one.
   */
  @Locked(value = "'order:' + #order.id", waitTime = "5s", onLost = Locked.OnLost.THROW)
  public Receipt pay(Order order, LockLease lease) {
    long balance = ledger.balance(order.account(), lease.fencingToken());
    return ledger.debit(order, balance, lease.fencingToken());
  }

  /** Every five minutes on one instance; the others skip the tick. */
  @Scheduled(cron = "0 */5 * * * *")
  @Locked(value = "'settle'", holdAtLeast = "30s")
  public void settle() {
    ledger.settle(CurrentLease.get().fencingToken());
  }
}
// end:spring-payments

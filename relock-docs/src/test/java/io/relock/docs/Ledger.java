package io.relock.docs;

import java.util.ArrayList;
import java.util.List;

/** The Spring Boot snippet's store: a {@link FencedLedger} per account, and the settlements it ran. */
public class Ledger {
  private final java.util.Map<String, FencedLedger> accounts = new java.util.concurrent.ConcurrentHashMap<>();
  final List<Long> settlements = new ArrayList<>();

  long balance(String account, long fencingToken) {
    return accounts.computeIfAbsent(account, a -> new FencedLedger()).read(fencingToken);
  }

  Receipt debit(Order order, long balance, long fencingToken) {
    accounts.get(order.account()).write(balance - order.total(), fencingToken);
    return new Receipt(order.id(), balance - order.total(), fencingToken);
  }

  synchronized void settle(long fencingToken) {
    settlements.add(fencingToken);
  }
}

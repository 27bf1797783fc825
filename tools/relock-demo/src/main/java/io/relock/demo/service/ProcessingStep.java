package io.relock.demo.service;

/**
 * What a purchase does between reading the stock and writing it back: in a real shop, payment
 * checks and the like; here a short pause that widens the race window. Tests put a rendezvous here
 * to force an interleaving.
 */
@FunctionalInterface
public interface ProcessingStep {

  /** Runs after the purchase read {@code stockSeen} units of {@code item} and before it writes. */
  void afterRead(String item, long stockSeen);
}

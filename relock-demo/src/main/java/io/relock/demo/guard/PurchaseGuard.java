package io.relock.demo.guard;

import io.relock.demo.store.RedisUnavailableException;

/**
 * A lock strategy: how a purchase keeps the other buyers of the same item out while it reads the
 * stock and writes it back. One instance serves every request of a service process.
 */
public interface PurchaseGuard {

  /** The strategy's name, as given in {@code ?strategy=}: {@code none}, {@code seed-setnx}, {@code relock}. */
  String name();

  /**
   * Enters the critical section of {@code item}; the caller must {@link Hold#release()} the result.
   *
   * @throws LockBusyException if the section stayed taken for the strategy's whole wait
   * @throws RedisUnavailableException if Redis could not be reached
   */
  Hold enter(String item);
}

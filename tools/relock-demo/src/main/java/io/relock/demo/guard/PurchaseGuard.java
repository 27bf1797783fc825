package io.relock.demo.guard;

import io.relock.demo.store.RedisUnavailableException;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * A lock strategy: how a purchase keeps the other buyers of the same item out while it reads the
 * stock and writes it back. One instance serves every request of a service process.
 */
public interface PurchaseGuard {

  /** The strategy's name, as given in {@code ?strategy=}: {@code none}, {@code seed-setnx}, {@code relock}. */
  String name();

  /**
   * Runs {@code purchase} inside the critical section of {@code item}, handing it the fencing
   * token to write with (empty for strategies that have none), and leaves the section when it
   * returns or throws.
   *
   * @return what {@code purchase} returned, with what went wrong when leaving the section
   * @throws LockBusyException if the section stayed taken for the strategy's whole wait; {@code
   *     purchase} did not run
   * @throws RedisUnavailableException if Redis could not be reached to enter the section
   */
  <T> Guarded<T> run(String item, Function<OptionalLong, T> purchase);
}

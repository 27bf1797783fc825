package io.relock.demo.guard;

import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A strategy that enters the critical section, runs the purchase and leaves it by hand. */
abstract class HoldingGuard implements PurchaseGuard {

  private static final Logger log = LoggerFactory.getLogger(HoldingGuard.class);

  /**
   * Enters the critical section of {@code item}; the caller must {@link Hold#release()} the result.
   *
   * @throws LockBusyException if the section stayed taken for the strategy's whole wait
   */
  abstract Hold enter(String item);

  @Override
  public <T> Guarded<T> run(String item, Function<OptionalLong, T> purchase) {
    Hold hold = enter(item);
    T result;
    try {
      result = purchase.apply(hold.fencingToken());
    } catch (RuntimeException e) {
      hold.release().ifPresent(problem -> log.warn("{} after a failed purchase of {}", problem, item));
      throw e;
    }
    Optional<String> problem = hold.release();
    return new Guarded<>(result, problem);
  }
}

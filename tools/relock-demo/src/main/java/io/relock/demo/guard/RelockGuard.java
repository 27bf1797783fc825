package io.relock.demo.guard;

import io.relock.LockLostException;
import io.relock.LockTimeoutException;
import io.relock.RelockException;
import io.relock.demo.store.RedisUnavailableException;
import io.relock.spring.LockedLeaseLostException;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Strategy {@code relock}: the purchase runs in {@link ItemLocks#holding}, a {@link
 * io.relock.spring.Locked @Locked} method, and writes with its lease's fencing token. This class
 * only turns relock's answers into the service's: a wait that ran out into {@link
 * LockBusyException}, a lost lease into the purchase's release problem, Redis failing into {@link
 * RedisUnavailableException}.
 */
public final class RelockGuard implements PurchaseGuard {

  private static final Logger log = LoggerFactory.getLogger(RelockGuard.class);

  private final ItemLocks locks;

  /** @param locks the {@link ItemLocks} bean (the proxy, which takes the locks) */
  public RelockGuard(ItemLocks locks) {
    this.locks = Objects.requireNonNull(locks, "locks");
  }

  /** The lock name the demo uses for {@code item}, as {@link ItemLocks#holding}'s {@code @Locked} says. */
  public static String lockName(String item) {
    return "item:" + item;
  }

  @Override
  public String name() {
    return "relock";
  }

  @Override
  public <T> Guarded<T> run(String item, Function<OptionalLong, T> purchase) {
    try {
      return new Guarded<>(locks.holding(item, null, purchase), Optional.empty());
    } catch (LockTimeoutException e) {
      throw new LockBusyException(name(), item, e.waitTime());
    } catch (LockedLeaseLostException e) {
      // The purchase ran to its end; its fenced writes tell what it did. The loss goes with it.
      @SuppressWarnings("unchecked")
      T result = (T) e.returnValue();
      return new Guarded<>(result, Optional.of(e.getCause().getMessage()));
    } catch (RelockException e) {
      throw new RedisUnavailableException("cannot take the lock of item " + item + ": " + e.getMessage(), e, false);
    } catch (RuntimeException e) {
      for (Throwable suppressed : e.getSuppressed()) {
        if (suppressed instanceof LockLostException lost) {
          log.warn("{} after a failed purchase of {}", lost.getMessage(), item);
        }
      }
      throw e;
    }
  }
}

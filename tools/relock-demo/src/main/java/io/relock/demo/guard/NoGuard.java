package io.relock.demo.guard;

import java.util.Optional;
import java.util.OptionalLong;

/**
 * Strategy {@code none}: no lock at all, as in the articles' unlocked seckill endpoint. Concurrent
 * purchases read the same stock and each write it back minus one, so the stock lost updates while
 * every buyer gets an order: the sale oversells.
 */
public final class NoGuard extends HoldingGuard {

  private static final Hold NOTHING_HELD =
      new Hold() {
        @Override
        public OptionalLong fencingToken() {
          return OptionalLong.empty();
        }

        @Override
        public Optional<String> release() {
          return Optional.empty();
        }
      };

  @Override
  public String name() {
    return "none";
  }

  @Override
  Hold enter(String item) {
    return NOTHING_HELD;
  }
}
